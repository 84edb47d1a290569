/** The shapes of an audit: drift rows, per-object counts, and the port it needs from Salesforce. */
import type { DeleteOutcome } from '../crm/delete.js';
import type { CrmSink, StoredRecord } from '../crm/types.js';
import type { SObjectName } from '../mapping/objects.js';
import { SCHEMAS } from '../mapping/schema.js';

export type DriftKind = 'missing' | 'stale' | 'orphan';

export interface DriftRow {
  object: SObjectName;
  /** SvcId__c. */
  key: string;
  kind: DriftKind;
  /** stale: the CRM fields (API names) whose value differs from what a sync would write. */
  fields?: string[];
  /** orphan: why the record should not be in Salesforce. */
  reason?: string;
}

export interface AuditCounts {
  inSync: number;
  missing: number;
  stale: number;
  orphan: number;
}

export const emptyAuditCounts = (): AuditCounts => ({ inSync: 0, missing: 0, stale: 0, orphan: 0 });

/** Counts for all eight objects, in schema order. */
export function auditSummary(counts: Map<SObjectName, AuditCounts>): Record<SObjectName, AuditCounts> {
  const out = {} as Record<SObjectName, AuditCounts>;
  for (const s of SCHEMAS) out[s.apiName] = { ...(counts.get(s.apiName) ?? emptyAuditCounts()) };
  return out;
}

/** What an audit needs of Salesforce beyond the engine's sink: a walk over every key, and deletes. */
export interface AuditSink extends CrmSink {
  /** `expected`: about how many records the object holds (a Bulk API 2.0 query above the bulk threshold). */
  scanKeys(object: SObjectName, fields?: string[], expected?: number): AsyncIterable<StoredRecord[]>;
  deleteByIds(object: SObjectName, ids: string[]): Promise<DeleteOutcome[]>;
}
