/** Mapped values against what Salesforce holds: the basis of "unchanged" and of the dry-run diff. */
import type { CrmRecord, StoredRecord } from '../../model/crmRecords.js';
import { canonicalValue, sameValue } from '../../mapping/canonical.js';
import type { FieldType } from '../../mapping/fieldTypes.js';
import type { Changes } from '../../model/outcomes.js';

/**
 * Fields of `next` whose value differs from `current` in meaning (canonical form per field type),
 * each shown as from/to in that one form; fields `next` does not send are not compared.
 */
export function diffRecord(next: CrmRecord, current: StoredRecord | undefined, types: Map<string, FieldType>): Changes {
  const changes: Changes = {};
  for (const [field, to] of Object.entries(next)) {
    const type = types.get(field);
    const from = current?.[field];
    if (current !== undefined && sameValue(type, to, from)) continue;
    // A new record shows every sent value as a change from nothing.
    changes[field] = { from: current === undefined ? null : canonicalValue(type, from), to: canonicalValue(type, to) };
  }
  return changes;
}
