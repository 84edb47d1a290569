/**
 * Outside input quoted back in a message (an error line, a 400 body, a log line) is cut and
 * escaped: a 50 MB id must not become a 50 MB line, and a raw newline must not let a sender forge
 * a second log line.
 */
import { cutWhole, escapeControls } from '../model/lineSafe.js';

const DEFAULT_ECHO_CHARS = 60;

/**
 * A JSON-style quoted, single-line rendering of `value`, at most `max` characters of it: control
 * characters, line and paragraph separators and quotes are escaped, and a longer value ends in
 * "…" with its full length, so the reader knows it was cut.
 */
export function echo(value: unknown, max: number = DEFAULT_ECHO_CHARS): string {
  const text = typeof value === 'string' ? value : value === undefined ? '' : String(value);
  const cut = text.length > max ? text.slice(0, max) : text;
  // JSON.stringify escapes quotes, backslashes and C0 controls; U+2028/2029 and C1 controls are
  // line breaks to some readers, so they are escaped too.
  const quoted = JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length > max ? `${quoted.slice(0, -1)}…" (${text.length} characters)` : quoted;
}

/**
 * A message that may hold outside text, as one line of at most `max` characters (line breaks
 * shown as \n). A long word the cut would split is left out whole: a secret in it never shows in part.
 */
export function oneLine(message: string, max = 300): string {
  return cutWhole(escapeControls(message), max);
}
