/**
 * Shared by object, replay and sync: build the engine (through sync/compose) inside a run session,
 * run it, and hand back a typed result; its exit code is runStatus.ts's, its text render/runOutput.ts's.
 */
import { settingsOf } from '../config/load.js';
import { echo, oneLine } from '../config/echo.js';
import { ConfigError, InterruptedError, describeError } from '../model/errors.js';
import { createDeps, createEngine, profileFileFor, type Deps, type SyncEngine } from '../sync/compose.js';
import { RunReport } from '../sync/report.js';
import { buildResult, type RunResult } from '../sync/result.js';
import { logNote, logRun, salesforceReachable, type RunFacts } from '../sync/runLog.js';
import type { LoggedCommand, LogResult } from '../model/syncLog.js';
import { CsvReport } from './render/csvReport.js';
import { renderRun } from './render/runOutput.js';
import { formatCount } from './render/text.js';
import { RunSession } from './runSession.js';
import { engineRunStatus } from './runStatus.js';
import type { CommandContext, CommandResult } from './runner.js';

export interface RunOptions {
  force?: boolean;
  strictParents?: boolean;
  report?: string;
  /** Parsed on the command line (parseBatchSize), CLI_BATCH_SIZE when not given. */
  batchSize: number;
}

/** Records of one type a CLI run maps and writes together (the webhook worker's batches are smaller: see webhook/processor). */
export const CLI_BATCH_SIZE = 5000;

export function parseBatchSize(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) throw new ConfigError(`--batch-size: must be a whole number from 1 to 100000, got ${echo(raw)}`);
  return Number(raw);
}

interface EngineRun<E extends object> {
  command: LoggedCommand;
  opts: RunOptions;
  /** The run itself; what it returns joins the result (sync's watermarks, replay's input). */
  body: (engine: SyncEngine, deps: Deps) => Promise<E>;
  /** Warnings known before the run (replay's bad lines), for the --json envelope. */
  warningsBefore?: string[];
  /**
   * Asked after the run: what, beside failed records, leaves the command short of what was asked
   * (replay's bad lines, a record `object` did not find). Any answer makes the exit code (and the
   * --json status) at least 1, and is named in the closing line that explains it.
   */
  shortfall?: () => string | undefined;
  /** Where the run keeps its progress (sync's state file), named when it is stopped. */
  stateFile?: string;
}

/** A word as a POSIX shell reads it back unchanged. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The one line a stopped run leaves: what was done, where progress is, and the exact command that resumes. */
function interruptedLine(stop: InterruptedError, report: RunReport, dryRun: boolean, resume: string, stateFile?: string): InterruptedError {
  const counts = { inserted: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const c of report.summary.values()) for (const k of Object.keys(counts) as Array<keyof typeof counts>) counts[k] += c[k];
  const done = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${formatCount(n)} ${k}`)
    .join(', ');
  const saved = dryRun ? 'dry run, nothing was written' : stateFile ? `progress saved in ${stateFile}` : 'what was written stays written';
  const message = `${stop.message} ${done ? `after ${done}` : 'before any record was done'}; ${saved}; resume with: ${resume}`;
  return new InterruptedError(stop.signal, message, [resume]);
}

/**
 * Runs `body` with an engine and returns the outcome to render. Options are checked first and may
 * throw usage errors (exit 2) before any connection is made, so nothing is half-written.
 */
export async function runEngine<E extends object>(ctx: CommandContext, run: EngineRun<E>): Promise<CommandResult<RunResult<E>>> {
  const { globals } = ctx;
  const { batchSize } = run.opts;
  const settings = settingsOf(ctx.raw);
  const session = new RunSession(ctx);
  const csv = run.opts.report ? new CsvReport(run.opts.report) : undefined;
  const learn = { profileFile: profileFileFor(run.stateFile), save: !globals.dryRun };
  const report = new RunReport(csv ? (o) => csv.write(o) : undefined);
  const startedAt = new Date();
  let deps: Deps | undefined;
  let extra: E | undefined;
  let stopped: unknown;
  try {
    deps = await createDeps(settings, session.onWait, session.signal, learn, globals.dryRun);
    const options = { dryRun: globals.dryRun, force: Boolean(run.opts.force), strictParents: Boolean(run.opts.strictParents), batchSize, stop: session.signal, onProgress: session.progressOf(deps) };
    extra = await run.body(createEngine(deps, options, report), deps);
  } catch (err) {
    stopped = err;
  } finally {
    session.dispose();
    csv?.close();
  }
  // A stop at any point, even before the first record, ends with the resume line and 130/143.
  if (stopped instanceof InterruptedError) stopped = interruptedLine(stopped, report, globals.dryRun, ctx.argv.map(shellWord).join(' '), run.stateFile);
  if (stopped instanceof InterruptedError && deps === undefined) throw stopped;
  // Nothing was attempted: a configuration or connection problem, reported as such.
  if (stopped !== undefined && !(stopped instanceof InterruptedError) && (deps === undefined || (report.records.length === 0 && report.summary.size === 0))) {
    throw stopped;
  }
  const ran = deps as Deps;
  const shortfall = run.shortfall?.();
  const status = engineRunStatus({ stopped, written: report.written, failed: report.failed, shortfall });
  const resultNow = (): RunResult<E> => {
    const r = { ...buildResult(run.command, globals.dryRun, report, ran.source.requests(), ran.sink.calls()), ...(extra ?? ({} as E)) } as RunResult<E>;
    if (stopped !== undefined) r.stopped = oneLine(describeError(stopped, ctx.out.redact), 1000);
    // What the run learned of the platform where the spec is silent: said once, and in --json.
    r.learned = ran.source.learned?.() ?? [];
    return r;
  };
  const facts = { globals, status, stopped, shortfall, warningsBefore: run.warningsBefore ?? [] };
  // The log in the org gets the summary as the terminal shows it, before its own calls are made.
  const salesforceLog = await logEngineRun(ran, { command: run.command, startedAt, status, stopped, report, summary: () => renderRun(resultNow(), report, facts).text, redact: ctx.out.redact });
  const result = resultNow();
  if (salesforceLog !== undefined) result.salesforceLog = salesforceLog;
  const shown = renderRun(result, report, facts);
  const note = logNote(salesforceLog);
  if (note !== undefined) shown.notes.push(note);
  return { status, result, ...shown, ...(stopped === undefined ? {} : { stopped }) };
}

/** The run record and error records in the org, when the log is on and Salesforce can still be reached. */
async function logEngineRun(deps: Deps, f: Omit<RunFacts, 'platformRequests' | 'salesforceCalls' | 'summary'> & { summary: () => string }): Promise<LogResult | undefined> {
  if (deps.log === undefined || !salesforceReachable(f.stopped)) return undefined;
  return logRun(deps.log, { ...f, summary: f.summary(), platformRequests: deps.source.requests().total, salesforceCalls: deps.sink.calls().total });
}
