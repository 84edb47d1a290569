import type { SObjectName } from '../mapping/objects.js';

/** A field value as sent to Salesforce. `null` clears a field (used for lookups that must be emptied). */
export type CrmValue = string | number | boolean | null;
export type CrmRecord = Record<string, CrmValue>;

/** A CRM record as read back: always with its Salesforce Id and SvcId__c. */
export type StoredRecord = CrmRecord & { Id: string; SvcId__c: string };

export interface CrmError {
  /** Salesforce's statusCode/errorCode, e.g. STRING_TOO_LONG, or a tool code such as NETWORK_ERROR. */
  code: string;
  message: string;
  fields?: string[];
}

export type UpsertOutcome =
  | { key: string; status: 'created' | 'updated'; id: string }
  | { key: string; status: 'failed'; error: CrmError };

/** Salesforce calls made, by kind: the figure every run reports. */
export interface CrmCallCounts {
  total: number;
  query: number;
  collections: number;
  bulk: number;
  describe: number;
  auth: number;
}

export interface CrmSink {
  /** Reads existing records by SvcId__c with the given fields, batched; unknown keys are absent. */
  readByKeys(object: SObjectName, keys: string[], fields: string[]): Promise<Map<string, StoredRecord>>;
  /** Upserts on SvcId__c in batches (Collections or Bulk 2.0); one outcome per distinct key. */
  upsert(object: SObjectName, records: CrmRecord[]): Promise<UpsertOutcome[]>;
  /** Records whose `lookupField` points at one of `parentIds`, with the given fields (descendant re-link). */
  readChildren(object: SObjectName, lookupField: string, parentIds: string[], fields: string[]): Promise<StoredRecord[]>;
  calls(): CrmCallCounts;
}
