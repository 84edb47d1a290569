/**
 * The gift step (PROJECTION.md §2.2, §6.1 step 4, N14, N15): one GiftTransaction per donation whose
 * donor and campaign are written, upserted on SvcGiftKey__c, the donor and campaign by Id.
 */
import type { GiftSink } from '../../model/ports.js';
import type { GiftItem } from './item.js';
import { plainFields } from './item.js';
import { readExisting, upsertChanged, type Desired, type StepResult } from './upsertChanged.js';

const GIFT = { object: 'GiftTransaction', keyField: 'SvcGiftKey__c' } as const;
const COMPARED = ['Name', 'DonorId', 'GiftType', 'OriginalAmount', 'DonorCoverAmount', 'TransactionDate', 'Status', 'CampaignId', 'PaymentMethod', 'GatewayReference', 'SvcAnonymous__c'];

/**
 * The GiftTransaction of an item: the plan's fields with DonorId and CampaignId as Ids. CampaignId
 * is always compared, so a gift follows its donation to another target (§3.3): blank when the
 * target has no campaign (N13), a placeholder for a dry run's new campaign (which has no Id yet).
 */
function giftRecord(item: GiftItem, campaignIds: ReadonlyMap<string, string | undefined>): Desired {
  const record = plainFields(item.plan.gift);
  if (item.donors.donor.id !== undefined) record.DonorId = item.donors.donor.id;
  const campaign = item.campaign;
  if (campaign === undefined) record.CampaignId = null;
  else record.CampaignId = campaignIds.get(campaign) ?? `(new ${campaign})`;
  return { key: item.key, record };
}

/** Writes the gifts that differ from the org's; `campaignIds`: each item's campaign Id by campaign key. */
export async function writeGifts(sink: GiftSink, items: readonly GiftItem[], campaignIds: ReadonlyMap<string, string | undefined>, dryRun: boolean): Promise<StepResult> {
  if (items.length === 0) return { ids: new Map(), failed: new Map(), rows: [] };
  const existing = await readExisting(
    sink,
    GIFT,
    COMPARED,
    items.map((i) => i.key),
  );
  const desired = items.map((i) => giftRecord(i, campaignIds));
  return upsertChanged(sink, { ...GIFT, dryRun }, desired, existing);
}
