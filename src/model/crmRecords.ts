/** CRM records as the mirror sends and reads them, and what Salesforce answers per record. */
import { KEY_FIELD } from './refs.js';

/** A field value as sent to Salesforce. `null` clears a field (used for lookups that must be emptied). */
export type CrmValue = string | number | boolean | null;
export type CrmRecord = Record<string, CrmValue>;

/** A CRM record as read back: always with its Salesforce Id and SvcId__c. */
export type StoredRecord = CrmRecord & { Id: string } & { [K in typeof KEY_FIELD]: string };

export interface CrmError {
  /** Salesforce's statusCode/errorCode, e.g. STRING_TOO_LONG, or a tool code such as NETWORK_ERROR. */
  code: string;
  message: string;
  fields?: string[];
}

export type UpsertOutcome = { key: string; status: 'created' | 'updated'; id: string } | { key: string; status: 'failed'; error: CrmError };

/** What became of one record deleted by Id (an Id already gone counts as deleted). */
export type DeleteOutcome = { id: string; status: 'deleted' } | { id: string; status: 'failed'; error: CrmError };

/** Salesforce calls made, by kind: the figure every run reports. */
export interface CrmCallCounts {
  total: number;
  query: number;
  collections: number;
  bulk: number;
  describe: number;
  auth: number;
}

/** The SvcId__c of a CRM record. */
export const recordKey = (record: CrmRecord): string => String(record[KEY_FIELD]);
