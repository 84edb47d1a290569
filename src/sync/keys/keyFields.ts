/**
 * The fields that hold a record key, per object, read from the schema (SITES.md's key format):
 * every external id field (SvcId__c, TargetSvcId__c, QuestionSvcId__c, model/siteKeys.ts's
 * KEY_VALUED_FIELDS), with its length.
 */
import { SCHEMAS } from '../../mapping/schema.js';
import type { ReportedObject } from '../../model/outcomes.js';

export interface KeyField {
  name: string;
  /** Text(n): a qualified key longer than this is a record error, never truncated. */
  length: number;
  /** The key starts after this (`D:` of a per-donation donor key, `D:6:Donation_4`); absent: the value is the key. */
  after?: string | undefined;
}

/** An object whose records hold keys: the mirror's eight, the gift side's, the run log's errors. */
export interface KeySource {
  /** A mirror or gift-side object, or the run log's errors (`Svc_SyncError__c`: its records are counted, never reported as the run's). */
  object: ReportedObject | 'Svc_SyncError__c';
  fields: readonly KeyField[];
  /** Only the records that hold a key of ours (built here, never from input); absent: every record. */
  where?: string | undefined;
}

export const KEY_FIELDS: readonly KeySource[] = SCHEMAS.map((s) => ({
  object: s.apiName,
  fields: s.fields.filter((f) => f.externalId === true).map((f) => ({ name: f.name, length: f.type.kind === 'text' ? f.type.length : 255 })),
}));
