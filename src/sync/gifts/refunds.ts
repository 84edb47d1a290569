/**
 * The refund step (PROJECTION.md §2.3, §6.1 step 6, N15, P10): a refund record for a refunded or
 * charged-back donation (NPC's GiftRefund, NPSP's negative payment), upserted on SvcRefundKey__c;
 * one svc-sync wrote for a donation that is paid again (a reversal) is deleted. The gift itself
 * stays Paid (Closed Won). NPSP's refund payment points at the gift's own paid payment, read in the
 * same query as the refunds (one a batch); a gift without one fails ORIGINAL_PAYMENT_MISSING.
 */
import type { GiftTarget } from '../../mapping/gifts/target.js';
import type { CrmError, CrmRecord } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';
import type { GiftItem } from './item.js';
import { plainFields } from './item.js';
import { byKey, readIn } from './reads.js';
import { deleteObsolete, readExisting, upsertChanged, type Desired, type StepResult } from './upsertChanged.js';

type RefundSpec = NonNullable<GiftTarget['refund']>;
const KEY = 'SvcRefundKey__c';

interface Existing {
  refunds: Map<string, CrmRecord>;
  /** NPSP: each gift's paid payments without a refund key, by gift Id. */
  originals?: Map<string, string[]> | undefined;
}

/** What the org holds: the refunds by key; with `original`, read by gift Id, the gifts' own paid payments beside them. */
async function readRefunds(sink: GiftSink, t: RefundSpec, items: readonly GiftItem[], giftIds: ReadonlyMap<string, string | undefined>, newGifts: ReadonlySet<string>): Promise<Existing> {
  // A gift created just now has no refund yet: only older gifts are asked about (and, for an original, the refunded ones).
  const asked = items.filter((i) => !newGifts.has(i.key) || (t.original !== undefined && i.plan.refund !== undefined));
  if (t.original === undefined)
    return {
      refunds: await readExisting(
        sink,
        { object: t.object, keyField: KEY },
        t.compared,
        asked.map((i) => i.key),
      ),
    };
  const ids = asked.flatMap((i) => {
    const id = giftIds.get(i.key);
    return id === undefined ? [] : [id];
  });
  const rows = await readIn(sink, t.object, ['Id', KEY, ...t.compared.filter((f) => f !== KEY)], t.giftField, ids);
  const originals = new Map<string, string[]>();
  for (const r of rows) {
    const gift = r[t.giftField];
    if (typeof r[KEY] === 'string' || typeof gift !== 'string' || r[t.original.paidField] !== true || typeof r.Id !== 'string') continue;
    originals.set(gift, [...(originals.get(gift) ?? []), r.Id]);
  }
  return { refunds: byKey(rows, KEY), originals };
}

/** P10: the one paid payment of the gift a new refund points at, or why there is none to point at. */
function originalOf(t: RefundSpec, found: readonly string[]): { id: string } | { error: CrmError } {
  const [only] = found;
  if (found.length === 1 && only !== undefined) return { id: only };
  if (found.length === 0)
    return {
      error: {
        code: 'ORIGINAL_PAYMENT_MISSING',
        message: `the gift has no paid ${t.object} without ${KEY} for the refund to point at (NPSP payments or its automation off?); set SVC_NPSP_REFUND_MODE=stage, or let NPSP make the payment`,
      },
    };
  return { error: { code: 'ORIGINAL_PAYMENT_MISSING', message: `the gift has ${found.length} paid ${t.object} records without ${KEY}: which one was refunded is not known, so none is guessed` } };
}

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
  const REFUND = { object: t.object, keyField: KEY };
  const existing = await readRefunds(sink, t, items, giftIds, newGifts);
  const desired: Desired[] = [];
  const obsolete: Array<{ key: string; id: string }> = [];
  const missing: StepResult = { ids: new Map(), failed: new Map(), rows: [] };
  for (const item of items) {
    const current = existing.refunds.get(item.key.toLowerCase());
    if (item.plan.refund === undefined) {
      if (typeof current?.Id === 'string') obsolete.push({ key: item.key, id: current.Id });
      continue;
    }
    const giftId = giftIds.get(item.key);
    const onInsert: CrmRecord | undefined = giftId === undefined ? undefined : { [t.giftField]: giftId };
    // A new refund of a gift that exists points at its original (a dry run's new gift has none to ask about yet).
    if (current === undefined && t.original !== undefined && giftId !== undefined && onInsert !== undefined) {
      const original = originalOf(t, existing.originals?.get(giftId) ?? []);
      if ('error' in original) {
        // A dry run writes nothing, so nothing failed: it says what the run would skip (as §6.4 does for a gift).
        if (!dryRun) missing.failed.set(item.key, original.error);
        missing.rows.push({ object: t.object, key: item.key, action: dryRun ? 'skip' : 'fail', reason: `${original.error.code}: ${original.error.message}` });
        continue;
      }
      onInsert[t.original.field] = original.id;
    }
    desired.push({ key: item.key, record: plainFields(item.plan.refund), onInsert });
  }
  const deleted = await deleteObsolete(sink, { ...REFUND, dryRun }, obsolete);
  const written = await upsertChanged(sink, { ...REFUND, dryRun }, desired, existing.refunds);
  return {
    ids: written.ids,
    failed: new Map([...missing.failed, ...deleted.failed, ...written.failed]),
    rows: [...missing.rows, ...deleted.rows, ...written.rows],
  };
}
