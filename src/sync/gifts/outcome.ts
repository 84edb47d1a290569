/**
 * What projecting a batch of donations comes to: per donation the donor decision and what became
 * of its gift; per object the counts; and the failures, one line each (PROJECTION.md §6.4, §6.5).
 */
import type { CrmError } from '../../model/crmRecords.js';
import type { GiftObject } from '../../model/objects.js';
import type { DonorDecisionOut } from './donorContext.js';

export type ProjectionStage = 'donor' | 'campaign' | 'gift' | 'softCredit' | 'refund';
export type RowAction = 'insert' | 'update' | 'unchanged' | 'delete' | 'skip' | 'fail';

/** One failed projection record: which donation, where, which record, and Salesforce's answer. */
export interface ProjectionFailure {
  /** The donation's key (Donation_20). */
  donation: string;
  stage: ProjectionStage;
  object: GiftObject;
  /** The record's own key (SvcGiftKey__c, SvcDonorKey__c, ...). */
  key: string;
  error: CrmError;
}

/** One written (or, in a dry run, planned) record of the projection. */
export interface ProjectionRow {
  object: GiftObject;
  key: string;
  action: RowAction;
  /** The fields an update changes (insert: every field sent). */
  fields?: string[] | undefined;
  reason?: string | undefined;
}

export interface DonationProjection {
  donation: string;
  /** The gift's donor decision (absent when the donation is not eligible). */
  donor?: DonorDecisionOut | undefined;
  fundraiser?: DonorDecisionOut | undefined;
  /** What became of the gift: written, unchanged, or skipped/failed with the reason. */
  gift: RowAction;
  reason?: string | undefined;
  /** The gift's Name (what a dry run shows). */
  name?: string | undefined;
  amount?: number | undefined;
  date?: string | undefined;
  campaign?: string | undefined;
  warnings: string[];
}

export interface BatchProjection {
  donations: DonationProjection[];
  rows: ProjectionRow[];
  failures: ProjectionFailure[];
  warnings: string[];
}

/** The failure line a person reads: donation, stage, object, key, code and message. */
export function failureLine(f: ProjectionFailure): string {
  return `${f.donation} ${f.stage} ${f.object} ${f.key}: ${f.error.code}: ${f.error.message}`.replace(/\s*[\r\n]+\s*/g, ' ');
}

/**
 * The message of a failure's run record: the record names the object, the donation and stage
 * (Donation_12:gift) and the code already, so only the projection's own key when it is another
 * (a campaign, a soft credit) comes before the message: one reason, said once.
 */
export function recordMessage(f: ProjectionFailure): string {
  const message = f.error.message.replace(/\s*[\r\n]+\s*/g, ' ');
  return f.key === f.donation ? message : `${f.key}: ${message}`;
}
