/**
 * Keeps secrets out of every message. A secret is masked wherever it appears whole: as given,
 * JSON-escaped (a --json document), URL-encoded, and line by line (a value with a line break
 * is cut by anything that prints the first line only). Values shorter than MIN_SECRET_LENGTH are
 * not masked: they are no secret worth the name (such keys are refused elsewhere) and would match
 * ordinary words ("wrong" inside "wrong_type"). The user name and password of any URL are masked too,
 * and so are the forms a secret takes on the wire: base64 (a `Basic` header an upstream echoes),
 * and whatever follows `Basic` or `Bearer` when it looks like a credential (a token this process
 * obtained itself, such as an OAuth session, is no configured secret but is one all the same).
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
/** An Authorization value: `Basic <base64>` or `Bearer <token>`. */
const WIRE_CREDENTIAL = /\b(Basic|Bearer)( +)([A-Za-z0-9+/._~!-]{8,}=*)/g;
/** A credential has a digit or a base64 or session-id sign in it; "Basic authentication." is prose. */
const TOKEN_LIKE = /[0-9+/=!]/;

/** Base64, padded and not: how a secret travels in a `Basic` header (alone or as user:password). */
function base64Forms(value: string): string[] {
  const forms: string[] = [];
  for (const v of [value, `${value}:`, `:${value}`]) {
    const b64 = Buffer.from(v, 'utf8').toString('base64');
    forms.push(b64, b64.replace(/=+$/, ''));
  }
  return forms;
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
  // Only of a value long enough to be masked itself: the base64 of "wrong" is no secret either.
  if (value.length >= MIN_SECRET_LENGTH) for (const b64 of base64Forms(value)) forms.add(b64);
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** Whether the form found at [start, end) stands whole: not the middle of a longer word. */
function standsWhole(line: string, start: number, end: number): boolean {
  const edge = (inner: string | undefined, outer: string | undefined): boolean => !(WORD.test(inner ?? '') && WORD.test(outer ?? ''));
  return edge(line[start], line[start - 1]) && edge(line[end - 1], line[end]);
}

interface Found {
  start: number;
  end: number;
  name: string;
}

/**
 * Where the forms stand whole in a line, by plain string search: a pattern built from secret text
 * fails on a long secret ("regular expression too large") and its error quotes the secret. Longest
 * first, so a whole secret wins over one of its own line fragments; a place is masked once.
 */
function findForms(line: string, forms: ReadonlyArray<{ name: string; form: string }>): Found[] {
  const found: Found[] = [];
  for (const { name, form } of forms) {
    for (let at = line.indexOf(form); at !== -1; at = line.indexOf(form, at + 1)) {
      const end = at + form.length;
      if (!standsWhole(line, at, end) || found.some((f) => at < f.end && end > f.start)) continue;
      found.push({ start: at, end, name });
      at = end - 1;
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** In a table row the mask takes exactly the width of what it hides, so columns stay aligned. */
function maskOf(name: string, width: number, inTable: boolean): string {
  const mask = `<${name}>`;
  if (!inTable) return mask;
  return mask.length <= width ? mask.padEnd(width) : '*'.repeat(width);
}

/** Every form of every secret masked in one line of text. */
function maskLine(line: string, forms: ReadonlyArray<{ name: string; form: string }>): string {
  const found = findForms(line, forms);
  if (found.length === 0) return line;
  const inTable = line.includes(TABLE_RULE);
  let out = '';
  let from = 0;
  for (const f of found) {
    out += line.slice(from, f.start) + maskOf(f.name, f.end - f.start, inTable);
    from = f.end;
  }
  return out + line.slice(from);
}

/**
 * A masking function for a set of secrets, built once: --json output of a large run is masked
 * piece by piece, so the forms must not be worked out again per call.
 */
export function secretMasker(secrets: readonly Secret[]): (text: string) => string {
  const forms: Array<{ name: string; form: string }> = [];
  for (const s of secrets) for (const form of formsOf(s.value)) forms.push({ name: s.name, form });
  // Longest first, so a whole secret is masked before one of its own line fragments.
  forms.sort((a, b) => b.form.length - a.form.length);
  const multiLine = forms.filter((f) => f.form.includes('\n'));
  // Last, so a configured secret keeps its name: `Bearer <SF_ACCESS_TOKEN>`, not `Bearer <credentials>`.
  const wire = (text: string): string => text.replace(WIRE_CREDENTIAL, (whole, scheme: string, gap: string, token: string) => (TOKEN_LIKE.test(token) ? `${scheme}${gap}<credentials>` : whole));
  return (text) => {
    let out = text.replace(USERINFO, '$1<credentials>@');
    if (forms.length === 0) return wire(out);
    // A secret with a line break spans lines of the text: masked whole first, before the per-line pass.
    for (const { name, form } of multiLine) out = out.split(form).join(`<${name}>`);
    return wire(
      out
        .split('\n')
        .map((line) => maskLine(line, forms))
        .join('\n'),
    );
  };
}
