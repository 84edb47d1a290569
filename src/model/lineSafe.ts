/**
 * Outside text (a platform value, a Salesforce message) on a line a person reads: a line break
 * in it must not start a line of its own (a forged "svc-sync: exit 0" log line), and a cut must
 * never leave part of a secret the masker can then no longer recognise.
 */

/** Shorter words are cut as they are: no secret worth the name is this short (see config/redact.ts). */
const WHOLE_WORD = 8;

const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': ' ' };

/**
 * Line breaks shown as \n and \r, a tab as a space, every other control character (C0, C1,
 * U+2028/2029: line breaks to some readers) as \uXXXX: the text stays on its line.
 */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * At most `max` characters of a text, then "…". A word of WHOLE_WORD or more characters that the
 * cut would split is left out whole: what is kept of a cut secret (or its base64) is no longer
 * the secret, so no masker could hide it.
 */
export function cutWhole(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = Math.max(0, max);
  let start = at;
  while (start > 0 && !/\s/.test(text[start - 1] ?? '')) start--;
  let end = at;
  while (end < text.length && !/\s/.test(text[end] ?? '')) end++;
  if (start < at && end - start >= WHOLE_WORD) at = start;
  return `${text.slice(0, at)}…`;
}
