/** Per-record outcomes of a run: what the engine reports and every door renders or records. */
import type { CrmError, CrmValue } from './crmRecords.js';
import type { GiftObject, ObjectType, SObjectName } from './objects.js';

export type OutcomeAction = 'insert' | 'update' | 'unchanged' | 'skip' | 'fail';
export type Changes = Record<string, { from: CrmValue; to: CrmValue }>;

/** The objects a run reports records of: the mirror's, and the gift projection's (PROJECTION.md §6.5). */
export type ReportedObject = SObjectName | GiftObject;

export interface RecordOutcome {
  object: ReportedObject;
  key: string;
  action: OutcomeAction;
  changes?: Changes;
  reason?: string;
  error?: CrmError;
  warnings?: string[];
}

export interface ObjectCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
}

/** A record written (or, strict, skipped) without its parent: not found anywhere, or not nameable. */
/** A record attached to a parent outside the spec's objects (a donation form, the site): written with no lookups. */
export interface OutsideParent {
  object: SObjectName;
  key: string;
  /** "donation form 12", "the site". */
  parent: string;
}

export interface MissingParent {
  /** The child's object. */
  object: SObjectName;
  /** The child's SvcId__c. */
  key: string;
  /** The parent's SvcId__c; null when the record names no parent that can be read. */
  parent: string | null;
  /** Why the record is without its parent: not found anywhere, or what is wrong with its reference. */
  reason: string;
}

export const emptyObjectCounts = (): ObjectCounts => ({ inserted: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 });

/** action -> owner pairs seen while syncing actions (the webhook re-syncs actions on users.update). */
export interface OwnerPair {
  userId: number;
  actionId: number;
}

/** Per user of a users.update: the actions Salesforce holds under the user's email, or why the user could not be read. */
export type OwnedActions = Map<number, { actions: number[] } | { error: string }>;

/**
 * Where a write to Salesforce stands: a Bulk job's steps (its records processed so far while it
 * runs), or the Collections request in flight among those of the write.
 */
export type WriteStep =
  | { via: 'bulk'; step: 'created' | 'uploaded' | 'results'; records: number }
  | { via: 'bulk'; step: 'processing'; processed: number; records: number }
  | { via: 'collections'; batch: number; batches: number };

/** The engine's progress: after each list page (scan), each fetch by id (fetch), before mapping (map), during and after each write batch (write). */
export interface Progress {
  type: ObjectType;
  phase?: 'scan' | 'fetch' | 'map' | 'write';
  /** During a write: the step Salesforce is at. */
  step?: WriteStep;
  /** Records of this type scanned, fetched or handled so far in this run (per phase). */
  done: number;
  total?: number | undefined;
}
