/**
 * A page's owner changed (PROJECTION.md §4, N12): the gifts already given on the page keep their
 * donation, but their fundraiser slot follows the owner as the mirror now holds them, in the same
 * run that updated the page's row, whatever the run (incremental, serve, object, replay). The gifts
 * are found in Salesforce by the page's campaign, 200 at a time in Id order (one query each), never
 * by reading their donations from the platform; each page of gifts is one slot read and at most one
 * delete and one upsert. A slot is never moved or deleted for an owner who could not be written.
 */
import type { Changes } from '../../model/outcomes.js';
import type { CrmRecord } from '../../model/crmRecords.js';
import { fundraiserOf, OWNER_FIELDS, type TreeRow } from './campaignRows.js';
import type { DonorContext } from './donorContext.js';
import { resolveFundraisers, type FundraiserResult } from './donors.js';
import type { BatchProjection, ProjectionFailure } from './outcome.js';
import { readIn } from './reads.js';
import { slotKey, writeSlots, type SlotPlan } from './softCredits.js';
import { queryInPages } from './soqlIn.js';

/** The fields of an action's row its fundraiser's key is made of (§1.2): a change of another moves no slot. */
const KEY_FIELDS = ['FirstName__c', 'Infix__c', 'LastName__c', 'Email__c'];
/** Gifts read and their slots written per round: one collection. */
const GIFTS_PER_PAGE = 200;

/** Whether a page's update changed who its fundraiser is. */
export const ownerChanged = (changes: Changes | undefined): boolean => changes !== undefined && KEY_FIELDS.some((f) => f in changes);

/** One slot that moves (a dry run: would move): the gift's donation, its page, and the fundraiser it now credits (none: deleted). */
export interface SlotMove {
  donation: string;
  page: string;
  action: 'insert' | 'update' | 'delete';
  to?: string | undefined;
}

interface OwnerSlots {
  out: BatchProjection;
  moves: SlotMove[];
}

/**
 * The slots of every gift on these pages (action keys, each with its update's changes) made for
 * the owner each page has now. The page's row is read from the mirror; in a dry run the mirror
 * has not been written, so the update's new values are laid over it.
 */
export async function moveOwnerSlots(pages: ReadonlyMap<string, Changes>, ctx: DonorContext): Promise<OwnerSlots> {
  const result: OwnerSlots = { out: { donations: [], rows: [], failures: [], warnings: [] }, moves: [] };
  const keys = [...pages.keys()];
  if (keys.length === 0) return result;
  // A page with gifts has a campaign (§3.1, lazy): none, no gift to move.
  const campaigns = new Map<string, string>();
  for (const c of await readIn(ctx.sink, 'Campaign', ['Id', 'SvcCampaignKey__c'], 'SvcCampaignKey__c', keys)) {
    if (typeof c.Id === 'string' && typeof c.SvcCampaignKey__c === 'string') campaigns.set(c.Id, c.SvcCampaignKey__c);
  }
  if (campaigns.size === 0) return result;
  const owners = new Map<number, ReturnType<typeof fundraiserOf>>();
  for (const row of await readIn(ctx.sink, 'Svc_Action__c', ['Id', 'SvcId__c', ...OWNER_FIELDS], 'SvcId__c', [...campaigns.values()])) {
    const key = String(row.SvcId__c);
    const now: CrmRecord = { ...row };
    for (const [f, c] of Object.entries(pages.get(key) ?? {})) if (OWNER_FIELDS.includes(f)) now[f] = c.to;
    owners.set(pageId(key), fundraiserOf({ level: 'action', key, row: now } satisfies TreeRow));
  }
  const fundraisers = await resolveFundraisers(owners, ctx);
  for (const f of fundraisers.values()) result.out.warnings.push(...f.warnings);
  const said = new Set<string>();
  const t = ctx.target;
  await queryInPages(
    ctx.sink,
    { fields: ['Id', 'SvcGiftKey__c', 'CampaignId', t.slot.selfField], object: t.gift.object, field: 'CampaignId', values: [...campaigns.keys()] },
    GIFTS_PER_PAGE,
    async (gifts) => {
      const plans: SlotPlan[] = [];
      const pageOf = new Map<string, string>();
      for (const g of gifts) {
        const page = campaigns.get(String(g.CampaignId));
        // A gift without svc-sync's key is an admin's: never touched.
        if (typeof g.SvcGiftKey__c !== 'string' || page === undefined) continue;
        const f = fundraisers.get(pageId(page));
        if (f?.error !== undefined) {
          ownerFailed(result.out, g.SvcGiftKey__c, f, t.slot.object, !said.has(page));
          said.add(page);
          continue;
        }
        pageOf.set(g.SvcGiftKey__c, page);
        plans.push({ giftKey: g.SvcGiftKey__c, giftId: String(g.Id), to: slotTo(f, g[t.slot.selfField]) });
      }
      const step = await writeSlots(ctx.sink, t, plans, ctx.dryRun);
      result.out.rows.push(...step.rows);
      for (const [key, error] of step.failed) result.out.failures.push({ donation: donationOf(key), stage: 'softCredit', object: t.slot.object, key, error });
      const to = new Map(plans.map((p) => [slotKey(p.giftKey), p.to?.key]));
      for (const r of step.rows) {
        if (r.action !== 'insert' && r.action !== 'update' && r.action !== 'delete') continue;
        const donation = donationOf(r.key);
        result.moves.push({ donation, page: pageOf.get(donation) ?? '', action: r.action, ...(r.action === 'delete' ? {} : { to: to.get(r.key) }) });
      }
    },
  );
  return result;
}

const pageId = (key: string): number => Number(key.replace(/^Action_/, ''));
const donationOf = (slot: string): string => slot.replace(/:fundraiser$/, '');

/** The fundraiser a gift's slot goes to: none without a valid email, or when they are the gift's own donor (§4). */
function slotTo(f: FundraiserResult | undefined, self: unknown): SlotPlan['to'] {
  const d = f?.decision;
  if (d === undefined || (d.id !== undefined && d.id === self)) return undefined;
  return { key: d.key, id: d.id };
}

/** The owner's record was refused: the gift's slot stays as it is and fails (retried by its donation next run). */
function ownerFailed(out: BatchProjection, gift: string, f: FundraiserResult, slotObject: ProjectionFailure['object'], first: boolean): void {
  const e = f.error as NonNullable<FundraiserResult['error']>;
  // The owner's own failure once, under the first gift on the page; each gift's slot after.
  if (first) out.failures.push({ donation: gift, stage: 'donor', object: e.object, key: e.key, error: e.error });
  out.failures.push({ donation: gift, stage: 'softCredit', object: slotObject, key: slotKey(gift), error: { code: 'DONOR_FAILED', message: `fundraiser ${e.key} failed: ${e.error.code}` } });
}
