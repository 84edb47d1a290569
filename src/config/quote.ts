/**
 * Echoing outside input in a message: a value read from a file, a flag or a request can be
 * megabytes long or hold line breaks that would forge log lines, so every message quotes it
 * through here: JSON-style escapes for control characters and a bounded length.
 */

/** Longest part of an echoed value kept in a message, in characters. */
export const MAX_ECHO = 80;

/** `value` as a double-quoted, escaped string of at most `max` characters of input, cut with a count. */
export function quote(value: string, max: number = MAX_ECHO): string {
  const cut = value.length > max ? value.slice(0, max) : value;
  // JSON.stringify escapes quotes, backslashes and C0 controls; the rest is escaped below.
  const escaped = JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return value.length > max ? `${escaped}... (${value.length - max} more characters)` : escaped;
}

/** A single-line message: line breaks and other controls escaped (an error text from elsewhere), bounded. */
export function oneLine(text: string, max = 1000): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return escaped.length > max ? `${escaped.slice(0, max)}... (${escaped.length - max} more characters)` : escaped;
}
