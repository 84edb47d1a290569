/**
 * Keeps secrets out of every message. A secret is masked wherever it appears whole: as given,
 * JSON-escaped (a --json document), URL-encoded, and line by line (a value with a line break
 * is cut by anything that prints the first line only). Values shorter than MIN_SECRET_LENGTH are
 * not masked: they are no secret worth the name (such keys are refused elsewhere) and would match
 * ordinary words ("wrong" inside "wrong_type"). The user name and password of any URL are masked too.
 */

/** Shorter values are not masked (see above). */
const MIN_SECRET_LENGTH = 8;

export interface Secret {
  /** The setting that holds it: the mask reads <NAME>. */
  name: string;
  value: string;
}

const WORD = /[A-Za-z0-9]/;
/** cli-table3's vertical rule: a line holding it is a table row whose columns must stay aligned. */
const TABLE_RULE = '│';
/** scheme://user:password@ in any URL of any message. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The forms in which a secret can show up in a message. */
function formsOf(value: string): string[] {
  const forms = new Set<string>([value, JSON.stringify(value).slice(1, -1)]);
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URL-encoded, so it cannot appear encoded either.
  }
  for (const fragment of value.split(/[\u0000-\u001f\u007f]+/)) forms.add(fragment.trim());
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** Matches a form only as a whole: not when it is the middle of a longer word. */
function patternOf(form: string): string {
  const before = WORD.test(form[0] ?? '') ? '(?<![A-Za-z0-9])' : '';
  const after = WORD.test(form[form.length - 1] ?? '') ? '(?![A-Za-z0-9])' : '';
  return `${before}${escapeRegExp(form)}${after}`;
}

/** In a table row the mask takes exactly the width of what it hides, so columns stay aligned. */
function maskOf(name: string, width: number, inTable: boolean): string {
  const mask = `<${name}>`;
  if (!inTable) return mask;
  return mask.length <= width ? mask.padEnd(width) : '*'.repeat(width);
}

/**
 * A masking function for a set of secrets, built once: --json output of a large run is masked
 * piece by piece, so the patterns must not be rebuilt per call.
 */
export function secretMasker(secrets: readonly Secret[]): (text: string) => string {
  const forms: Array<{ name: string; form: string }> = [];
  for (const s of secrets) for (const form of formsOf(s.value)) forms.push({ name: s.name, form });
  // Longest first, so a whole secret is masked before one of its own line fragments.
  forms.sort((a, b) => b.form.length - a.form.length);
  const nameOf = new Map(forms.map((f) => [f.form, f.name]));
  const multiLine = forms.filter((f) => f.form.includes('\n'));
  const pattern = forms.length === 0 ? undefined : new RegExp(forms.map((f) => patternOf(f.form)).join('|'), 'g');
  return (text) => {
    let out = text.replace(USERINFO, '$1<credentials>@');
    if (pattern === undefined) return out;
    // A secret with a line break spans lines of the text: masked whole first, before the per-line pass.
    for (const { name, form } of multiLine) out = out.split(form).join(`<${name}>`);
    return out
      .split('\n')
      .map((line) => line.replace(pattern, (found) => maskOf(nameOf.get(found) ?? 'secret', found.length, line.includes(TABLE_RULE))))
      .join('\n');
  };
}
