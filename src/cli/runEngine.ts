/**
 * Shared by object, replay and sync: build the engine (through sync/compose) inside a run session,
 * run it, and hand back a typed result; its exit code is runStatus.ts's, its text render/runOutput.ts's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { settingsOf } from '../config/load.js';
import { placeOf } from '../config/connections.js';
import { claimOrg } from '../config/orgRecord.js';
import { oneLine } from '../config/echo.js';
import { InterruptedError, actionsOf, describeError, exitCodeOf } from '../model/errors.js';
import { createDeps, createEngine, profileFileFor, type Deps, type SyncEngine } from '../sync/compose.js';
import { OwnerIds, ownersFileIn } from '../sync/mirror/ownerIds.js';
import { RunReport } from '../sync/report/report.js';
import { acquireRunLock, runLockFile, stateDirOf, type RunLock } from '../sync/run/runLock.js';
import { checkStateDir } from '../sync/run/stateDir.js';
import { buildResult, type RunResult } from '../sync/result.js';
import { logNote, logRun, salesforceReachable, type RunFacts } from '../sync/run/runLog.js';
import type { LoggedCommand, LogResult } from '../model/syncLog.js';
import { failureSummary } from '../sync/report/failureGroups.js';
import { CsvReport } from './render/csvReport.js';
import { renderRun } from './render/runOutput.js';
import { formatCount } from './render/text.js';
import { keyShown, missingParentShown, outcomesShown, outsideParentShown, withKeyShown } from './render/shownKeys.js';
import { RunSession } from './runSession.js';
import { noteReportedSite, whereLines, whereOf, withKnownSite, type Where } from './where.js';
import { engineRunStatus } from './runStatus.js';
import type { WaitValue } from './runLimits.js';
import { outputFileOf, type CommandContext, type CommandResult } from './runner.js';

export interface RunOptions {
  force?: boolean;
  strictParents?: boolean;
  report?: string;
  /** Parsed on the command line (parseBatchSize), CLI_BATCH_SIZE when not given. */
  batchSize: number;
  /** Wait for a run holding the same state instead of exiting 75: true (bare --wait, the default bound) or the bound in ms. */
  wait?: WaitValue;
  /** --new-org: the state folder's org (or site) changed on purpose; its progress is forgotten. */
  newOrg?: boolean;
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
  /** `object`: the one record asked for is not on the platform, said so (exit 3). */
  notFound?: () => string | undefined;
  /** What to do about failed records, in the closing line of a partial run. */
  fix?: string;
  /** Lines a person reads after the report (object: the Salesforce id written). */
  after?: () => string[];
  /** Keys whose Salesforce Id the engine keeps (object's one record). */
  keepIdsOf?: ReadonlySet<string>;
  /** Called once the run holds the lock of its state, before connecting: what reads that state (sync's plan). */
  prepare?: () => void;
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
 * The lock of the run's state folder (sync's state file's, else its connection's): exit 75, or a
 * bounded wait. A stop while waiting ends a run that did nothing, and says so: no progress of its own.
 */
export async function lockRun(ctx: CommandContext, stateFile: string | undefined, wait: WaitValue | undefined, session: RunSession): Promise<RunLock> {
  const dir = stateDirOf(stateFile, ctx.connection.stateDir);
  const command = ctx.out.mask(ctx.argv.map(shellWord).join(' '));
  checkStateDir(dir);
  const waitMs = typeof wait === 'number' ? wait : undefined;
  try {
    return await session.waitingForLock(acquireRunLock(dir, { command, wait: wait !== undefined, waitMs, onWait: (line) => ctx.out.info(line), stop: session.signal }));
  } catch (err) {
    if (!(err instanceof InterruptedError)) throw err;
    throw new InterruptedError(err.signal, `${err.message} while waiting for the run holding ${runLockFile(dir)}: this run did nothing; run again with: ${command}`, [command]);
  }
}

/**
 * Runs `body` with an engine and returns the outcome to render. Options are checked first and may
 * throw usage errors (exit 2) before any connection is made, so nothing is half-written.
 */
export async function runEngine<E extends object>(ctx: CommandContext, run: EngineRun<E>): Promise<CommandResult<RunResult<E>>> {
  const { globals } = ctx;
  const { batchSize } = run.opts;
  const settings = settingsOf(ctx.raw, placeOf(ctx.deployment, ctx.connection));
  const session = new RunSession(ctx);
  const csv = run.opts.report ? new CsvReport(outputFileOf(ctx, run.opts.report), ctx.out.mask) : undefined;
  const shown = keyShown(settings.salesforce.siteKeys);
  const report = new RunReport(csv ? (o) => csv.write(withKeyShown(o, shown)) : undefined);
  const learn = { profileFile: profileFileFor(run.stateFile, ctx.connection.stateDir), save: !globals.dryRun, onWarning: (w: string) => report.warn(w) };
  const startedAt = new Date();
  let deps: Deps | undefined;
  let engine: SyncEngine | undefined;
  let extra: E | undefined;
  let stopped: unknown;
  let lock: RunLock | undefined;
  let where: Where | undefined;
  try {
    // A dry run writes nothing (no progress, no profile, no record): it needs no lock.
    if (!globals.dryRun) lock = await lockRun(ctx, run.stateFile, run.opts.wait, session);
    run.prepare?.();
    deps = await createDeps(settings, session.onWait, session.signal, learn, globals.dryRun);
    // A folder of another org, or two connections on one org: refused before the first record.
    const claim = { warn: (w: string) => report.warn(w), siteId: ctx.connection.raw.SVC_SITE_ID, startOver: run.opts.newOrg === true };
    if (claimOrg(ctx.deployment.connections, ctx.connection, deps.org, !globals.dryRun, claim)) startOver(ctx, run, report);
    where = withKnownSite(whereOf(ctx.raw, ctx.sources, deps.org, ctx.connection.name, deps.projection), deps.source.siteReported?.());
    // With --json the document holds it (result.where): stderr stays for what goes wrong.
    if (!ctx.globals.json) for (const line of whereLines(where, ctx.out.opts.label !== undefined)) ctx.out.info(line);
    const options = {
      dryRun: globals.dryRun,
      force: Boolean(run.opts.force),
      strictParents: Boolean(run.opts.strictParents),
      batchSize,
      stop: session.signal,
      onProgress: session.progressOf(deps),
      ...(run.keepIdsOf ? { keepIdsOf: run.keepIdsOf } : {}),
    };
    engine = createEngine(deps, options, report);
    extra = await run.body(engine, deps);
  } catch (err) {
    stopped = err;
  } finally {
    // Whose fields each action's owner fields now hold: serve keeps them only for the same user.
    if (engine !== undefined && !globals.dryRun) new OwnerIds(ownersFileIn(path.dirname(learn.profileFile))).record(engine).save();
    lock?.release();
    csv?.close();
    session.finishing();
  }
  // While the run record is written to the org (network I/O), a signal is announced and the
  // record finished: never Node's default death without the document.
  try {
    return await concludeRun(ctx, run, { report, deps, extra, stopped, where, startedAt, held: globals.dryRun || lock !== undefined });
  } finally {
    session.dispose();
  }
}

/** --new-org took the folder for the org reached: a --state file elsewhere is forgotten too, and the plan read again. */
function startOver<E extends object>(ctx: CommandContext, run: EngineRun<E>, report: RunReport): void {
  if (run.stateFile !== undefined) fs.rmSync(run.stateFile, { force: true });
  report.warn(`--new-org: ${ctx.connection.stateDir} now belongs to the org this login reached; its earlier progress is forgotten`);
  run.prepare?.();
}

/** What a run found, for its report. */
interface RunOutcome<E> {
  report: RunReport;
  deps: Deps | undefined;
  extra: E | undefined;
  stopped: unknown;
  where: Where | undefined;
  startedAt: Date;
  /** It held its state's lock (or needed none): a stop before that did nothing, as its own line says. */
  held: boolean;
}

/** The run's record in the org, its result, its text and its exit code. */
async function concludeRun<E extends object>(ctx: CommandContext, run: EngineRun<E>, o: RunOutcome<E>): Promise<CommandResult<RunResult<E>>> {
  const { globals } = ctx;
  const { report, deps, extra, where, startedAt } = o;
  let stopped = o.stopped;
  // A stop at any point, even before the first record, ends with the resume line and 130/143.
  if (stopped instanceof InterruptedError && o.held) stopped = interruptedLine(stopped, report, globals.dryRun, ctx.argv.map(shellWord).join(' '), run.stateFile);
  if (stopped instanceof InterruptedError && deps === undefined) throw stopped;
  // Nothing was attempted: a configuration or connection problem, reported as such.
  if (stopped !== undefined && !(stopped instanceof InterruptedError) && (deps === undefined || (report.listed.size === 0 && report.summary.size === 0))) {
    // Salesforce answered and the org is this connection's: the org's log keeps the refusal too.
    if (deps !== undefined && where !== undefined) await logUnstarted(ctx, deps, { command: run.command, startedAt, stopped, report });
    throw stopped;
  }
  const ran = deps as Deps;
  const site = noteReportedSite(where, ran.source.siteReported?.());
  if (site !== undefined && !globals.json) ctx.out.info(site);
  const notFound = run.notFound?.();
  const shortfall = run.shortfall?.();
  const status = engineRunStatus({ stopped, written: report.written, failed: report.failed, shortfall, notFound: notFound !== undefined });
  // Failures by reason: the first whole, with `svc-sync doctor` next when a retry cannot fix it.
  const keyOut = keyShown(settingsOf(ctx.raw).salesforce.siteKeys);
  const failures = failureSummary(
    report.failures().map((r) => withKeyShown(r, keyOut)),
    report.failed,
    run.fix ?? 'each failure is in the --json result, or listed by --verbose and --report FILE',
  );
  const why = [...(report.failed > 0 ? [failures.why] : []), ...[shortfall, notFound].filter((t) => t !== undefined)];
  const resultNow = (): RunResult<E> => {
    const { command, ...built } = buildResult(run.command, globals.dryRun, report, ran.source.requests(), ran.sink.calls());
    // Keys as the org holds them (site-qualified with SVC_SITE_KEYS): --json and the text alike.
    built.records = outcomesShown(built.records, keyOut);
    built.missingParents = built.missingParents.map((m) => missingParentShown(m, keyOut));
    built.outsideParents = built.outsideParents.map((m) => outsideParentShown(m, keyOut));
    // Where first: a log reader sees which site and org before the counts.
    const r = { command, ...(where ? { where } : {}), ...built, ...(extra ?? ({} as E)) } as RunResult<E>;
    if (stopped !== undefined) r.stopped = oneLine(describeError(stopped, ctx.out.redact), 1000);
    // What the run learned of the platform where the spec is silent: said once, and in --json.
    r.learned = ran.source.learned?.() ?? [];
    if (ran.gifts) {
      r.projection = ran.gifts.summary();
      r.salesforceCalls = { mirror: ran.sink.calls().total - r.projection.salesforceCalls, projection: r.projection.salesforceCalls };
    }
    return r;
  };
  const fix = notFound !== undefined && why.length === 1 ? 'check the type and id (svc-sync audit finds what is missing)' : failures.next;
  const closing = `exit ${status}: ${why.join('; ')}; next: ${fix}`;
  const facts = { globals, status, stopped, closing, warningsBefore: run.warningsBefore ?? [] };
  // The log in the org gets the summary as the terminal shows it, before its own calls are made.
  // A run an error stopped says why first: the report alone would not.
  const stopLine = stopped === undefined || stopped instanceof InterruptedError ? [] : [`exit ${status}: ${oneLine(describeError(stopped, ctx.out.redact), 1000)}`];
  const summary = (): string => [...stopLine, renderRun(resultNow(), report, facts).text].join('\n');
  const salesforceLog = await logEngineRun(ran, { command: run.command, startedAt, status, stopped, report, summary, redact: ctx.out.redact });
  const result = resultNow();
  if (salesforceLog !== undefined) result.salesforceLog = salesforceLog;
  const rendered = renderRun(result, report, facts);
  const shown = { ...rendered, text: [rendered.text, ...(run.after?.() ?? [])].join('\n') };
  const note = logNote(salesforceLog);
  if (note !== undefined) shown.notes.push(note);
  return { status, result, ...shown, ...(stopped === undefined ? {} : { stopped }), closing };
}

/** The run record of a run stopped before its first record (a refused key, the platform down): Refused or Failed, the reason its summary. */
async function logUnstarted(ctx: CommandContext, deps: Deps, f: Pick<RunFacts, 'command' | 'startedAt' | 'stopped' | 'report'>): Promise<void> {
  const status = exitCodeOf(f.stopped);
  const next = actionsOf(f.stopped)[0];
  const summary = `exit ${status}: ${oneLine(describeError(f.stopped), 1000)}${next === undefined ? '' : `; next: ${next}`}`;
  const logged = await logEngineRun(deps, { ...f, status, summary: () => summary, redact: ctx.out.redact });
  const note = logNote(logged);
  if (note !== undefined) ctx.out.info(note);
}

/** The run record and error records in the org, when the log is on and Salesforce can still be reached. */
async function logEngineRun(deps: Deps, f: Omit<RunFacts, 'platformRequests' | 'salesforceCalls' | 'summary'> & { summary: () => string }): Promise<LogResult | undefined> {
  if (deps.log === undefined || !salesforceReachable(f.stopped)) return undefined;
  return logRun(deps.log, { ...f, summary: f.summary(), platformRequests: deps.source.requests().total, salesforceCalls: deps.sink.calls().total });
}
