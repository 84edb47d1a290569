/**
 * CSV for Bulk API 2.0, RFC 4180 with LF line endings. Every cell is quoted: Salesforce (and
 * jsforce's parser, which accepts several delimiters at once) then never splits a value on a
 * comma, pipe, semicolon, tab, caret or backquote inside it.
 */

/** Bulk CSV: an empty cell leaves a field unchanged, `#N/A` sets it to null. */
export const BULK_NULL = '#N/A';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

function csvCell(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

export function toCsv(header: string[], rows: Iterable<string[]>): string {
  const lines = [header.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return lines.join('\n') + '\n';
}

/**
 * The same CSV as bytes, in one buffer of its exact size: `rows` is walked twice, once to measure
 * and once to write. A job's body is then held once, not as row strings, a joined string and the
 * request's UTF-8 copy of it.
 */
export function toCsvBytes(header: string[], rows: () => Iterable<string[]>): Buffer {
  const cellBytes = (v: string): number => {
    let quotes = 0;
    for (let q = v.indexOf('"'); q !== -1; q = v.indexOf('"', q + 1)) quotes++;
    return Buffer.byteLength(v) + quotes + 2;
  };
  // Each row: its cells, a comma between two, a line feed.
  const rowBytes = (cells: string[]): number => cells.reduce((n, v) => n + cellBytes(v), 0) + Math.max(1, cells.length);
  let size = rowBytes(header);
  for (const row of rows()) size += rowBytes(row);
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  const put = (cells: string[]): void => {
    cells.forEach((v, c) => {
      if (c > 0) at = buf.writeUInt8(COMMA, at);
      at = buf.writeUInt8(QUOTE, at);
      at += buf.write(v.includes('"') ? v.replace(/"/g, '""') : v, at);
      at = buf.writeUInt8(QUOTE, at);
    });
    at = buf.writeUInt8(LF, at);
  };
  put(header);
  for (const row of rows()) put(row);
  if (at !== size) throw new Error(`CSV measured ${size} bytes, wrote ${at}`);
  return buf;
}

/** How a cell's bytes become its value. */
const enum Form {
  /** Taken as is. */
  Plain,
  /** The bytes between the quotes, no quote inside. */
  Quoted,
  /** Between the quotes, with "" standing for ". */
  Escaped,
  /** Quoted and unquoted runs in one cell (a"b"c): the general rule. */
  Mixed,
}

interface ParseCsvOptions {
  /** Keep only these columns (others are never decoded); all columns when absent. */
  columns?: readonly string[];
}

/**
 * Parses CSV with a header row into objects; quoted cells may hold commas, quotes and newlines.
 * Works on the bytes: every value is decoded once, as a string of its own, so a 5,000-row result
 * set costs its rows and not a rope per character, and no value keeps the whole text alive.
 */
export function parseCsv(input: string | Buffer, opts: ParseCsvOptions = {}): Array<Record<string, string>> {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const out: Array<Record<string, string>> = [];
  let header: string[] | undefined;
  /** Per kept column: its index in a row and its name. */
  let kept: Array<[number, string]> = [];
  // Per row, [start, end, form] for each cell, reused.
  const spans: number[] = [];
  let i = 0;
  const n = buf.length;
  while (i < n) {
    spans.length = 0;
    // One row: cells up to an unquoted line break or the end of the text.
    for (;;) {
      const start = i;
      let form = Form.Plain;
      let end: number;
      if (buf[i] === QUOTE) {
        let close = buf.indexOf(QUOTE, i + 1);
        form = Form.Quoted;
        while (close !== -1 && buf[close + 1] === QUOTE) {
          form = Form.Escaped;
          close = buf.indexOf(QUOTE, close + 2);
        }
        if (close === -1) throw new Error('CSV ends inside a quoted cell');
        i = close + 1;
        end = close;
        if (i < n && buf[i] !== COMMA && buf[i] !== LF && buf[i] !== CR) {
          form = Form.Mixed;
          i = scanMixed(buf, i);
          end = i;
        }
      } else {
        while (i < n && buf[i] !== COMMA && buf[i] !== LF && buf[i] !== CR && buf[i] !== QUOTE) i++;
        if (i < n && buf[i] === QUOTE) {
          form = Form.Mixed;
          i = scanMixed(buf, i);
        }
        end = i;
      }
      spans.push(form === Form.Quoted || form === Form.Escaped ? start + 1 : start, end, form);
      if (i < n && buf[i] === COMMA) {
        i++;
        continue;
      }
      if (i < n && buf[i] === CR && buf[i + 1] === LF) i++;
      if (i < n) i++; // the line break
      break;
    }
    const cells = spans.length / 3;
    if (!header) {
      header = [];
      for (let c = 0; c < cells; c++) header.push(decode(buf, spans, c));
      kept = header.map((name, c) => [c, name] as [number, string]).filter(([, name]) => !opts.columns || opts.columns.includes(name));
      continue;
    }
    // A blank line is no row.
    if (cells === 1 && spans[0] === spans[1]) continue;
    if (cells !== header.length) throw new Error(`CSV row has ${cells} cells, header has ${header.length}`);
    // No prototype: a header named __proto__ or constructor is a column like any other.
    const row = Object.create(null) as Record<string, string>;
    for (const [c, name] of kept) row[name] = decode(buf, spans, c);
    out.push(row);
  }
  return out;
}

/** From inside a cell that mixes quoted and unquoted runs: the offset of its end (an unquoted comma or line break). */
function scanMixed(buf: Buffer, from: number): number {
  let quoted = false;
  let i = from;
  for (; i < buf.length; i++) {
    const b = buf[i];
    if (b === QUOTE) quoted = !quoted;
    else if (!quoted && (b === COMMA || b === LF || b === CR)) break;
  }
  if (quoted) throw new Error('CSV ends inside a quoted cell');
  return i;
}

function decode(buf: Buffer, spans: number[], cell: number): string {
  const start = spans[cell * 3] as number;
  const end = spans[cell * 3 + 1] as number;
  const form = spans[cell * 3 + 2] as Form;
  const raw = buf.toString('utf8', start, end);
  if (form === Form.Plain || form === Form.Quoted) return raw;
  if (form === Form.Escaped) return raw.replace(/""/g, '"');
  // Mixed: a quote toggles quoting, and "" inside quotes is one quote.
  let value = '';
  let quoted = false;
  for (let k = 0; k < raw.length; k++) {
    const ch = raw[k];
    if (ch !== '"') value += ch;
    else if (quoted && raw[k + 1] === '"') {
      value += '"';
      k++;
    } else quoted = !quoted;
  }
  return value;
}
