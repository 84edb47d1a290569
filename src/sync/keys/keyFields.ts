/**
 * The fields that hold a record key, per object, read from the schema (SITES.md's key format):
 * every external id field (SvcId__c, TargetSvcId__c, QuestionSvcId__c, model/siteKeys.ts's
 * KEY_VALUED_FIELDS), with its length.
 */
import { SCHEMAS } from '../../mapping/schema.js';
import type { SObjectName } from '../../model/objects.js';

export interface KeyField {
  name: string;
  /** Text(n): a qualified key longer than this is a record error, never truncated. */
  length: number;
}

export const KEY_FIELDS: ReadonlyArray<{ object: SObjectName; fields: readonly KeyField[] }> = SCHEMAS.map((s) => ({
  object: s.apiName,
  fields: s.fields.filter((f) => f.externalId === true).map((f) => ({ name: f.name, length: f.type.kind === 'text' ? f.type.length : 255 })),
}));
