/** Mapped values against what Salesforce holds: the basis of "unchanged" and of the dry-run diff. */
import type { CrmRecord, CrmValue, StoredRecord } from '../model/crmRecords.js';
import type { FieldType } from '../mapping/fieldTypes.js';
import type { Changes } from '../model/outcomes.js';

const empty = (v: CrmValue | undefined): boolean => v === null || v === undefined || v === '';

/** Salesforce answers DateTime as 2015-08-26T14:50:14.000+0000 and numbers as numbers: compare by meaning. */
function same(type: FieldType | undefined, a: CrmValue | undefined, b: CrmValue | undefined): boolean {
  if (empty(a) || empty(b)) return empty(a) && empty(b);
  if (type?.kind === 'datetime') return Date.parse(String(a).replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) === Date.parse(String(b).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (type?.kind === 'number') return Number(a) === Number(b);
  if (type?.kind === 'checkbox') return Boolean(a) === Boolean(b);
  return a === b;
}

/** Fields of `next` whose value differs from `current`; fields `next` does not send are not compared. */
export function diffRecord(next: CrmRecord, current: StoredRecord | undefined, types: Map<string, FieldType>): Changes {
  const changes: Changes = {};
  for (const [field, to] of Object.entries(next)) {
    const from = current?.[field];
    if (!same(types.get(field), to, from)) changes[field] = { from: from ?? null, to };
  }
  return changes;
}
