/** Shared by object, replay and sync: build the engine, run it, render, pick the exit code. */
import { loadRaw, platformSettings, redact, salesforceSettings, webhookSettings, type RawSettings } from '../config/load.js';
import { ConfigError } from '../config/errors.js';
import { quote } from '../config/quote.js';
import type { Settings } from '../config/settings.js';
import { SyncEngine } from '../sync/engine.js';
import { RunReport } from '../sync/report.js';
import { buildResult, DRY_RUN_NOTICE, type RunResult } from '../sync/result.js';
import { createDeps, type Deps } from './deps.js';
import { EXIT, exitCodeOf, messageOf } from './exit.js';
import type { GlobalOptions } from './globals.js';
import { settingFlags } from './globals.js';
import { Output } from './output.js';
import { CsvReport } from './render/csvReport.js';
import { createProgress } from './render/progress.js';
import { renderHuman } from './render/tables.js';

export interface RunOptions {
  force?: boolean;
  strictParents?: boolean;
  report?: string;
  batchSize?: string;
}

export const DEFAULT_BATCH_SIZE = 5000;

export function parseBatchSize(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_BATCH_SIZE;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) throw new ConfigError(`--batch-size: must be a whole number from 1 to 100000, got ${quote(raw)}`);
  return Number(raw);
}

export interface CommandContext {
  globals: GlobalOptions;
  raw: RawSettings;
  out: Output;
}

export function commandContext(globals: GlobalOptions): CommandContext {
  const raw = loadRaw({ flags: settingFlags(globals), configPath: globals.config });
  const out = new Output({ json: globals.json, quiet: globals.quiet, verbose: globals.verbose }, (t) => redact(t, raw));
  return { globals, raw, out };
}

export function fullSettings(raw: RawSettings): Settings {
  return { platform: platformSettings(raw), salesforce: salesforceSettings(raw), webhook: webhookSettings(raw) };
}

/**
 * Runs `body` with an engine and prints the outcome. `prepare` runs first and may throw usage
 * errors (exit 2) before any connection is made, so nothing is half-written.
 */
export async function runWithEngine(
  command: string,
  ctx: CommandContext,
  opts: RunOptions,
  body: (engine: SyncEngine, deps: Deps) => Promise<Record<string, unknown> | void>,
  warningsBefore: string[] = [],
  /** The least exit code the command gives whatever the run does (replay's bad lines: 1), so the --json status is the exit code. */
  minStatus: number = EXIT.OK,
): Promise<number> {
  const { globals, out } = ctx;
  const batchSize = parseBatchSize(opts.batchSize);
  const settings = fullSettings(ctx.raw);
  const progress = createProgress(!globals.json && !globals.quiet);
  const csv = opts.report ? new CsvReport(opts.report) : undefined;
  const report = new RunReport(csv ? (o) => csv.write(o) : undefined);
  let deps: Deps | undefined;
  let extra: Record<string, unknown> | void = undefined;
  let stopped: unknown;
  try {
    // Rate-limit waits: in the spinner on a terminal, as a line on stderr otherwise (cron logs).
    deps = await createDeps(settings, (t) => (progress.live ? progress.note(t) : out.info(t)));
    const d = deps;
    const engine = new SyncEngine(d.source, d.sink, {
      dryRun: globals.dryRun,
      force: Boolean(opts.force),
      strictParents: Boolean(opts.strictParents),
      batchSize,
      onProgress: (p) => {
        progress.update(p);
        progress.requests(d.source.requests().total, d.sink.calls().total);
      },
    }, report);
    extra = await body(engine, d);
  } catch (err) {
    stopped = err;
  } finally {
    progress.stop();
    csv?.close();
  }
  // Nothing was attempted: a configuration or connection problem, reported as such.
  if (stopped !== undefined && (deps === undefined || (report.records.length === 0 && report.summary.size === 0))) {
    throw stopped;
  }
  const result: RunResult = {
    ...buildResult(command, globals.dryRun, report, deps!.source.requests(), deps!.sink.calls()),
    ...(extra ?? {}),
  };
  if (stopped !== undefined) result.stopped = messageOf(stopped, out.redact);
  const warnings = [...warningsBefore, ...report.warnings];
  if (globals.dryRun) warnings.push(DRY_RUN_NOTICE);
  // Exit 2 promises "nothing written": once something was, a stop is a partial run.
  const status = Math.max(
    minStatus,
    stopped !== undefined ? (report.written > 0 ? EXIT.PARTIAL : Math.max(exitCodeOf(stopped), EXIT.PARTIAL)) : report.failed > 0 ? EXIT.PARTIAL : EXIT.OK,
  );
  if (globals.json) {
    out.json(status, result, warnings);
  } else {
    out.result(renderHuman(result, { verbose: globals.verbose }));
    for (const w of warningsBefore) out.info(`warning: ${w}`);
    if (globals.verbose) for (const w of report.warnings) out.info(`warning: ${w}`);
    else if (report.warnings.length > 0) out.info(`${report.warnings.length} warning(s); --verbose lists them`);
    if (stopped !== undefined) out.error(messageOf(stopped, out.redact));
  }
  return status;
}
