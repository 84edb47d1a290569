import type { SObjectName } from '../model/objects.js';

/** CRM field types of SPEC.md section 2, with their size limits. */
export type FieldType =
  | { kind: 'text'; length: number }
  /** LongTextArea(32768); `html: true` for Description__c fields, which are stored tags stripped. */
  | { kind: 'longtext'; length: number; html?: boolean }
  | { kind: 'number'; precision: number; scale: number }
  | { kind: 'checkbox'; default: boolean }
  | { kind: 'date' }
  | { kind: 'datetime' }
  | { kind: 'lookup'; to: SObjectName };

export const text = (length: number): FieldType => ({ kind: 'text', length });
export const longText = (): FieldType => ({ kind: 'longtext', length: 32768 });
export const html = (): FieldType => ({ kind: 'longtext', length: 32768, html: true });
export const number = (precision: number, scale: number): FieldType => ({ kind: 'number', precision, scale });
export const checkbox = (defaultValue = false): FieldType => ({ kind: 'checkbox', default: defaultValue });
export const date = (): FieldType => ({ kind: 'date' });
export const dateTime = (): FieldType => ({ kind: 'datetime' });
export const lookup = (to: SObjectName): FieldType => ({ kind: 'lookup', to });

/**
 * Where a field's value comes from: a dotted path into the mapping context
 *   record.*  the API record itself           user.*    the action owner's user record
 *   consent.* the selected consent            target.*  the target/entity record (donations, subscriptions)
 *   parent.key  the parent's SvcId__c         key       the record's own SvcId__c
 *   question.* one entry of action.questions  action.*  the action owning a question
 * Lookups have no source: the CRM writer sets them from the parent's CRM record.
 */
export type SourcePath = string;

export interface FieldDef {
  name: string;
  label: string;
  type: FieldType;
  source?: SourcePath | undefined;
  /** The value is only sent when this path is `true` (action URL__c needs fundraiser_page). */
  onlyIf?: SourcePath;
  externalId?: boolean;
  unique?: boolean;
  required?: boolean;
}
