/** The shapes of an audit: drift rows and per-object counts (its Salesforce port is model/ports' AuditSink). */
import type { SObjectName } from '../../model/objects.js';
import { SCHEMAS } from '../../mapping/schema.js';

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

/** An orphan with the Salesforce Id a deletion needs (the Id stays out of the JSON drift rows). */
export interface OrphanRow extends DriftRow {
  kind: 'orphan';
  id: string;
}

/** A record in Salesforce the scan did not list (or listed as ineligible): judged by id before it can be an orphan. */
export interface Candidate {
  id: number;
  key: string;
  sfId: string;
}

export interface QuestionCandidate {
  actionId: number;
  questionId: number;
  key: string;
  sfId: string;
}
