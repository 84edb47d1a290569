/**
 * The projection's reads and its skip-unchanged comparison: `WHERE field IN (...)` queries split
 * to fit Salesforce's URL limit (soqlIn.ts), and a field-by-field check in canonical form, so a
 * second run of the same donations sends nothing.
 */
import type { CrmRecord, CrmValue } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';
import { queryIn } from './soqlIn.js';

/** Records of `object` whose `field` is one of `values`, in as few queries as the URL limit allows (none for an empty list). */
export function readIn(sink: GiftSink, object: string, fields: readonly string[], field: string, values: Iterable<string>): Promise<CrmRecord[]> {
  return queryIn(sink, { fields, object, field, values: [...values] });
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
