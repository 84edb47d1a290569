/**
 * The refund step (PROJECTION.md §2.3, §6.1 step 6, N15): a GiftRefund for a refunded or charged-back
 * donation, upserted on SvcRefundKey__c; one svc-sync wrote for a donation that is paid again (a
 * reversal) is deleted. The gift itself stays Paid.
 */
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { GiftSink } from '../../model/ports.js';
import type { GiftItem } from './item.js';
import { plainFields } from './item.js';
import { deleteObsolete, readExisting, upsertChanged, type Desired, type StepResult } from './upsertChanged.js';

export async function writeRefunds(
  sink: GiftSink,
  target: GiftTarget,
  items: readonly GiftItem[],
  giftIds: ReadonlyMap<string, string | undefined>,
  dryRun: boolean,
  newGifts: ReadonlySet<string>,
): Promise<StepResult> {
  const t = target.refund;
  // A target without refund records (NPSP's `stage` mode) marks refunds on the gift itself.
  if (items.length === 0 || t === undefined) return { ids: new Map(), failed: new Map(), rows: [] };
  const REFUND = { object: t.object, keyField: 'SvcRefundKey__c' };
  const existing = await readExisting(
    sink,
    REFUND,
    t.compared,
    // A gift created just now has no refund yet: only older gifts are asked about.
    items.filter((i) => !newGifts.has(i.key)).map((i) => i.key),
  );
  const desired: Desired[] = [];
  const obsolete: Array<{ key: string; id: string }> = [];
  for (const item of items) {
    const current = existing.get(item.key.toLowerCase());
    if (item.plan.refund === undefined) {
      if (typeof current?.Id === 'string') obsolete.push({ key: item.key, id: current.Id });
      continue;
    }
    const giftId = giftIds.get(item.key);
    desired.push({ key: item.key, record: plainFields(item.plan.refund), onInsert: giftId === undefined ? undefined : { [t.giftField]: giftId } });
  }
  const deleted = await deleteObsolete(sink, { ...REFUND, dryRun }, obsolete);
  const written = await upsertChanged(sink, { ...REFUND, dryRun }, desired, existing);
  return { ids: written.ids, failed: new Map([...deleted.failed, ...written.failed]), rows: [...deleted.rows, ...written.rows] };
}
