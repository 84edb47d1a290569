/** Display helpers shared by the tables. */
import type { CrmValue } from '../../model/crmRecords.js';

const MAX_CELL = 60;

/** A count as every human output writes it: 8,979. */
export const formatCount = (v: number): string => v.toLocaleString('en-US');

/** Long values shortened for display, one line. */
export function shorten(value: CrmValue | undefined, max = MAX_CELL): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  const s = String(value).replace(/\s+/g, ' ');
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A line cut to the width, with an ellipsis: output never wraps on a narrow terminal. */
export function fit(line: string, columns: number): string {
  return line.length <= columns ? line : `${line.slice(0, Math.max(1, columns - 1))}…`;
}

/** The width to lay output out for: the terminal's, 80 when stdout is not a terminal. */
export function outputColumns(stream: NodeJS.WriteStream = process.stdout): number {
  return stream.isTTY && stream.columns > 0 ? stream.columns : 80;
}

/** Prose wrapped at word boundaries to the width (notices, a stop's reason): read whole, never cut. */
export function wrap(text: string, columns: number, indent = ''): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}
