/**
 * The seam to the donor step (g42-donors owns this file; these are its fixed types, here until
 * that branch is merged).
 */
import type { ApiDonation, ApiUser } from '../../model/apiRecords.js';
import type { GiftSink } from '../../model/ports.js';
import type { CrmError } from '../../model/crmRecords.js';

/** What the run knows of a donation's fundraiser (N12): the action owner and their user record. */
export interface FundraiserInput {
  owner: { first_name?: string | null; infix?: string | null; last_name?: string | null; email?: string | null };
  user?: ApiUser | undefined;
}
export interface DonorInput {
  donation: ApiDonation;
  /** Present only when the donation's target is an action the platform has (N12). */
  fundraiser?: FundraiserInput | undefined;
}
export type MatchedBy = 'link' | 'key' | 'email+name' | 'new' | 'anonymousPool' | 'noKey' | 'ambiguous';
export interface DonorDecisionOut {
  matchedBy: MatchedBy;
  key: string;
  id?: string | undefined;
  candidates?: string[] | undefined;
}
export interface DonorResult {
  donationId: number;
  donor: DonorDecisionOut;
  companyPerson?: DonorDecisionOut;
  fundraiser?: DonorDecisionOut;
  anonymous: boolean;
  label: string;
  giftType: 'Individual' | 'Organizational';
  warnings: string[];
  error?: { stage: 'donor'; object: 'Account'; key: string; error: CrmError } | undefined;
}
export interface DonorLinks {
  get(key: string): string | undefined;
  set(key: string, id: string): void;
}
export interface DonorContext {
  sink: GiftSink;
  siteId: number;
  dryRun: boolean;
  anonymousLastName: string;
  matchEmailAndName: boolean;
  recordTypes: { person: string; business: string };
  links: DonorLinks;
}
