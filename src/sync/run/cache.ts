/**
 * CRM records this run knows, by SvcId__c: parents read from Salesforce or written in this run,
 * and keys known to be missing. Children link from here, so no parent is read or fetched twice.
 */
import type { StoredRecord } from '../../model/crmRecords.js';
import type { ObjectType } from '../../model/objects.js';
import { KEY_FIELD } from '../../model/refs.js';
import { SCHEMAS } from '../../mapping/schema.js';

/**
 * Types some other type hangs from. Only their entries are kept: donations, subscriptions and
 * questions are nobody's parent, and keeping them would make memory grow with the site.
 */
const PARENT_TYPES: ReadonlySet<ObjectType> = new Set(SCHEMAS.flatMap((s) => s.parents.map((p) => p.type)));

/** Whether some type hangs from this one (only such records are ever needed as parents). */
export const isParentType = (type: ObjectType): boolean => PARENT_TYPES.has(type);

/**
 * The only fields of a parent that its children read: its Id (the direct lookup), the lookups they
 * inherit and the external reference a donation or subscription takes from its target. A cached
 * parent keeps just these: a fundraising page's description alone can be 30 KB, and parents are
 * kept for the whole run.
 */
const READ_BY_CHILDREN: readonly string[] = [...new Set(['Id', KEY_FIELD, 'ExternalReference__c', ...SCHEMAS.flatMap((s) => s.parents.flatMap((p) => p.inherit))])];

function linkingFields(record: StoredRecord): StoredRecord {
  const kept: Record<string, unknown> = {};
  for (const f of READ_BY_CHILDREN) if (record[f] !== undefined) kept[f] = record[f];
  return kept as StoredRecord;
}

/**
 * A missing key is either absent (404, or left out by a rule: children are written unlinked with
 * a warning) or failed (a fetch or write error: children fail too, so they are tried again).
 */
type CacheEntry = { state: 'present'; record: StoredRecord } | { state: 'missing'; reason: string; failed: boolean };

export class RecordCache {
  private readonly entries = new Map<string, CacheEntry>();

  get(key: string): CacheEntry | undefined {
    return this.entries.get(key);
  }

  record(key: string): StoredRecord | undefined {
    const e = this.entries.get(key);
    return e?.state === 'present' ? e.record : undefined;
  }

  put(type: ObjectType, record: StoredRecord): void {
    if (PARENT_TYPES.has(type)) this.entries.set(record[KEY_FIELD], { state: 'present', record: linkingFields(record) });
  }

  markMissing(type: ObjectType, key: string, reason: string, failed = false): void {
    if (PARENT_TYPES.has(type) && !this.entries.has(key)) this.entries.set(key, { state: 'missing', reason, failed });
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }
}

/** Dry-run stand-in for the Id a record would get when inserted; never sent anywhere. */
export const pendingId = (key: string): string => `(new ${key})`;
