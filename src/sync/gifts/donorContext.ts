/**
 * What a donor run works with and decides (PROJECTION.md §1, §6.1): the context the gift writer
 * gives it, and one donor's decision. Shared by the batch's seam (donors.ts) and the run that
 * matches and writes (donorRun.ts), so neither imports the other's types back.
 */
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { GiftSink } from '../../model/ports.js';

export type MatchedBy = 'link' | 'key' | 'email+name' | 'new' | 'anonymousPool' | 'noKey' | 'ambiguous';
export interface DonorDecisionOut {
  matchedBy: MatchedBy;
  /** SvcDonorKey__c of the donor the gift/slot points to (after this run's claims). */
  key: string;
  /** The record's Id (absent in a dry run for a new donor, or on failure). */
  id?: string | undefined;
  /** NPSP: the Contact's Account (its household), when it has one. */
  accountId?: string | undefined;
  /** ambiguous: the candidate Ids (`(new <key>)` for one this dry run would create). */
  candidates?: string[] | undefined;
}
/** Donor links the state folder keeps (key -> Account Id); only saves calls (§6.3). */
export interface DonorLinks {
  get(key: string): string | undefined;
  set(key: string, id: string): void;
}
export interface DonorContext {
  sink: GiftSink;
  target: GiftTarget;
  siteId: number;
  dryRun: boolean;
  /** SVC_ANONYMOUS_LASTNAME (default "Anonymous"). */
  anonymousLastName: string;
  /** SVC_MATCH_EMAIL_NAME (default true). */
  matchEmailAndName: boolean;
  /** RecordTypeIds of new persons and companies (none sent when absent: an NPSP Contact). */
  recordTypes: { person?: string | undefined; business?: string | undefined };
  links: DonorLinks;
}
