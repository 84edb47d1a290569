/**
 * The one runner of every command: it builds the command's context, lets the command do its work
 * and hand back a typed CommandResult, then alone prints it (human text or the --json envelope)
 * and returns the exit code. Commands never print their result nor pick a process exit code.
 */
import { parseLogFormat } from '../config/log.js';
import type { Command } from 'commander';
import { loadRaw, redact, settingSources, type RawSettings } from '../config/load.js';
import { oneLine } from '../config/echo.js';
import { EXIT, actionsOf, describeError, type ExitCode } from '../model/errors.js';
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
  /** Settings as given (flags > environment > file); empty for commands that read none. */
  raw: RawSettings;
  /** Where each of them came from (which site and org a run acts on, and why). */
  sources: Sources;
  out: Output;
  /** The command line as typed, after `svc-sync` (the resume command of a stopped run). */
  argv: string[];
}

export type SetExit = (code: number) => void;

function commandContext(given: GlobalOptions, readSettings = true, argv: string[] = []): CommandContext {
  // --json-lines is --json on one line: every reader of `json` sees it.
  const globals = { ...given, json: given.json || given.jsonLines };
  const from = { flags: settingFlags(globals), configPath: globals.config };
  const raw = readSettings ? loadRaw(from) : {};
  const sources = readSettings ? settingSources(from) : {};
  // Stderr that is not a terminal is a log (cron): its lines carry their time.
  const logFormat = parseLogFormat(raw.SVC_LOG_FORMAT);
  const out = new Output({ json: globals.json, jsonLines: globals.jsonLines, quiet: globals.quiet, verbose: globals.verbose, logFormat, stamp: !process.stderr.isTTY }, (t) => redact(t, raw));
  return { globals, raw, sources, out, argv: ['svc-sync', ...argv] };
}

/** Prints a command's result the one way every command does, and gives its exit code. */
function render<T>(out: Output, r: CommandResult<T>): ExitCode {
  if (out.opts.json) {
    out.json(r.status, r.result, r.warnings, r.stopped === undefined ? undefined : actionsOf(r.stopped));
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
  return `exit ${r.status}: ${oneLine(describeError(r.stopped, redact), 300)}${next === undefined ? '' : `; next: ${redact(next)}`}`;
}

/**
 * Runs one command: context from its options (`readSettings: false` for a command that needs no
 * settings, so a broken config file cannot stop it), the work, the rendering, the exit code.
 */
export async function runCommand<T>(command: Command, setExit: SetExit, work: (ctx: CommandContext) => Promise<CommandResult<T>>, opts: { readSettings?: boolean } = {}): Promise<void> {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the whole argv (node, script, then the words typed).
  const typed = (root as Command & { rawArgs: string[] }).rawArgs.slice(2);
  const ctx = commandContext(command.optsWithGlobals<GlobalOptions>(), opts.readSettings ?? true, typed);
  setExit(render(ctx.out, await work(ctx)));
}
