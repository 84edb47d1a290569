/**
 * The soft-credit step (PROJECTION.md §4, §6.1 step 5, N12): the fundraiser's slot on a gift to an
 * action, `<gift key>:fundraiser`, recomputed on every projection: the slots svc-sync wrote that no
 * longer apply are deleted first (the donation moved, or the fundraiser is the donor), then the
 * desired ones upserted. Soft credits without a key (an admin's) are never touched.
 */
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { GiftSink } from '../../model/ports.js';
import type { GiftItem } from './item.js';
import { plainFields } from './item.js';
import { deleteObsolete, readExisting, upsertChanged, type Desired, type StepResult } from './upsertChanged.js';

const KEY_FIELD = 'SvcSoftCreditKey__c';

export const slotKey = (giftKey: string): string => `${giftKey}:fundraiser`;

/** One gift's slot as decided: who it goes to, or none (absent `to`: any slot svc-sync wrote goes). */
export interface SlotPlan {
  giftKey: string;
  /** The gift's Id (the slot's parent, set on insert); undefined for a dry run's new gift. */
  giftId?: string | undefined;
  /** The fundraiser the slot credits: their donor key and, once written, their record's Id. */
  to?: { key: string; id?: string | undefined } | undefined;
  /** A gift created just now has no slot yet: the org is not asked about it. */
  isNew?: boolean | undefined;
}

/** Whether the gift gets a fundraiser slot: a target action the mirror has, a fundraiser with a valid email, not the donor itself. */
function wantsSlot(item: GiftItem): boolean {
  const f = item.donors.fundraiser;
  if (f === undefined || item.plan.fundraiserActionId === undefined || item.campaign !== `Action_${item.plan.fundraiserActionId}`) return false;
  const donor = item.donors.donor;
  // A dry run's new donors have no Id yet: the same key is the same person.
  return f.key !== donor.key && (f.id === undefined || f.id !== donor.id);
}

/** Deletes obsolete slots and upserts the desired ones for gifts just written or unchanged (`giftIds`). */
export function writeSoftCredits(
  sink: GiftSink,
  target: GiftTarget,
  items: readonly GiftItem[],
  giftIds: ReadonlyMap<string, string | undefined>,
  dryRun: boolean,
  newGifts: ReadonlySet<string>,
): Promise<StepResult> {
  const plans = items.map((i): SlotPlan => ({
    giftKey: i.key,
    giftId: giftIds.get(i.key),
    to: wantsSlot(i) ? { key: i.donors.fundraiser?.key ?? '', id: i.donors.fundraiser?.id } : undefined,
    isNew: newGifts.has(i.key),
  }));
  return writeSlots(sink, target, plans, dryRun);
}

/** The slots of these gifts made as planned: obsolete ones deleted, the rest upserted where they differ. */
export async function writeSlots(sink: GiftSink, target: GiftTarget, plans: readonly SlotPlan[], dryRun: boolean): Promise<StepResult> {
  const out: StepResult = { ids: new Map(), failed: new Map(), rows: [] };
  if (plans.length === 0) return out;
  const t = target.slot;
  const SLOT = { object: t.object, keyField: KEY_FIELD, plainKey: !t.byExternalId };
  const existing = await readExisting(
    sink,
    SLOT,
    t.compared,
    plans.filter((p) => p.isNew !== true).map((p) => slotKey(p.giftKey)),
  );
  const desired: Desired[] = [];
  const obsolete: Array<{ key: string; id: string }> = [];
  for (const plan of plans) {
    const key = slotKey(plan.giftKey);
    const current = existing.get(key.toLowerCase());
    if (plan.to === undefined) {
      if (typeof current?.Id === 'string') obsolete.push({ key, id: current.Id });
      continue;
    }
    const record = plainFields(t.record(plan.giftKey, plan.to.key));
    if (plan.to.id !== undefined) record[t.recipientField] = plan.to.id;
    // A dry run's new fundraiser has no Id yet: named by key, so the slot shows as moving (never sent).
    else if (dryRun && current !== undefined) record[t.recipientField] = `(new ${plan.to.key})`;
    // The gift is the slot's parent (master-detail, or not updateable): set on create, compared after.
    desired.push({ key, record, onInsert: plan.giftId === undefined ? undefined : { [t.giftField]: plan.giftId } });
  }
  const deleted = await deleteObsolete(sink, { ...SLOT, dryRun }, obsolete);
  const written = await upsertChanged(sink, { ...SLOT, dryRun }, desired, existing);
  return { ids: written.ids, failed: new Map([...deleted.failed, ...written.failed]), rows: [...deleted.rows, ...written.rows] };
}
