/**
 * Normalisation and donor keys of the gift projection (PROJECTION.md §1.2, appendix N7, N8): pure
 * functions of the donation's text, so a donor's key is the same on every run and every machine.
 */
import { createHash } from 'node:crypto';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MAX_KEY = 255;

/** trim, one space inside, accents removed (NFKD without combining marks), lower case; blank -> null. */
export function fold(x: string | null | undefined): string | null {
  if (typeof x !== 'string') return null;
  const out = x.trim().replace(/\s+/g, ' ').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return out === '' ? null : out;
}

/** A trimmed text, or null when blank. */
export function clean(x: string | null | undefined): string | null {
  if (typeof x !== 'string') return null;
  const t = x.trim().replace(/\s+/g, ' ');
  return t === '' ? null : t;
}

/** A text of several lines (a street): each line cleaned, blank lines dropped, kept apart by "\n"; null when blank. */
export function cleanLines(x: string | null | undefined): string | null {
  if (typeof x !== 'string') return null;
  const lines = x.split(/\r\n|\r|\n/).flatMap((l) => clean(l) ?? []);
  return lines.length === 0 ? null : lines.join('\n');
}

/** `infix last` ("van Dijk") when an infix is given, else the last name; null when blank. */
export function fullLastName(infix: string | null | undefined, last: string | null | undefined): string | null {
  const l = clean(last);
  const i = clean(infix);
  if (l === null) return null;
  return i === null ? l : `${i} ${l}`;
}

/** trim + lower case; null unless it looks like an address (N7: absent everywhere otherwise). */
export function normEmail(x: string | null | undefined): string | null {
  if (typeof x !== 'string') return null;
  const e = x.trim().toLowerCase();
  return EMAIL.test(e) ? e : null;
}

const initialOf = (x: string): string | undefined => (/^\p{L}\.?$/u.test(x) ? x[0] : undefined);

/** N8: equal after fold, or one blank, or one an initial ("J" or "J.") equal to the other's first letter. */
export function firstNamesCompatible(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = fold(a);
  const y = fold(b);
  if (x === null || y === null || x === y) return true;
  const ix = initialOf(x);
  const iy = initialOf(y);
  return (ix !== undefined && y.startsWith(ix)) || (iy !== undefined && x.startsWith(iy));
}

/** A key longer than the field (255 UTF-16 units) becomes `H:` + the hex SHA-256 of the whole key. */
export function boundedKey(raw: string): string {
  return raw.length <= MAX_KEY ? raw : `H:${createHash('sha256').update(raw, 'utf8').digest('hex')}`;
}

/** `P:<email>:<fold(full last)>:<fold(first)>`; blank names give empty parts. */
export function personKey(email: string, last: string | null, first: string | null): string {
  return boundedKey(`P:${email}:${fold(last) ?? ''}:${fold(first) ?? ''}`);
}

/** `O:<company>:<email>`, else `O:<company>:<zipcode>:<house number>`; undefined without either. */
export function organisationKey(company: string, email: string | null, zipcode: string | null | undefined, house: string | null | undefined): string | undefined {
  const c = fold(company) ?? '';
  if (email !== null) return boundedKey(`O:${c}:${email}`);
  const z = fold(zipcode);
  const h = fold(house);
  return z !== null && h !== null ? boundedKey(`O:${c}:${z}:${h}`) : undefined;
}
