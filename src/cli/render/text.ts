/** Display helpers shared by the tables. */
import type { CrmValue } from '../../model/crmRecords.js';
import { cutWhole, escapeControls } from '../../model/lineSafe.js';

const MAX_CELL = 60;

/** A count as every human output writes it: 8,979. */
export const formatCount = (v: number): string => v.toLocaleString('en-US');

/**
 * Long values shortened for display, one line. A record's value is cut where it falls (a long URL
 * keeps its start); messages are cut by oneLine and fit, which never keep part of a long word.
 */
export function shorten(value: CrmValue | undefined, max = MAX_CELL): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  const s = escapeControls(String(value)).replace(/\s+/g, ' ');
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A message (outside text, maybe a secret) on one line of at most `max`: a long word at the cut is left out whole. */
export function shortMessage(text: string, max: number): string {
  const s = escapeControls(text).replace(/\s+/g, ' ');
  return s.length <= max ? s : cutWhole(s, max - 1);
}

/** A line cut to the width, with an ellipsis: output never wraps on a narrow terminal. */
export function fit(line: string, columns: number): string {
  return line.length <= columns ? line : cutWhole(line, Math.max(1, columns - 1));
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

/**
 * The width to wrap messages on stderr at, only when a person reads it on a terminal: COLUMNS
 * when set, else the terminal's. Undefined for a file, a pipe, cron's mail or journald: there a
 * record stays one line, so grep finds it whole and a log stores it as one entry.
 */
export function messageColumns(stream: NodeJS.WriteStream = process.stderr): number | undefined {
  if (stream.isTTY !== true) return undefined;
  const given = Number(process.env.COLUMNS);
  if (Number.isInteger(given) && given >= 40) return given;
  return stream.columns > 0 ? stream.columns : 80;
}

/** A URL or a path: never cut, and on a line of its own when its line must wrap, so it can be copied. */
const isLink = (word: string): boolean => /^[("'<]?([a-z][a-z0-9+.-]*:\/\/|\.{0,2}\/|~\/)\S/i.test(word);

/**
 * The words of a line, but `next: <command>` (to the end of the line) is one: the command a
 * message names is copied whole, never split across lines.
 */
function wordsOf(text: string): string[] {
  const words = text.split(' ');
  const next = words.indexOf('next:');
  return next < 0 ? words : [...words.slice(0, next), words.slice(next).join(' ')];
}

/**
 * One line of a message wrapped at word boundaries to `columns`: continuation lines keep the
 * line's own indent plus two spaces. A line that fits is returned as it is; a word longer than
 * the width (a long URL, a `next:` command) stands alone rather than being cut.
 */
export function wrapLine(line: string, columns: number): string[] {
  if ([...line].length <= columns) return [line];
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  const hang = `${indent}  `;
  const lines: string[] = [];
  let current = '';
  const push = (): void => {
    if (current.trim() !== '') lines.push(current);
    current = '';
  };
  for (const word of wordsOf(line.slice(indent.length))) {
    const lead = lines.length === 0 && current === '' ? indent : hang;
    if (isLink(word) && word.length > 12) {
      push();
      lines.push(`${lines.length === 0 ? indent : hang}${word}`);
      continue;
    }
    if (current === '') current = lead + word;
    else if ([...current].length + 1 + [...word].length <= columns) current += ` ${word}`;
    else {
      push();
      current = hang + word;
    }
  }
  push();
  return lines;
}

/** Every line of a text wrapped (wrapLine): what a person reads on stderr fits the width. */
export function wrapLines(text: string, columns: number): string[] {
  return text.split('\n').flatMap((l) => wrapLine(l, columns));
}
