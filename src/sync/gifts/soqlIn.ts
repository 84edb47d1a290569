/**
 * `WHERE <field> IN (...)` reads for the gift projection, split only when the request URL would
 * pass Salesforce's limit (a GET past about 16 KB is refused whole), as the mirror's reads split.
 * Values are escaped backslash first, then quote, so a key cannot end its literal.
 */
import type { CrmRecord } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';
import { giftValueFromOrg, giftValueToOrg, isGiftKeyField } from '../../model/giftSiteKeys.js';

/** Salesforce's URL limit is 16,384 bytes; the rest leaves room for the instance URL and path. */
const MAX_QUERY_LENGTH = 16000 - 400;
const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f', '\b': '\\b' };

const soqlLiteral = (value: string): string => `'${value.replace(/[\\'"\n\r\t\f\b]/g, (c) => ESCAPES[c] as string)}'`;

/** The length a query has once URL-encoded as the client sends it. */
const encodedLength = (soql: string): number => encodeURIComponent(soql).replace(/[!'()*]/g, '%XX').length;

interface InQuery {
  fields: readonly string[];
  object: string;
  field: string;
  values: readonly string[];
  /** A condition ANDed after the list, built here (never from input). */
  and?: string | undefined;
}

/** `values` of `field` as the org holds them (SVC_SITE_KEYS: keys qualified, giftSiteKeys.ts). */
function toOrg(sink: GiftSink, field: string, values: readonly string[]): string[] {
  const site = sink.siteKeys;
  return site === undefined || !isGiftKeyField(field) ? [...values] : values.map((v) => giftValueToOrg(site, field, v));
}

/** Rows with their keys as the projection knows them: this site's prefix taken off. */
function fromOrg(sink: GiftSink, rows: CrmRecord[]): CrmRecord[] {
  const site = sink.siteKeys;
  if (site === undefined) return rows;
  return rows.map((row) => {
    const out: CrmRecord = { ...row };
    for (const [f, v] of Object.entries(out)) if (typeof v === 'string' && isGiftKeyField(f)) out[f] = giftValueFromOrg(site, f, v);
    return out;
  });
}

function assertIdentifier(name: string): void {
  if (!IDENT.test(name)) throw new Error(`not a Salesforce field or object name: ${JSON.stringify(name)}`);
}

/** The values as SOQL literals in lists that each fit `budget` (URL-encoded, with their separators). */
function literalLists(values: readonly string[], budget: number): string[] {
  const sep = encodedLength(', ');
  const out: string[] = [];
  let chunk: string[] = [];
  let used = 0;
  for (const v of new Set(values)) {
    const lit = soqlLiteral(v);
    const len = encodedLength(lit);
    if (len > budget) throw new Error(`a value is too long to query by: ${v.slice(0, 60)}`);
    if (chunk.length > 0 && used + sep + len > budget) {
      out.push(chunk.join(', '));
      chunk = [];
      used = 0;
    }
    used += chunk.length > 0 ? sep + len : len;
    chunk.push(lit);
  }
  if (chunk.length > 0) out.push(chunk.join(', '));
  return out;
}

/** As few queries as fit the URL limit; duplicates dropped; none for an empty list. */
function inQueries(q: InQuery, maxLength = MAX_QUERY_LENGTH): string[] {
  [...q.fields, q.object, q.field].forEach(assertIdentifier);
  const head = `SELECT ${q.fields.join(', ')} FROM ${q.object} WHERE ${q.field} IN (`;
  const tail = `)${q.and ? ` AND ${q.and}` : ''}`;
  return literalLists(q.values, maxLength - encodedLength(head) - encodedLength(tail)).map((list) => head + list + tail);
}

/**
 * Rows where any of `anyOf` is one of `values` (NPSP's four email fields, P5): one query
 * `WHERE a IN (...) OR b IN (...) ...` per list that fits the URL limit once per field.
 */
export async function queryInAny(sink: GiftSink, q: { fields: readonly string[]; object: string; anyOf: readonly string[]; values: readonly string[] }): Promise<CrmRecord[]> {
  [...q.fields, q.object, ...q.anyOf].forEach(assertIdentifier);
  const head = `SELECT ${q.fields.join(', ')} FROM ${q.object} WHERE `;
  const frame = q.anyOf.reduce((n, f) => n + encodedLength(` OR ${f} IN ()`), 0);
  const rows: CrmRecord[] = [];
  for (const list of literalLists(q.values, Math.floor((MAX_QUERY_LENGTH - encodedLength(head) - frame) / Math.max(1, q.anyOf.length)))) {
    rows.push(...(await sink.query(head + q.anyOf.map((f) => `${f} IN (${list})`).join(' OR '))));
  }
  return fromOrg(sink, rows);
}

/** One list of a packed read: rows where any of `anyOf` is one of `values`. */
interface PackedList {
  anyOf: readonly string[];
  values: readonly string[];
}

/**
 * Rows matching any of several lists, packed into as few queries as fit the URL limit, each query
 * `WHERE a IN (...) OR b IN (...) ...` over the lists' values in order: a list's tail shares its
 * query with the next list's head instead of making a short query of its own.
 */
export async function queryPacked(sink: GiftSink, q: { fields: readonly string[]; object: string; lists: readonly PackedList[] }, withDeleted = false): Promise<CrmRecord[]> {
  [...q.fields, q.object, ...q.lists.flatMap((l) => l.anyOf)].forEach(assertIdentifier);
  const head = `SELECT ${q.fields.join(', ')} FROM ${q.object} WHERE `;
  const sep = encodedLength(', ');
  const rows: CrmRecord[] = [];
  let parts: Array<{ anyOf: readonly string[]; lits: string[] }> = [];
  let used = encodedLength(head);
  const flush = async (): Promise<void> => {
    if (parts.length === 0) return;
    const where = parts.flatMap((p) => p.anyOf.map((f) => `${f} IN (${p.lits.join(', ')})`)).join(' OR ');
    [parts, used] = [[], encodedLength(head)];
    rows.push(...(await sink.query(head + where, withDeleted)));
  };
  for (const list of q.lists) {
    if (list.anyOf.length === 0) continue;
    const frame = list.anyOf.reduce((n, f) => n + encodedLength(` OR ${f} IN ()`), 0);
    const values = list.anyOf.length === 1 ? toOrg(sink, list.anyOf[0] as string, list.values) : list.values;
    let part: { anyOf: readonly string[]; lits: string[] } | undefined;
    for (const v of new Set(values)) {
      const lit = soqlLiteral(v);
      const len = encodedLength(lit) * list.anyOf.length;
      if (encodedLength(head) + frame + len > MAX_QUERY_LENGTH) throw new Error(`a value is too long to query by: ${v.slice(0, 60)}`);
      if (used + (part === undefined ? frame + len : len + sep * list.anyOf.length) > MAX_QUERY_LENGTH) {
        await flush();
        part = undefined;
      }
      if (part === undefined) {
        part = { anyOf: list.anyOf, lits: [] };
        parts.push(part);
        used += frame;
      }
      used += part.lits.length > 0 ? len + sep * list.anyOf.length : len;
      part.lits.push(lit);
    }
  }
  await flush();
  return fromOrg(sink, rows);
}

/** Every row of the split queries, one after the other (`withDeleted`: queryAll). */
export async function queryIn(sink: GiftSink, q: InQuery, withDeleted = false): Promise<CrmRecord[]> {
  const rows: CrmRecord[] = [];
  for (const soql of inQueries({ ...q, values: toOrg(sink, q.field, q.values) })) rows.push(...(await sink.query(soql, withDeleted)));
  return fromOrg(sink, rows);
}

/**
 * One query for rows matching either list (`WHERE a IN (...) OR b IN (...)`): all of the first
 * list and as many of the second as fit the URL limit. Undefined when not even one of the second
 * fits (the caller reads each list on its own); else the rows and the values of `or` it asked.
 */
export async function queryEither(
  sink: GiftSink,
  q: { fields: readonly string[]; object: string; field: string; values: readonly string[]; or: { field: string; values: readonly string[] } },
  withDeleted = false,
): Promise<{ rows: CrmRecord[]; asked: string[] } | undefined> {
  [...q.fields, q.object, q.field, q.or.field].forEach(assertIdentifier);
  const head = `SELECT ${q.fields.join(', ')} FROM ${q.object} WHERE ${q.field} IN (${[...new Set(toOrg(sink, q.field, q.values))].map(soqlLiteral).join(', ')}) OR ${q.or.field} IN (`;
  let used = encodedLength(head) + encodedLength(')');
  const sep = encodedLength(', ');
  const asked: string[] = [];
  const lits: string[] = [];
  for (const v of new Set(q.or.values)) {
    const lit = soqlLiteral(toOrg(sink, q.or.field, [v])[0] as string);
    const len = encodedLength(lit) + (lits.length > 0 ? sep : 0);
    if (used + len > MAX_QUERY_LENGTH) break;
    used += len;
    lits.push(lit);
    asked.push(v);
  }
  if (q.values.length === 0 || asked.length === 0) return undefined;
  return { rows: fromOrg(sink, await sink.query(`${head}${lits.join(', ')})`, withDeleted)), asked };
}

/**
 * Rows where `field` is one of `values`, a page of `size` at a time in Id order (`AND Id > <last>
 * ORDER BY Id LIMIT <size>`), so a list of thousands is never held whole: `each` has every page
 * before the next is read. One query per page (and per list, when the values need several).
 */
export async function queryInPages(sink: GiftSink, q: Omit<InQuery, 'and'>, size: number, each: (rows: CrmRecord[]) => Promise<void>): Promise<void> {
  const fields = q.fields.includes('Id') ? q.fields : ['Id', ...q.fields];
  const order = ` ORDER BY Id LIMIT ${size}`;
  const room = encodedLength(` AND Id > ${soqlLiteral('x'.repeat(18))}${order}`);
  for (const soql of inQueries({ ...q, fields, values: toOrg(sink, q.field, q.values) }, MAX_QUERY_LENGTH - room)) {
    let after: string | undefined;
    for (;;) {
      const rows = fromOrg(sink, await sink.query(`${soql}${after === undefined ? '' : ` AND Id > ${soqlLiteral(after)}`}${order}`));
      if (rows.length > 0) await each(rows);
      const last = rows[rows.length - 1]?.Id;
      if (rows.length < size || typeof last !== 'string') break;
      after = last;
    }
  }
}
