/**
 * The projection's reads and its skip-unchanged comparison: `WHERE field IN (...)` queries split
 * to fit Salesforce's URL limit, and a field-by-field check in canonical form, so a second run of
 * the same donations sends nothing.
 */
import type { CrmRecord, CrmValue } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';

/** Salesforce refuses a GET past about 16 KB; the rest leaves room for the instance URL and path. */
const MAX_QUERY_LENGTH = 15_000;
const IDENT = /^[A-Za-z][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f', '\b': '\\b' };

/** A SOQL string literal: backslash first, then quotes, so a value cannot end its literal. */
const literal = (value: string): string => `'${value.replace(/[\\'"\n\r\t\f\b]/g, (c) => ESCAPES[c] as string)}'`;

/** The length of text once the client has URL-encoded it: it sends ! ' ( ) * encoded too (three characters each). */
const encodedLength = (text: string): number => encodeURIComponent(text).replace(/[!'()*]/g, '%XX').length;

function identifier(name: string): string {
  if (!IDENT.test(name)) throw new Error(`not a Salesforce field or object name: ${JSON.stringify(name)}`);
  return name;
}

/** Records of `object` whose `field` is one of `values` (none asked for an empty list). */
export async function readIn(sink: GiftSink, object: string, fields: readonly string[], field: string, values: Iterable<string>): Promise<CrmRecord[]> {
  const head = `SELECT ${fields.map(identifier).join(', ')} FROM ${identifier(object)} WHERE ${identifier(field)} IN (`;
  const out: CrmRecord[] = [];
  let chunk: string[] = [];
  let length = encodedLength(head);
  const flush = async (): Promise<void> => {
    if (chunk.length > 0) out.push(...(await sink.query(`${head}${chunk.join(', ')})`)));
    chunk = [];
    length = encodedLength(head);
  };
  for (const v of new Set(values)) {
    const lit = literal(v);
    const size = encodedLength(`${lit}, `);
    if (chunk.length > 0 && length + size > MAX_QUERY_LENGTH) await flush();
    chunk.push(lit);
    length += size;
  }
  await flush();
  return out;
}

/** A value in the form Salesforce stores it: numbers by value, text trimmed, blank as null. */
function canonical(v: CrmValue | undefined): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number') return `n:${v}`;
  if (typeof v === 'boolean') return `b:${String(v)}`;
  const t = v.trim();
  if (t === '') return 'null';
  if (/^-?\d+(\.\d+)?$/.test(t)) return `n:${Number(t)}`;
  return `s:${t}`;
}

/** The fields of `desired` that `current` does not hold already (every field when there is no current record). */
export function changedFields(desired: Readonly<CrmRecord>, current: Readonly<CrmRecord> | undefined): string[] {
  return Object.keys(desired).filter((f) => current === undefined || canonical(desired[f]) !== canonical(current[f]));
}

/** Records by the value of their key field (Salesforce compares external ids case-insensitively). */
export function byKey(records: readonly CrmRecord[], keyField: string): Map<string, CrmRecord> {
  const m = new Map<string, CrmRecord>();
  for (const r of records) {
    const k = r[keyField];
    if (typeof k === 'string') m.set(k.toLowerCase(), r);
  }
  return m;
}
