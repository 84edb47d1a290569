/**
 * Safe SOQL building for `WHERE <field> IN (...)` reads. Values are escaped backslash first, then
 * quote (jsforce's escapeSOQLString escapes only the quote, so `\'` in a key would end the
 * literal). Lists are chunked by the length of the request URL, not by a count: a GET past about
 * 16 KB is refused whole (414).
 */

/** Salesforce's URL limit is 16,384 bytes; leave room for the instance URL and proxies. */
export const DEFAULT_MAX_URL_LENGTH = 16000;

const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;

export function assertIdentifier(name: string): string {
  if (!IDENT.test(name)) throw new Error(`not a Salesforce field or object name: ${JSON.stringify(name)}`);
  return name;
}

export function escapeSoqlString(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/\f/g, '\\f').replace(/\x08/g, '\\b');
}

export const soqlLiteral = (value: string): string => `'${escapeSoqlString(value)}'`;

interface InQuery {
  fields: string[];
  object: string;
  field: string;
  values: string[];
  /** Extra condition ANDed after the IN list, already safe (built here, not from input). */
  and?: string;
}

/**
 * URL-encodes a query fully: the WHATWG URL parser under node-fetch would encode `'` as %27 by
 * itself, so the length computed here is the length actually sent.
 */
export const encodeSoql = (soql: string): string => encodeURIComponent(soql).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Length of the query once it sits, URL-encoded, in `<prefix>?q=`. */
const encodedLength = (soql: string): number => encodeSoql(soql).length;

/**
 * Splits the IN list into as few queries as fit in `maxUrlLength` (prefix = the URL up to `?q=`).
 * Duplicates are dropped; one value too long for any query throws.
 */
export function buildInQueries(q: InQuery, urlPrefixLength: number, maxUrlLength = DEFAULT_MAX_URL_LENGTH): string[] {
  q.fields.forEach(assertIdentifier);
  assertIdentifier(q.object);
  assertIdentifier(q.field);
  const head = `SELECT ${q.fields.join(', ')} FROM ${q.object} WHERE ${q.field} IN (`;
  const tail = `)${q.and ? ` AND ${q.and}` : ''}`;
  const budget = maxUrlLength - urlPrefixLength - encodedLength(head) - encodedLength(tail);
  const out: string[] = [];
  let chunk: string[] = [];
  let used = 0;
  const sep = encodedLength(', ');
  for (const v of [...new Set(q.values)]) {
    const lit = soqlLiteral(v);
    const len = encodedLength(lit);
    if (len > budget) throw new Error(`a value is too long to query by: ${v.slice(0, 60)}`);
    const add = chunk.length ? len + sep : len;
    if (used + add > budget) {
      out.push(head + chunk.join(', ') + tail);
      chunk = [];
      used = 0;
    }
    used += chunk.length ? len + sep : len;
    chunk.push(lit);
  }
  if (chunk.length) out.push(head + chunk.join(', ') + tail);
  return out;
}
