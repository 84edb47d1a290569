/**
 * The one runner of every command: it builds the command's context, lets the command do its work
 * and hand back a typed CommandResult, then alone prints it (human text or the --json envelope)
 * and returns the exit code. Commands never print their result nor pick a process exit code.
 */
import path from 'node:path';
import { parseLogFormat } from '../config/log.js';
import type { Command } from 'commander';
import { redact, type RawSettings } from '../config/load.js';
import { chooseConnections, connectionLabel, DEFAULT_STATE_DIR, loadDeployment, wholeDeployment, type ConnectionConfig, type Deployment } from '../config/connections.js';
import { oneLine } from '../config/echo.js';
import { EXIT, InterruptedError, actionsOf, describeError, exitCodeOf, exitOfSignal, signalName, worstExit, type ExitCode, type StopSignal } from '../model/errors.js';
import { watchConnections } from './interrupt.js';
import { settingFlags, type GlobalOptions } from './globals.js';
import { Output } from './output.js';
import type { Sources } from './where.js';

export interface CommandResult<T> {
  /** The exit code, and the envelope's `status`. */
  status: ExitCode;
  /** The envelope's `result`: the stable shape scripts read (docs/administration.md, "Output and exit codes"). */
  result: T;
  /** The envelope's `warnings`. */
  warnings: string[];
  /** What a person reads on stdout. */
  text?: string;
  /** Lines on stderr for a person: notices, then `--verbose` detail. */
  notes?: string[];
  /** Lines on stderr that explain a non-zero exit: shown even with --quiet (not with --json, whose envelope holds them). */
  alerts?: string[];
  verbose?: string[];
  /** The error that stopped the work part-way: its line on stderr, the next commands to run in `actions`. */
  stopped?: unknown;
  /**
   * For a non-zero exit without `stopped`: one line naming the outcome and the fix. Written to
   * stderr whatever --json and --quiet say (cron mails stderr), unless `alerts` already explain it.
   */
  closing?: string;
}

export interface CommandContext {
  globals: GlobalOptions;
  /** The settings of the connection the command acts on (flags > its own > environment > file); empty for commands that read none. */
  raw: RawSettings;
  /** Where each of them came from (which site and org a run acts on, and why). */
  sources: Sources;
  /** Every connection of the config file, and the deployment-wide settings. */
  deployment: Deployment;
  /** The connection this call acts on: its name and state folder. */
  connection: ConnectionConfig;
  out: Output;
  /** The command line as typed, after `svc-sync` (the resume command of a stopped run). */
  argv: string[];
  /** This call is one of a run over several connections (each its own block, its stderr lines labelled). */
  several: boolean;
}

/**
 * A file a run writes (--report FILE), for this connection: in a run over several connections,
 * each writes its own, the name before the extension (report.csv: report.north.csv), so one
 * connection's report never overwrites another's.
 */
export function outputFileOf(ctx: Pick<CommandContext, 'several' | 'connection'>, file: string): string {
  const name = ctx.connection.name;
  if (!ctx.several || name === undefined) return file;
  const { dir, name: base, ext } = path.parse(file);
  // A file without an extension, or a dot file (.report): the name goes last.
  return ext === '' || base === '' ? `${file}.${name}` : path.join(dir, `${base}.${name}${ext}`);
}

export type SetExit = (code: number) => void;

/**
 * Which connections a command acts on: `each` (sync, audit, doctor: every one in turn unless one
 * is named), `one` (object, replay, queue retry: the named one, or the only one), `deployment`
 * (serve, queue: the whole deployment, once).
 */
type ConnectionMode = 'each' | 'one' | 'deployment';

const EMPTY_DEPLOYMENT: Deployment = { named: false, top: {}, connections: [{ name: undefined, raw: {}, sources: {}, stateDir: DEFAULT_STATE_DIR }] };

function commandContext(globals: GlobalOptions, deployment: Deployment, connection: ConnectionConfig, argv: string[], several: boolean): CommandContext {
  // Stderr that is not a terminal is a log (cron): its lines carry their time.
  const logFormat = parseLogFormat(deployment.top.SVC_LOG_FORMAT);
  // Each group once: without "connections" the top level is the one connection's own object.
  const raws = [...new Set([deployment.top, ...deployment.connections.map((c) => c.raw)])];
  // Every connection's secrets are masked in every line: one site's key never shows in another's output.
  const masked = (t: string): string => raws.reduce((text, raw) => redact(text, raw), t);
  const label = several && connection.name !== undefined ? connection.name : undefined;
  const out = new Output({ json: globals.json, jsonLines: globals.jsonLines, quiet: globals.quiet, verbose: globals.verbose, logFormat, stamp: !process.stderr.isTTY, label }, masked);
  return { globals, raw: connection.raw, sources: connection.sources, deployment, connection, out, argv: ['svc-sync', ...argv], several };
}

/** Prints a command's result the one way every command does, and gives its exit code. */
async function render<T>(out: Output, r: CommandResult<T>): Promise<ExitCode> {
  if (out.opts.json) {
    await out.json(r.status, r.result, r.warnings, r.stopped === undefined ? undefined : actionsOf(r.stopped));
    // The document goes to a log nobody reads until something is wrong: cron mails this line.
    if (r.status !== EXIT.OK) out.error(closingLine(r, out.redact));
    return r.status;
  }
  if (r.text !== undefined) out.result(r.text);
  for (const line of r.notes ?? []) out.info(line);
  for (const line of r.alerts ?? []) out.warn(line);
  for (const line of r.verbose ?? []) out.verbose(line);
  if (r.stopped !== undefined) out.error(oneLine(describeError(r.stopped, out.redact), 1000));
  else if (r.status !== EXIT.OK && (r.alerts ?? []).length === 0) out.error(closingLine(r, out.redact));
  return r.status;
}

/** The one line that tells a non-zero exit: the outcome and what to do next. */
function closingLine(r: Pick<CommandResult<unknown>, 'status' | 'stopped' | 'closing'>, redact: (text: string) => string): string {
  if (r.stopped === undefined) return r.closing ?? `exit ${r.status}`;
  const next = actionsOf(r.stopped)[0];
  // As long as the same line without --json (render): a long cause keeps its next command whole.
  const message = oneLine(describeError(r.stopped, redact), 1000);
  // A stop's message names its resume command already ("resume with: ..."): said once.
  return `exit ${r.status}: ${message}${next === undefined || message.includes(redact(next)) ? '' : `; next: ${redact(next)}`}`;
}

/**
 * Runs one command: context from its options (`readSettings: false` for a command that needs no
 * settings, so a broken config file cannot stop it), the work, the rendering, the exit code. With
 * several connections and mode `each`, the work runs once per connection, in the file's order.
 */
export async function runCommand<T>(
  command: Command,
  setExit: SetExit,
  work: (ctx: CommandContext) => Promise<CommandResult<T>>,
  opts: { readSettings?: boolean; connections?: ConnectionMode } = {},
): Promise<void> {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the whole argv (node, script, then the words typed).
  const typed = (root as Command & { rawArgs: string[] }).rawArgs.slice(2);
  const given = command.optsWithGlobals<GlobalOptions>();
  // --json-lines is --json on one line: every reader of `json` sees it.
  const globals = { ...given, json: given.json || given.jsonLines };
  const deployment = opts.readSettings === false ? EMPTY_DEPLOYMENT : loadDeployment({ flags: settingFlags(globals), configPath: globals.config });
  // Said once, before the work, whatever --quiet says: a secret others can read is never fine.
  for (const line of [deployment.exposed, deployment.untrusted]) if (line !== undefined) commandContext(globals, deployment, wholeDeployment(deployment), typed, false).out.warn(line);
  const mode = opts.connections ?? 'one';
  if (mode === 'deployment') {
    const chosen = deployment.top.SVC_CONNECTION === undefined ? undefined : chooseConnections(deployment, 'one')[0];
    const ctx = commandContext(globals, deployment, chosen ?? wholeDeployment(deployment), typed, false);
    return setExit(await render(ctx.out, await work(ctx)));
  }
  const chosen = chooseConnections(deployment, mode);
  if (!deployment.named || deployment.top.SVC_CONNECTION !== undefined) {
    const ctx = commandContext(globals, deployment, chosen[0]!, typed, false);
    return setExit(await render(ctx.out, await work(ctx)));
  }
  setExit(await runEach(chosen, (c) => commandContext(globals, deployment, c, typed, true), work));
}

/**
 * Every connection in turn: one that fails (a refused key, an org that is down) does not stop the
 * others; a stop by a signal does (the next run resumes each where it stopped), at any moment of
 * the loop: one watch holds the signals from the first connection to the document, so a signal
 * between two connections is not Node's default death. The connections after it are listed as
 * not run. The exit code is the worst (a signal's, once one came); --json gets one document
 * holding one result per connection.
 */
async function runEach<T>(connections: ConnectionConfig[], contextOf: (c: ConnectionConfig) => CommandContext, work: (ctx: CommandContext) => Promise<CommandResult<T>>): Promise<ExitCode> {
  const contexts = connections.map(contextOf);
  const results: ConnectionResult[] = [];
  // The config file names at least one connection.
  let current = contexts[0]!;
  // Said on the stderr of the connection in flight, even with --quiet: it explains the exit.
  const watch = watchConnections((line) => current.out.log('warn', `svc-sync: ${line}`));
  try {
    for (const ctx of contexts) {
      current = ctx;
      const r = watch.stoppedBy !== undefined ? notRun(watch.stoppedBy) : await runOne(ctx, work);
      results.push(connectionResult(ctx.connection.name ?? '', r, ctx.out.redact));
      if (ctx.globals.json) {
        if (r.status !== EXIT.OK) ctx.out.error(closingLine(r, ctx.out.redact));
      } else await render(ctx.out, r);
    }
    const stop = watch.stoppedBy === undefined ? [] : [exitOfSignal(watch.stoppedBy)];
    const status = worstExit([...results.map((r) => r.status), ...stop]);
    if (current.globals.json) {
      const warnings = results.flatMap((r) => r.warnings.map((w) => `${r.connection}: ${w}`));
      await current.out.json(status, { connections: results }, warnings);
    }
    return status;
  } finally {
    watch.dispose();
  }
}

/** One connection's work; what it throws is its result (the loop goes on to the next). */
async function runOne<T>(ctx: CommandContext, work: (ctx: CommandContext) => Promise<CommandResult<T>>): Promise<CommandResult<T | null>> {
  // A person reads one block per connection, as each ends; the document waits for all.
  if (!ctx.globals.json) ctx.out.result(`== ${connectionLabel(ctx.connection)} (site ${ctx.connection.raw.SVC_SITE_ID ?? '?'}) ==`);
  try {
    return await work(ctx);
  } catch (err) {
    return { status: exitCodeOf(err), result: null, warnings: [], stopped: err };
  }
}

/** A connection the loop did not start, a signal having come first: the next run does it. */
function notRun(sig: StopSignal): CommandResult<null> {
  return { status: exitOfSignal(sig), result: null, warnings: [], stopped: new InterruptedError(sig, `not run: interrupted by ${signalName(sig)}`) };
}

/** One connection's part of the --json document. */
interface ConnectionResult {
  connection: string;
  status: ExitCode;
  result: unknown;
  warnings: string[];
  /** What stopped it, as its closing line says, and what to run next. */
  error?: string;
  actions?: string[];
}

function connectionResult(connection: string, r: CommandResult<unknown>, redact: (text: string) => string): ConnectionResult {
  const out: ConnectionResult = { connection, status: r.status, result: r.result, warnings: r.warnings };
  if (r.stopped !== undefined) {
    out.error = oneLine(describeError(r.stopped, redact), 1000);
    out.actions = actionsOf(r.stopped);
  }
  return out;
}
