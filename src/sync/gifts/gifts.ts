/**
 * The gift step (PROJECTION.md §2.2, §6.1 step 4, N14, N15): one gift per donation whose donor and
 * campaign are written, upserted on SvcGiftKey__c in the target's gift object, the donor and
 * campaign by Id.
 */
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { GiftSink } from '../../model/ports.js';
import type { GiftItem } from './item.js';
import { plainFields } from './item.js';
import { readExisting, upsertChanged, type Desired, type StepResult } from './upsertChanged.js';

const KEY_FIELD = 'SvcGiftKey__c';

/**
 * The gift record of an item: the plan's fields with the links and CampaignId as Ids. CampaignId
 * is always compared, so a gift follows its donation to another target (§3.3): blank when the
 * target has no campaign (N13), a placeholder for a dry run's new campaign (which has no Id yet).
 */
function giftRecord(target: GiftTarget, item: GiftItem, campaignIds: ReadonlyMap<string, string | undefined>): Desired {
  const record = { ...plainFields(item.plan.gift), ...target.gift.links(item.links) };
  const campaign = item.campaign;
  if (campaign === undefined) record.CampaignId = null;
  else record.CampaignId = campaignIds.get(campaign) ?? `(new ${campaign})`;
  return { key: item.key, record };
}

/** Writes the gifts that differ from the org's; `campaignIds`: each item's campaign Id by campaign key. */
export async function writeGifts(sink: GiftSink, target: GiftTarget, items: readonly GiftItem[], campaignIds: ReadonlyMap<string, string | undefined>, dryRun: boolean): Promise<StepResult> {
  if (items.length === 0) return { ids: new Map(), failed: new Map(), rows: [] };
  const on = { object: target.gift.object, keyField: KEY_FIELD };
  const existing = await readExisting(
    sink,
    on,
    target.gift.compared,
    items.map((i) => i.key),
  );
  const desired = items.map((i) => giftRecord(target, i, campaignIds));
  return upsertChanged(sink, { ...on, dryRun }, desired, existing);
}
