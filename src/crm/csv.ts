/**
 * CSV for Bulk API 2.0, RFC 4180 with LF line endings. Every cell is quoted: Salesforce (and
 * jsforce's parser, which accepts several delimiters at once) then never splits a value on a
 * comma, pipe, semicolon, tab, caret or backquote inside it.
 */

/** Bulk CSV: an empty cell leaves a field unchanged, `#N/A` sets it to null. */
export const BULK_NULL = '#N/A';

export function csvCell(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

export function toCsv(header: string[], rows: string[][]): string {
  const lines = [header.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return lines.join('\n') + '\n';
}

/** Parses CSV with a header row into objects; quoted cells may hold commas, quotes and newlines. */
export function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else {
      cell += ch;
    }
    i++;
  }
  if (quoted) throw new Error('CSV ends inside a quoted cell');
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  const [header, ...body] = rows;
  if (!header) return [];
  return body
    .filter((r) => !(r.length === 1 && r[0] === ''))
    .map((r) => {
      if (r.length !== header.length) throw new Error(`CSV row has ${r.length} cells, header has ${header.length}`);
      // No prototype: a header named __proto__ or constructor is a column like any other.
      const out = Object.create(null) as Record<string, string>;
      header.forEach((h, idx) => (out[h] = r[idx] as string));
      return out;
    });
}
