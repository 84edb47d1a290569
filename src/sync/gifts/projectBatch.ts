/**
 * The gift projection of one batch of mirrored donations (PROJECTION.md §6.1): eligibility (N2),
 * then in order donors, campaigns top-down, gifts, soft credits (obsolete deleted, then upserted)
 * and refunds, each step only for the donations whose prerequisites succeeded (DONOR_FAILED,
 * CAMPAIGN_FAILED), each record sent only when it differs from what the org holds.
 */
import type { ApiDonation } from '../../model/apiRecords.js';
import type { CrmError } from '../../model/crmRecords.js';
import type { GiftObject } from '../../model/objects.js';
import type { GiftSink } from '../../model/ports.js';
import { keyFor } from '../../model/refs.js';
import { giftOf, rulesOf } from '../../mapping/gifts/gift.js';
import type { GiftLinks, GiftTarget } from '../../mapping/gifts/target.js';
import { parentRef } from '../../mapping/map.js';
import { chainOf, fundraiserOf, readCampaignTree, type TreeRow } from './campaignRows.js';
import { writeCampaigns } from './campaigns.js';
import type { KnownCampaigns } from './campaignState.js';
import type { DonorLinks } from './donorContext.js';
import { resolveDonors, type DonorInput, type DonorResult } from './donors.js';
import { writeGifts } from './gifts.js';
import type { GiftItem } from './item.js';
import type { BatchProjection, DonationProjection, ProjectionFailure, ProjectionStage } from './outcome.js';
import { writeRefunds } from './refunds.js';
import { writeSoftCredits } from './softCredits.js';
import type { StepResult } from './upsertChanged.js';

interface ProjectionContext {
  sink: GiftSink;
  /** The donation model written (its adapter). */
  target: GiftTarget;
  siteId: number;
  dryRun: boolean;
  timeZone: string;
  anonymousLastName: string;
  matchEmailAndName: boolean;
  /** The org's currency (single-currency orgs; N1: EUR when unsure). */
  orgCurrency: string;
  recordTypes: { person?: string | undefined; business?: string | undefined };
  links: DonorLinks;
  /** The campaigns known written and current; absent: every campaign is read and compared. */
  campaigns?: KnownCampaigns | undefined;
  /** A campaign whose page is proven gone from the platform (kept inactive). */
  pageGone?: ((campaignKey: string) => boolean) | undefined;
}

/** The campaigns written or found unchanged, as the state knows them from now on. */
export function keepCampaigns(
  state: KnownCampaigns | undefined,
  tree: ReadonlyMap<string, TreeRow>,
  step: { ids: ReadonlyMap<string, string | undefined>; failed: ReadonlyMap<string, unknown> },
): void {
  for (const [key, id] of step.ids) {
    const t = tree.get(key);
    if (t !== undefined && id !== undefined && !step.failed.has(key)) state?.set(t, id);
  }
}

interface Batch {
  out: BatchProjection;
  byKey: Map<string, DonationProjection>;
}

function fail(b: Batch, donation: string, stage: ProjectionStage, object: ProjectionFailure['object'], key: string, error: CrmError): void {
  b.out.failures.push({ donation, stage, object, key, error });
  const p = b.byKey.get(donation);
  if (p && (stage === 'gift' || stage === 'donor' || stage === 'campaign')) Object.assign(p, { gift: 'fail', reason: error.code });
}

/** Each donation once (the last copy), in ascending id (N4). */
function ordered(donations: readonly ApiDonation[]): ApiDonation[] {
  return [...new Map(donations.map((d) => [d.id, d])).values()].sort((a, b) => a.id - b.id);
}

export async function projectBatch(donations: readonly ApiDonation[], ctx: ProjectionContext): Promise<BatchProjection> {
  const b: Batch = { out: { donations: [], rows: [], failures: [], warnings: [] }, byKey: new Map() };
  const eligible: Array<{ d: ApiDonation; target: string | undefined }> = [];
  for (const d of ordered(donations)) {
    const key = keyFor('donation', d.id);
    const p: DonationProjection = { donation: key, gift: 'skip', warnings: [] };
    b.out.donations.push(p);
    b.byKey.set(key, p);
    // Eligibility only: the donors are not known yet (N2: a skipped donation writes nothing).
    const plan = giftOf(
      d,
      { donor: { kind: 'noKey', key: '', person: true, fields: {} }, anonymous: false, label: '', giftType: 'Individual' },
      { timeZone: ctx.timeZone, orgCurrency: ctx.orgCurrency, rules: rulesOf(ctx.target) },
    );
    if ('skip' in plan) p.reason = plan.skip === 'noGiftAmount' ? 'noGiftAmount' : plan.reason;
    else eligible.push({ d, target: parentRef('donation', d)?.key });
  }
  if (eligible.length === 0) return b.out;
  // A known campaign other than an action's needs no mirror row; an action's row names the fundraiser.
  const targets = new Set(eligible.flatMap((e) => (e.target === undefined ? [] : [e.target])));
  const known = new Map<string, string>();
  for (const key of targets) {
    const id = key.startsWith('Action_') ? undefined : ctx.campaigns?.idOf(key);
    if (id !== undefined) known.set(key, id);
  }
  const tree = await readCampaignTree(
    ctx.sink,
    [...targets].filter((k) => !known.has(k)),
    (t) => {
      const id = ctx.campaigns?.current(t);
      if (id !== undefined) known.set(t.key, id);
      return id !== undefined;
    },
  );
  const donors = await resolveDonors(
    eligible.map((e) => donorInput(e.d, e.target, tree)),
    ctx,
  );
  // Every campaign a gift needs, known or read, written now or not: the gift step gets each one's Id.
  const campaignKeys = new Set([...known.keys(), ...eligible.flatMap((e) => (e.target === undefined ? [] : chainOf(tree, e.target)))]);
  const campaigns = await writeCampaigns(ctx.sink, tree, campaignKeys, { ...ctx, known });
  b.out.rows.push(...campaigns.rows);
  if (!ctx.dryRun) keepCampaigns(ctx.campaigns, tree, campaigns);
  const t = ctx.target;
  const ready = readyGifts(
    t.gift.object,
    b,
    giftItems(b, eligible, donors, (k) => tree.has(k) || known.has(k), ctx),
    tree,
    campaigns.failed,
    ctx.dryRun,
  );
  const gifts = await writeGifts(ctx.sink, t, ready, campaigns.ids, ctx.dryRun);
  record(b, gifts, 'gift', t.gift.object, (k) => k);
  // A gift refused (its campaign deleted by an admin, perhaps): its campaign is read again next time.
  for (const i of ready) if (gifts.failed.has(i.key) && i.campaign !== undefined) ctx.campaigns?.forget(i.campaign);
  const written = ready.filter((i) => !gifts.failed.has(i.key));
  const giftAction = new Map(gifts.rows.map((r) => [r.key, r.action] as const));
  for (const i of written) Object.assign(b.byKey.get(i.key) as DonationProjection, { gift: giftAction.get(i.key) ?? 'unchanged' });
  const newGifts = new Set(gifts.rows.filter((r) => r.action === 'insert').map((r) => r.key));
  const slots = await writeSoftCredits(ctx.sink, t, written, gifts.ids, ctx.dryRun, newGifts);
  record(b, slots, 'softCredit', t.slot.object, (k) => k.replace(/:fundraiser$/, ''));
  const refunds = await writeRefunds(ctx.sink, t, written, gifts.ids, ctx.dryRun, newGifts);
  if (t.refund !== undefined) record(b, refunds, 'refund', t.refund.object, (k) => k);
  // A dry run's refund that the run would fail (ORIGINAL_PAYMENT_MISSING): said under its donation.
  for (const r of refunds.rows) if (r.action === 'skip') b.byKey.get(r.key)?.warnings.push(`refund not written: ${r.reason ?? 'skipped'}`);
  return b.out;
}

/** The gifts whose campaigns stand and whose currency is the org's (CAMPAIGN_FAILED, N3 otherwise). */
function readyGifts(giftObject: GiftObject, b: Batch, items: readonly GiftItem[], tree: ReadonlyMap<string, TreeRow>, failedCampaigns: ReadonlyMap<string, CrmError>, dryRun: boolean): GiftItem[] {
  const ready: GiftItem[] = [];
  const said = new Set<string>();
  for (const item of items) {
    const broken = item.campaign === undefined ? undefined : chainOf(tree, item.campaign).find((k) => failedCampaigns.has(k));
    if (broken !== undefined) {
      // The campaign's own failure once, under the first donation that needs it; each gift after.
      const error = failedCampaigns.get(broken) as CrmError;
      if (!said.has(broken)) fail(b, item.key, 'campaign', 'Campaign', broken, error);
      said.add(broken);
      fail(b, item.key, 'gift', giftObject, item.key, { code: 'CAMPAIGN_FAILED', message: `campaign ${broken} failed: ${error.code}` });
    } else if (item.plan.giftProblem !== undefined && dryRun) {
      // A dry run lists it as skipped (§6.4): nothing is written, so nothing failed.
      Object.assign(b.byKey.get(item.key) as DonationProjection, { gift: 'skip', reason: item.plan.giftProblem });
    } else if (item.plan.giftProblem !== undefined) {
      // N3: the donors and the campaigns stand; no gift, slot or refund.
      fail(b, item.key, 'gift', giftObject, item.key, problemError(item.plan.giftProblem));
    } else ready.push(item);
  }
  return ready;
}

/** A gift problem ("CURRENCY_MISMATCH: org EUR, donation GBP") as a code and the rest: the code said once. */
function problemError(problem: string): CrmError {
  const at = problem.indexOf(': ');
  return at < 0 ? { code: problem, message: '' } : { code: problem.slice(0, at), message: problem.slice(at + 2) };
}

/** A donation's donor input: the fundraiser only when its target is an action the mirror has (N12). */
function donorInput(d: ApiDonation, target: string | undefined, tree: ReadonlyMap<string, TreeRow>): DonorInput {
  const action = target?.startsWith('Action_') ? tree.get(target) : undefined;
  return action ? { donation: d, fundraiser: fundraiserOf(action) } : { donation: d };
}

/** The gift plan of each eligible donation whose donor step succeeded (DONOR_FAILED otherwise). */
function giftItems(
  b: Batch,
  eligible: ReadonlyArray<{ d: ApiDonation; target: string | undefined }>,
  donors: ReadonlyMap<number, DonorResult>,
  hasCampaign: (key: string) => boolean,
  ctx: ProjectionContext,
): GiftItem[] {
  const items: GiftItem[] = [];
  for (const { d, target } of eligible) {
    const key = keyFor('donation', d.id);
    const p = b.byKey.get(key) as DonationProjection;
    const r = donors.get(d.id);
    if (r === undefined) {
      fail(b, key, 'donor', ctx.target.donorObjects.person.object, key, { code: 'DONOR_FAILED', message: 'the donor step returned no decision for this donation' });
      continue;
    }
    Object.assign(p, { donor: r.donor, ...(r.fundraiser ? { fundraiser: r.fundraiser } : {}) });
    p.warnings.push(...r.warnings);
    if (r.error !== undefined) {
      fail(b, key, 'donor', r.error.object, r.error.key, r.error.error);
      fail(b, key, 'gift', ctx.target.gift.object, key, { code: 'DONOR_FAILED', message: `donor ${r.error.key} failed: ${r.error.error.code}` });
      continue;
    }
    const plan = giftOf(
      d,
      { donor: { kind: 'person', key: r.donor.key, person: true, fields: {} }, anonymous: r.anonymous, label: r.label, giftType: r.giftType },
      { timeZone: ctx.timeZone, orgCurrency: ctx.orgCurrency, rules: rulesOf(ctx.target) },
    );
    if ('skip' in plan) continue;
    if (plan.refundDateFallback) p.warnings.push('payment_status_at missing: the refund is dated by updated_at');
    const campaign = target !== undefined && hasCampaign(target) ? target : undefined;
    Object.assign(p, { name: plan.gift.Name, amount: plan.gift.OriginalAmount, date: plan.gift.TransactionDate, ...(campaign ? { campaign } : {}) });
    items.push({ d, key, plan, donors: r, links: linksOf(r), campaign });
  }
  return items;
}

/** The Ids a gift points at: its donor; NPSP's primary contact (the person) and Account (the company, else the person's household). */
function linksOf(r: DonorResult): GiftLinks {
  if (r.giftType === 'Organizational') return { donor: r.donor.id, primaryContact: r.companyPerson?.id, account: r.donor.id };
  return { donor: r.donor.id, primaryContact: r.donor.id, account: r.donor.accountId };
}

/** A step's rows into the batch, and each of its failures under its donation. */
function record(b: Batch, step: StepResult, stage: ProjectionStage, object: ProjectionFailure['object'], donationOf: (key: string) => string): void {
  b.out.rows.push(...step.rows);
  for (const [key, error] of step.failed) fail(b, donationOf(key), stage, object, key, error);
}
