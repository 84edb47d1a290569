import type { CrmRecord } from '../model/crmRecords.js';
import type { ObjectType, SObjectName, SyncableType } from '../model/objects.js';

/** The parent a record links to, as the mapping sees it; the CRM side resolves it to Ids. */
export interface ParentRef {
  type: SyncableType;
  object: SObjectName;
  id: number;
  /** The parent's SvcId__c. */
  key: string;
  /** Lookup on the child that takes the parent's Id. */
  direct: string;
  /** Lookups copied from the parent's CRM record. */
  inherit: string[];
}

export interface MappedRecord {
  kind: 'record';
  type: ObjectType;
  object: SObjectName;
  key: string;
  /** Every mapped field but the lookups; blank values left out, checkboxes always present. */
  fields: CrmRecord;
  parent: ParentRef | null;
  /** Set when the object has parent rules but no parent can be derived: why (reported, never silent). */
  parentProblem?: string;
  /** Attached to a parent outside the spec's objects (a donation form, the site): written with no lookups. */
  outsideParent?: string;
  warnings: string[];
}

/** Left out by a rule of the spec (donation filter, blank answer): reported, not an error. */
export interface SkippedRecord {
  kind: 'skip';
  type: ObjectType;
  object: SObjectName;
  key: string;
  reason: string;
}

/** A value that cannot be stored faithfully (an amount past its precision): an error for that record. */
export interface InvalidRecord {
  kind: 'invalid';
  type: ObjectType;
  object: SObjectName;
  key: string;
  error: { code: string; message: string };
}

export type MapResult = MappedRecord | SkippedRecord | InvalidRecord;
