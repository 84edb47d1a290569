/** One eligible donation on its way through the steps: its gift plan, its donors and its campaign. */
import type { ApiDonation } from '../../model/apiRecords.js';
import type { CrmRecord } from '../../model/crmRecords.js';
import type { GiftPlan } from '../../mapping/gifts/gift.js';
import type { GiftLinks } from '../../mapping/gifts/target.js';
import type { DonorResult } from './donors.js';

export type PlannedGift = Exclude<GiftPlan, { skip: string }>;

export interface GiftItem {
  d: ApiDonation;
  /** SvcGiftKey__c: Donation_<id>. */
  key: string;
  plan: PlannedGift;
  donors: DonorResult;
  /** The Ids the gift points at (the target's lookups). */
  links: GiftLinks;
  /** The gift's campaign key, when the mirror has the target's row (N13: else no campaign, no slot). */
  campaign?: string | undefined;
}

/** A plan record's plain fields: relationship references (by external id) are the writer's to replace by Ids. */
export function plainFields(record: Readonly<Record<string, unknown>>): CrmRecord {
  const out: CrmRecord = {};
  for (const [f, v] of Object.entries(record)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) out[f] = v;
  return out;
}
