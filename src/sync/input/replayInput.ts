/**
 * Replay input: a CSV of object_type,object_id (header optional, extra columns such as
 * event_type ignored) or JSON lines of webhook bodies, read as a stream and handed out in chunks
 * of refs, so memory does not grow with the file. A record that starts with `{` is a webhook
 * body (JSON); any other is CSV, read by csv-parse (quoted fields may hold commas, quotes and
 * line breaks). A file whose first record is JSON is JSON lines throughout: every line of it is
 * read by serve's own parser and classifier (webhookMessage, webhookEvents), so an event serve
 * records as ignored is ignored here too, and users.update names a user whose actions are
 * resolved after the read. Bad lines are reported by number and skipped; the rest still runs.
 * A line longer than the limit (a binary file, /dev/zero) stops the read with one clear error.
 */
import type * as CsvParse from 'csv-parse';
import type { CsvError } from 'csv-parse';
import { lazyModule } from '../../model/lazyModule.js';
import type { Readable } from 'node:stream';
import { echo } from '../../config/echo.js';
import { ConfigError } from '../../model/errors.js';
import { OBJECT_TYPES, parseObjectType, type ObjectRef } from '../../model/objects.js';
import { parsePositiveId } from '../../model/refs.js';
import { classifyEvent } from './webhookEvents.js';
import { messageFromFields } from './webhookMessage.js';

/** Loaded when a replay file is read, not at start. */
const csvParse = lazyModule<typeof CsvParse>('csv-parse');

/** No record of a replay file comes near this; binary or runaway input does. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Bad lines listed one by one; past this only counted, so a file of garbage stays a short report. */
export const MAX_LISTED_BAD_LINES = 100;

export interface BadLine {
  line: number;
  reason: string;
}

/** Events serve records as ignored, grouped by reason: a count and the first lines. */
export interface IgnoredGroup {
  reason: string;
  count: number;
  /** The first MAX_IGNORED_EXAMPLES line numbers. */
  lines: number[];
}
const MAX_IGNORED_EXAMPLES = 5;

/** What the read found, besides the refs; complete once the chunks are exhausted. */
export interface ReplayStats {
  ignored: IgnoredGroup[];
  /** Users named by users.update lines: their actions are synced once the file is read. */
  ownerUsers: Set<number>;
  /** Lines that named a record (duplicates included). */
  lines: number;
  /** The first MAX_LISTED_BAD_LINES bad lines. */
  badLines: BadLine[];
  badLineCount: number;
}

interface ReplayChunks {
  chunks: AsyncIterable<ObjectRef[]>;
  stats: ReplayStats;
}

type Fields = { type?: unknown; id?: unknown };
/** What a line asks for: a ref, an event serve ignores, a user's actions, or the reason it is bad. */
type Wanted = ObjectRef | { ignored: string } | { owner: number } | string;
type Candidate = { line: number; ref: Wanted };

/** A JSON line as serve reads a webhook body: the same parser, the same classifier. */
function fromJson(line: string): Wanted {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return `not valid JSON: ${echo(line)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'not a JSON object';
  const fields: Record<string, unknown> = {};
  // Own keys only: a "__proto__" key is not a field.
  for (const key of ['object_type', 'object_id', 'event_type', 'application', 'site_id']) if (Object.hasOwn(body, key)) fields[key] = (body as Record<string, unknown>)[key];
  const parsed = messageFromFields(fields);
  if (!parsed.ok) return parsed.reason;
  const intent = classifyEvent(parsed.message);
  if (intent.kind === 'sync') return intent.ref;
  if (intent.kind === 'owner') return { owner: intent.userId };
  return { ignored: intent.reason };
}

/** A candidate to a ref, or the reason it is not one (input quoted cut and escaped). */
function toRef(c: Fields): ObjectRef | string {
  const parsed = typeof c.type === 'string' ? parseObjectType(c.type) : undefined;
  // Only a real type name: a lookup of "constructor" or "__proto__" must not come back as a ref.
  const type = typeof parsed === 'string' && (OBJECT_TYPES as readonly string[]).includes(parsed) ? parsed : undefined;
  if (!type) return `unknown object type ${echo(c.type ?? '')}`;
  const id = parsePositiveId(c.id);
  if (id === undefined) return `object id ${echo(c.id ?? '')} is not a positive whole number`;
  return { type, id };
}

const tooLong = (where: string, line: number): ConfigError =>
  new ConfigError(`${where}: line ${line} is longer than ${MAX_LINE_BYTES / 1024} KiB: not a replay file (CSV object_type,object_id or JSON lines), or a binary one`);

/** Lines of a stream, each at most MAX_LINE_BYTES; `\r\n` and `\n` end a line. */
async function* linesOf(input: AsyncIterable<Buffer>, where: string): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 0;
  for await (const chunk of input) {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      if (pendingBytes + part.length > MAX_LINE_BYTES) throw tooLong(where, lineNo + 1);
      pending.push(part);
      lineNo++;
      yield Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    pendingBytes += rest.length;
    if (pendingBytes > MAX_LINE_BYTES) throw tooLong(where, lineNo + 1);
    if (rest.length > 0) pending.push(Buffer.from(rest));
  }
  if (pendingBytes > 0) yield Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
}

interface CsvRow {
  record: string[];
  info: { lines: number };
  raw: string;
}

/** The CSV parser replay reads with: comments, blank lines and bad records skipped, records bounded. */
function csvParser(): ReturnType<typeof CsvParse.parse> {
  return csvParse().parse({
    comment: '#',
    comment_no_infix: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_records_with_error: true,
    // A quoted field may span lines: the record as a whole is bounded too.
    max_record_size: MAX_LINE_BYTES,
    info: true,
    raw: true,
  });
}

/** What a fatal line (too long, unreadable input) leaves for the reader to throw. */
interface Fatal {
  error?: Error;
}

/**
 * Feeds the input to the parser line by line. Quote parity tells whether a line starts a record or
 * continues a quoted field; a record that starts with `{` is a webhook body (JSON lines, or one
 * mixed into a CSV file): it goes to `json` with its line number, and the parser gets an empty
 * line in its place to keep its line count.
 */
async function feed(input: Readable, where: string, parser: ReturnType<typeof CsvParse.parse>, json: Candidate[], fatal: Fatal): Promise<void> {
  const write = async (text: string): Promise<void> => {
    if (parser.write(text)) return;
    // Wait for room, or for the parser's end: destroyed (a fatal line) it never drains.
    await new Promise<void>((resolve) => {
      const done = (): void => {
        parser.off('drain', done);
        parser.off('close', done);
        resolve();
      };
      parser.once('drain', done);
      parser.once('close', done);
    });
  };
  try {
    let quoted = false;
    let lineNo = 0;
    // Decided by the first record: JSON lines throughout, or CSV (JSON bodies may be mixed in).
    let jsonFile: boolean | undefined;
    for await (const raw of linesOf(input as AsyncIterable<Buffer>, where)) {
      if (parser.destroyed) return;
      lineNo++;
      const line = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      const text = line.trim();
      if (!quoted && jsonFile === undefined && text !== '' && !text.startsWith('#')) jsonFile = text.startsWith('{');
      if (!quoted && (text.startsWith('{') || (jsonFile === true && text !== ''))) {
        json.push({ line: lineNo, ref: fromJson(text) });
        await write('\n');
        continue;
      }
      if ((line.match(/"/g)?.length ?? 0) % 2 === 1) quoted = !quoted;
      await write(`${line}\n`);
    }
    parser.end();
  } catch (error) {
    fatal.error ??= error as Error;
    parser.destroy(fatal.error);
  }
}

/** Every line's candidate ref (or why it is bad), in line order: parsed CSV records merged with JSON lines and skipped records. */
async function* candidatesOf(input: Readable, where: string): AsyncGenerator<Candidate> {
  // Lines outside the CSV parser's view, each queue in line order: JSON lines (diverted before
  // the parser) and records the parser skipped. Merged with the parsed records by line number.
  const json: Candidate[] = [];
  const skipped: Candidate[] = [];
  const next = (upTo: number): Candidate | undefined => {
    const a = json[0];
    const b = skipped[0];
    const first = a !== undefined && (b === undefined || a.line <= b.line) ? json : skipped;
    const head = first[0];
    return head !== undefined && head.line < upTo ? first.shift() : undefined;
  };
  const fatal: Fatal = {};
  const parser = csvParser();
  parser.on('skip', (error: CsvError) => {
    const line = typeof error.lines === 'number' ? error.lines : 0;
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      // Skipping would read on forever: stop with one clear line.
      fatal.error = tooLong(where, line);
      parser.destroy(fatal.error);
      return;
    }
    skipped.push({ line, ref: `not valid CSV (${error.message.split(':')[0]?.toLowerCase() ?? 'parse error'})` });
  });
  const feeding = feed(input, where, parser, json, fatal);
  let columns = { type: 0, id: 1 };
  try {
    for await (const row of parser as AsyncIterable<CsvRow>) {
      // The line a record starts on: a quoted field may span several, and raw carries the blank
      // and comment lines before the record too.
      const own = row.raw.replace(/^(?:[ \t]*(?:#[^\n]*)?\r?\n)*/, '').replace(/\s+$/, '');
      const line = row.info.lines - (own.match(/\n/g)?.length ?? 0);
      for (let c = next(line); c !== undefined; c = next(line)) yield c;
      const cells = row.record;
      const lower = cells.map((c) => c.toLowerCase());
      if (lower.includes('object_type') && lower.includes('object_id')) {
        columns = { type: lower.indexOf('object_type'), id: lower.indexOf('object_id') };
        continue; // a header row, wherever the columns stand
      }
      yield { line, ref: toRef({ type: cells[columns.type], id: cells[columns.id] }) };
    }
  } catch (error) {
    throw fatal.error ?? error;
  } finally {
    await feeding;
  }
  if (fatal.error) throw fatal.error;
  for (let c = next(Infinity); c !== undefined; c = next(Infinity)) yield c;
}

/**
 * Reads `input` (a file's or stdin's bytes) and yields its distinct refs in chunks of at most
 * `chunkSize`. Duplicates inside a chunk are dropped here; the caller skips refs an earlier chunk
 * already synced. `where` names the input in errors ("--file ids.csv").
 */
export function readReplay(input: Readable, where: string, chunkSize: number): ReplayChunks {
  const stats: ReplayStats = { ignored: [], ownerUsers: new Set(), lines: 0, badLines: [], badLineCount: 0 };
  const ignore = (line: number, reason: string): void => {
    let group = stats.ignored.find((g) => g.reason === reason);
    if (!group) stats.ignored.push((group = { reason, count: 0, lines: [] }));
    group.count++;
    if (group.lines.length < MAX_IGNORED_EXAMPLES) group.lines.push(line);
  };
  const bad = (line: number, reason: string): void => {
    stats.badLineCount++;
    if (stats.badLines.length < MAX_LISTED_BAD_LINES) stats.badLines.push({ line, reason });
  };

  async function* chunks(): AsyncGenerator<ObjectRef[]> {
    let chunk: ObjectRef[] = [];
    let seen = new Set<string>();
    for await (const { line, ref } of candidatesOf(input, where)) {
      if (typeof ref === 'string') {
        bad(line, ref);
        continue;
      }
      if ('ignored' in ref) {
        ignore(line, ref.ignored);
        continue;
      }
      if ('owner' in ref) {
        stats.ownerUsers.add(ref.owner);
        continue;
      }
      stats.lines++;
      const key = `${ref.type}:${ref.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      chunk.push(ref);
      if (chunk.length >= chunkSize) {
        yield chunk;
        chunk = [];
        seen = new Set();
      }
    }
    if (chunk.length > 0) yield chunk;
  }

  return { chunks: chunks(), stats };
}
