/**
 * What a command prints. With --json, stdout carries exactly one JSON document in the Salesforce
 * CLI's envelope and nothing else; every message goes to stderr. Secrets are redacted from all of it.
 */
import { logLine, type LogFormat, type LogLevel } from '../config/log.js';
import { messageColumns, wrapLine } from './render/text.js';

interface OutputOptions {
  json: boolean;
  /** The --json document on one line (--json-lines). */
  jsonLines?: boolean;
  quiet: boolean;
  verbose: boolean;
  /** Stderr lines as text or one JSON object each (SVC_LOG_FORMAT); text when absent. */
  logFormat?: LogFormat;
  /** Text lines on stderr begin with their time: for a log (cron, `serve`), not a terminal. */
  stamp?: boolean;
  /** The connection's name, before each stderr line, when a command runs several (`north: ...`). */
  label?: string | undefined;
}

/** The last command's log style: the line of an error that ends the process is written alike. */
// `stamp` unset: stamped unless stderr is a terminal, asked when the line is written (reading
// process.stderr makes Node build the stream: on a pipe, loading node:net, which `--help` never needs).
let style: { format: LogFormat; stamp?: boolean } = { format: 'text' };

/**
 * While a spinner's line is drawn on stderr (render/progress.ts), a line written begins with a
 * carriage return: ora erases the spinner with escape sequences alone, and where they are not
 * obeyed (a `script` transcript, a pager) the message would follow the spinner's text.
 */
let afterSpinner = false;
export function spinnerDrawn(drawn: boolean): void {
  afterSpinner = drawn;
}
const lineStart = (): string => (afterSpinner ? '\r' : '');

/** A stderr line outside any command's Output (the closing error), already masked, in the log style. */
export function stderrLine(level: LogLevel, masked: string): string {
  return `${lineStart()}${logText(style.format, level, masked, style.stamp ?? !process.stderr.isTTY)}`;
}

/**
 * A message as written to stderr, without the final newline: JSON is one line for a log pipeline.
 * Text is one line a record, stamped when asked; only on a terminal (`columns` set) is a long
 * record wrapped to its width, its continuation lines indented and not stamped again.
 */
export function logText(format: LogFormat, level: LogLevel, masked: string, stamp: boolean, columns = messageColumns()): string {
  if (format === 'json') return logLine(format, level, masked, stamp);
  const prefix = logLine(format, level, '', stamp);
  return masked
    .split('\n')
    .flatMap((l) => (columns === undefined ? [`${prefix}${l}`] : wrapLine(`${prefix}${l}`, Math.max(20, columns))))
    .join('\n');
}

/**
 * Control characters other than line breaks and tabs, escaped as \uXXXX: human output quotes
 * outside input (a path, an id, a record's text) on success paths too, and a raw ESC sequence in
 * it would recolour, move or clear the operator's terminal. (The JSON envelope escapes them itself.)
 */
function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A text log record is one line: a line break in what it quotes (outside text) is shown as \n. */
const oneRecord = (text: string): string => text.replace(/\r\n|\r|\n/g, (b) => (b === '\n' ? '\\n' : b === '\r' ? '\\r' : '\\r\\n'));

export class Output {
  /** Secrets masked and the terminal kept safe: for every line printed. */
  readonly redact: (text: string) => string;
  /**
   * Secrets masked, nothing else changed: the one masker of every file a command writes (reports,
   * the lock holder), as of every line it prints.
   */
  readonly mask: (text: string) => string;

  constructor(
    readonly opts: OutputOptions,
    redact: (text: string) => string = (t) => t,
  ) {
    this.mask = redact;
    this.redact = (t) => terminalSafe(redact(t));
    style = { format: opts.logFormat ?? 'text', stamp: opts.stamp ?? false };
  }

  /** Human result text on stdout (not with --json or --quiet). */
  result(text: string): void {
    if (!this.opts.json && !this.opts.quiet) process.stdout.write(`${this.redact(text)}\n`);
  }

  /** Progress and notices on stderr (not with --quiet). */
  info(text: string): void {
    if (!this.opts.quiet) this.log('info', text);
  }

  /** A warning that explains a non-zero exit (replay's bad lines, failures under --quiet): never hidden. */
  warn(text: string): void {
    this.log('warn', text);
  }

  verbose(text: string): void {
    if (this.opts.verbose && !this.opts.quiet) this.log('info', text);
  }

  error(text: string): void {
    this.log('error', `svc-sync: ${text}`);
  }

  /** One stderr line, masked, in the log format; `stamp` forces the time on text lines (`serve`). */
  log(level: LogLevel, text: string, stamp = this.opts.stamp ?? false): void {
    const label = this.opts.label;
    const labelled = label === undefined ? text : text.startsWith('svc-sync: ') ? `svc-sync: ${label}: ${text.slice(10)}` : `${label}: ${text}`;
    const format = this.opts.logFormat ?? 'text';
    // A JSON record escapes line breaks itself; a text one shows them as \n.
    process.stderr.write(`${lineStart()}${logText(format, level, this.redact(format === 'json' ? labelled : oneRecord(labelled)), stamp)}\n`);
  }

  /**
   * The --json envelope: {status, result, warnings}, and `actions` (what to run next) when an error
   * stopped the work. Written piece by piece, each piece redacted on its own: a run of a million
   * records never becomes one string of hundreds of megabytes (and five redacted copies of it).
   * Resolves once the reader has taken all but the last piece.
   */
  async json(status: number, result: unknown, warnings: string[], actions?: string[]): Promise<void> {
    const envelope = actions === undefined ? { status, result, warnings } : { status, result, warnings, actions };
    let buffer = '';
    for (const piece of jsonPieces(envelope, '', JSON_STREAM_DEPTH, !this.opts.jsonLines)) {
      buffer += this.redact(piece);
      if (buffer.length >= 65_536) {
        await writeOut(buffer);
        buffer = '';
      }
    }
    await writeOut(`${buffer}\n`);
  }
}

/**
 * Writes to standard output and, when the pipe is full, waits until the reader has taken it: a
 * pipe to a slower reader (a log shipper, a busy parent) otherwise queues the whole document in
 * memory, 115 MiB at 300,000 records. A pipe closed or failed ends the wait (stdio.ts reports it).
 */
function writeOut(text: string): Promise<void> {
  if (process.stdout.write(text) || process.stdout.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      process.stdout.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    process.stdout.on('drain', done).on('close', done).on('error', done);
  });
}

/** Envelope, result, its lists: below that each value is one piece (a record outcome, a count). */
const JSON_STREAM_DEPTH = 3;

/**
 * The text of JSON.stringify(value, null, 2), in pieces: objects and arrays down to `depth` are
 * written member by member, deeper values (and anything with a toJSON) whole. Not `pretty`: the
 * text of JSON.stringify(value), on one line.
 */
export function* jsonPieces(value: unknown, indent: string, depth: number, pretty = true): Generator<string> {
  const list = depth > 0 && isList(value);
  const plain = list || (depth > 0 && typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function');
  if (!plain) {
    const text = (pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)) ?? 'null';
    yield indent === '' || !pretty ? text : text.replace(/\n/g, `\n${indent}`);
    return;
  }
  if (!pretty) return yield* compactPieces(value, depth);
  const inner = `${indent}  `;
  if (list) {
    let first = true;
    for (const item of value as Iterable<unknown>) {
      yield first ? `[\n${inner}` : `,\n${inner}`;
      first = false;
      yield* jsonPieces(item, inner, depth - 1);
    }
    return yield first ? '[]' : `\n${indent}]`;
  }
  // As JSON.stringify: members whose value cannot be written are left out.
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol');
  if (entries.length === 0) return yield '{}';
  yield '{\n';
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i] as [string, unknown];
    yield `${inner}${JSON.stringify(k)}: `;
    yield* jsonPieces(v, inner, depth - 1);
    yield i < entries.length - 1 ? ',\n' : '\n';
  }
  yield `${indent}}`;
}

/**
 * An array, or a list written as one (a run's outcomes, outcomeLog.ts): iterable, and not a
 * string, Map or Set. Iterated, never copied: a million outcomes are made one at a time.
 */
function isList(value: unknown): value is Iterable<unknown> {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null || value instanceof Map || value instanceof Set) return false;
  return typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function';
}

/** jsonPieces on one line: the same members, no white space. */
function* compactPieces(value: object, depth: number): Generator<string> {
  if (isList(value)) {
    yield '[';
    let first = true;
    for (const item of value) {
      if (!first) yield ',';
      first = false;
      // As JSON.stringify: what cannot be written is null in an array.
      yield* jsonPieces(item === undefined || typeof item === 'function' ? null : item, '', depth - 1, false);
    }
    return yield ']';
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol');
  yield '{';
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i] as [string, unknown];
    yield `${i > 0 ? ',' : ''}${JSON.stringify(k)}:`;
    yield* jsonPieces(v, '', depth - 1, false);
  }
  yield '}';
}
