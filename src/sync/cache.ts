/**
 * CRM records this run knows, by SvcId__c: parents read from Salesforce or written in this run,
 * and keys known to be missing. Children link from here, so no parent is read or fetched twice.
 */
import type { StoredRecord } from '../crm/types.js';

/**
 * A missing key is either absent (404, or left out by a rule: children are written unlinked with
 * a warning) or failed (a fetch or write error: children fail too, so they are tried again).
 */
export type CacheEntry = { state: 'present'; record: StoredRecord } | { state: 'missing'; reason: string; failed: boolean };

export class RecordCache {
  private readonly entries = new Map<string, CacheEntry>();

  get(key: string): CacheEntry | undefined {
    return this.entries.get(key);
  }

  record(key: string): StoredRecord | undefined {
    const e = this.entries.get(key);
    return e?.state === 'present' ? e.record : undefined;
  }

  put(record: StoredRecord): void {
    this.entries.set(record.SvcId__c, { state: 'present', record });
  }

  markMissing(key: string, reason: string, failed = false): void {
    if (!this.entries.has(key)) this.entries.set(key, { state: 'missing', reason, failed });
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }
}

/** Dry-run stand-in for the Id a record would get when inserted; never sent anywhere. */
export const pendingId = (key: string): string => `(new ${key})`;
