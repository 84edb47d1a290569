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

const slotKey = (giftKey: string): string => `${giftKey}:fundraiser`;

/** Whether the gift gets a fundraiser slot: a target action the mirror has, a fundraiser with a valid email, not the donor itself. */
function wantsSlot(item: GiftItem): boolean {
  const f = item.donors.fundraiser;
  if (f === undefined || item.plan.fundraiserActionId === undefined || item.campaign !== `Action_${item.plan.fundraiserActionId}`) return false;
  const donor = item.donors.donor;
  // A dry run's new donors have no Id yet: the same key is the same person.
  return f.key !== donor.key && (f.id === undefined || f.id !== donor.id);
}

/** Deletes obsolete slots and upserts the desired ones for gifts just written or unchanged (`giftIds`). */
export async function writeSoftCredits(
  sink: GiftSink,
  target: GiftTarget,
  items: readonly GiftItem[],
  giftIds: ReadonlyMap<string, string | undefined>,
  dryRun: boolean,
  newGifts: ReadonlySet<string>,
): Promise<StepResult> {
  const out: StepResult = { ids: new Map(), failed: new Map(), rows: [] };
  if (items.length === 0) return out;
  const t = target.slot;
  const SLOT = { object: t.object, keyField: KEY_FIELD, plainKey: !t.byExternalId };
  const existing = await readExisting(
    sink,
    SLOT,
    t.compared,
    // A gift created just now has no slot yet: only older gifts are asked about.
    items.filter((i) => !newGifts.has(i.key)).map((i) => slotKey(i.key)),
  );
  const desired: Desired[] = [];
  const obsolete: Array<{ key: string; id: string }> = [];
  for (const item of items) {
    const key = slotKey(item.key);
    const current = existing.get(key.toLowerCase());
    if (!wantsSlot(item)) {
      if (typeof current?.Id === 'string') obsolete.push({ key, id: current.Id });
      continue;
    }
    const record = plainFields(t.record(item.key, item.donors.fundraiser?.key ?? ''));
    const recipient = item.donors.fundraiser?.id;
    if (recipient !== undefined) record[t.recipientField] = recipient;
    const giftId = giftIds.get(item.key);
    // The gift is the slot's parent (master-detail, or not updateable): set on create, compared after.
    desired.push({ key, record, onInsert: giftId === undefined ? undefined : { [t.giftField]: giftId } });
  }
  const deleted = await deleteObsolete(sink, { ...SLOT, dryRun }, obsolete);
  const written = await upsertChanged(sink, { ...SLOT, dryRun }, desired, existing);
  return { ids: written.ids, failed: new Map([...deleted.failed, ...written.failed]), rows: [...deleted.rows, ...written.rows] };
}
