/**
 * `audit --fix` for the projection (PROJECTION.md §2.3, §3.2, N20, P12): what the audit proved
 * gone from the platform (a 404 by id) or no longer eligible keeps its records in the org, changed
 * in status only: a donation's gift gets the target's canceled status (NPC Status Canceled, NPSP
 * StageName Closed Lost), a page's campaign IsActive false. Nothing is deleted or inserted, gifts
 * keep their CampaignId (the gift happened on that page), and only what differs is written, so a
 * second fix writes nothing.
 */
import type { GiftSink, RecordSource } from '../../model/ports.js';
import { refOfKey } from '../../model/refs.js';
import { NPC_TARGET } from '../../mapping/gifts/npcTarget.js';
import { npspNames, npspTarget, type NpspNames } from '../../mapping/gifts/npspTarget.js';
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { ProjectionRow } from './outcome.js';
import { readExisting, upsertChanged, type Desired } from './upsertChanged.js';

/** The keys the audit proved gone: gifts by SvcGiftKey__c (the donation's key), campaigns by SvcCampaignKey__c. */
interface GoneKeys {
  gifts: readonly string[];
  campaigns: readonly string[];
}

/** audit --fix's marking, bound to the org and the model the org guard chose. */
export type GoneMarker = (gone: GoneKeys, dryRun: boolean) => Promise<ProjectionRow[]>;

export const goneMarker =
  (sink: GiftSink, model: 'npc' | 'npsp', npsp: NpspNames): GoneMarker =>
  (gone, dryRun) =>
    markGone(sink, model === 'npsp' ? npspTarget({ ...npspNames(npsp), refundMode: 'stage' }) : NPC_TARGET, gone, dryRun);

/**
 * A campaign whose page the platform is proven not to hold (a run's complete scan, or a kept
 * proof): the projection keeps it inactive as `audit --fix` left it, rather than reading the
 * page's mirror row (kept until --delete-orphans) as active again. No request is made.
 */
export const pageGoneOf =
  (source: RecordSource): ((campaignKey: string) => boolean) =>
  (key) => {
    const ref = refOfKey(key);
    return ref !== undefined && source.provenGone?.(ref.type, ref.id) === true;
  };

/** Marks what exists of `gone` in the org (a dry run only lists it); one row per record changed, planned or failed. */
async function markGone(sink: GiftSink, target: GiftTarget, gone: GoneKeys, dryRun: boolean): Promise<ProjectionRow[]> {
  // The canceled status does not depend on the refund mode (NPSP's is SVC_NPSP_STAGE_CANCELED).
  const gift = target.gift;
  const steps = [
    { object: gift.object, keyField: 'SvcGiftKey__c', keys: gone.gifts, record: gift.canceled },
    { object: 'Campaign' as const, keyField: 'SvcCampaignKey__c', keys: gone.campaigns, record: { IsActive: false } },
  ];
  const rows: ProjectionRow[] = [];
  for (const s of steps) {
    if (s.keys.length === 0) continue;
    const existing = await readExisting(sink, s, Object.keys(s.record), s.keys);
    // A donation that never became a gift (noGiftAmount, another currency), a page no gift needed: nothing to mark.
    const desired: Desired[] = s.keys.filter((k) => existing.has(k.toLowerCase())).map((key) => ({ key, record: { ...s.record } }));
    const step = await upsertChanged(sink, { object: s.object, keyField: s.keyField, dryRun }, desired, existing);
    rows.push(...step.rows.filter((r) => r.action !== 'unchanged'));
  }
  return rows;
}
