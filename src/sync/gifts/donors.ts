/**
 * Who each gift is from (PROJECTION.md §1, §6.1 steps 1-2, appendix N4-N12): the donors of a batch
 * of donations matched in the documented order (stored link, key, email + full last name +
 * compatible first name; never a name alone), merges followed to the survivor, new donors created
 * in one upsert, claims and filled blanks written by Id. The seam the gift writer calls.
 */
import type { ApiDonation, ApiUser } from '../../model/apiRecords.js';
import type { CrmError } from '../../model/crmRecords.js';
import type { GiftObject } from '../../model/objects.js';
import { donorsOf, fundraiserDonor, type DonationDonors, type DonorPlan } from '../../mapping/gifts/donor.js';
import type { DonorContext, DonorDecisionOut } from './donorContext.js';
import { DonorRun, type Entry, type Role } from './donorRun.js';

/** What the run knows of a donation's fundraiser (N12): the action owner and their user record. */
export interface FundraiserInput {
  owner: { first_name?: string | null; infix?: string | null; last_name?: string | null; email?: string | null };
  user?: ApiUser | undefined;
}
export interface DonorInput {
  donation: ApiDonation;
  /** Present only when the donation's target is an action the platform has (N12). */
  fundraiser?: FundraiserInput | undefined;
}
export interface DonorResult {
  donationId: number;
  /** The gift's donor (DonorId). */
  donor: DonorDecisionOut;
  /** N9: a company donation's person (no gift). */
  companyPerson?: DonorDecisionOut;
  /** N12: absent = no slot (no fundraiser, no valid email, or the same Account as the donor). */
  fundraiser?: DonorDecisionOut;
  /** SvcAnonymous__c. */
  anonymous: boolean;
  /** The gift Name's label. */
  label: string;
  giftType: 'Individual' | 'Organizational';
  /** One line each (ambiguous: lists the candidates to merge). */
  warnings: string[];
  /**
   * The donor step failed (the donor's, the company person's or the fundraiser's Account was
   * refused): the gift, slot and refund are not written (DONOR_FAILED), so a slot is never
   * deleted for a fundraiser who could not be written. A claim or fill refused is a warning only.
   */
  error?: { stage: 'donor'; object: GiftObject; key: string; error: CrmError } | undefined;
}
interface Planned {
  donationId: number;
  donors: DonationDonors;
  fundraiser?: DonorPlan | undefined;
}

function planOf(input: DonorInput, ctx: DonorContext): Planned {
  const donors = donorsOf(input.donation, ctx.siteId, ctx.anonymousLastName);
  const f = input.fundraiser;
  return { donationId: input.donation.id, donors, fundraiser: f ? fundraiserDonor(f.owner, f.user) : undefined };
}

/** N4: per donation, the hard-credit donor, then the company's person, then the fundraiser. */
function entriesOf(p: Planned): Entry[] {
  const out: Entry[] = [{ donationId: p.donationId, role: 'donor', plan: p.donors.donor }];
  if (p.donors.companyPerson) out.push({ donationId: p.donationId, role: 'companyPerson', plan: p.donors.companyPerson });
  if (p.fundraiser) out.push({ donationId: p.donationId, role: 'fundraiser', plan: p.fundraiser });
  return out;
}

/**
 * Donations in ascending id (N4); one result per donation (the caller has filtered N2/N3). Reads run
 * in a dry run too; nothing is written then and new donors come back without an Id. A record
 * Salesforce refuses becomes its donations' `error`; a fatal error (session, limits) is thrown.
 */
export async function resolveDonors(inputs: readonly DonorInput[], ctx: DonorContext): Promise<Map<number, DonorResult>> {
  const planned = [...inputs].sort((a, b) => a.donation.id - b.donation.id).map((i) => planOf(i, ctx));
  const entries = planned.flatMap(entriesOf);
  const run = await settledDonors(entries, ctx);
  const out = new Map<number, DonorResult>();
  for (const p of planned) out.set(p.donationId, resultOf(p, run, ctx));
  return out;
}

function resultOf(p: Planned, run: DonorRun, ctx: DonorContext): DonorResult {
  const id = p.donationId;
  const donor = run.outcome(id, 'donor');
  const warnings: string[] = [];
  const roles: Role[] = ['donor', 'companyPerson', 'fundraiser'];
  let error: DonorResult['error'];
  for (const role of roles) {
    const o = run.outcome(id, role);
    if (o === undefined) continue;
    warnings.push(...o.warnings);
    if (o.error && error === undefined) error = { stage: 'donor', object: o.object, key: o.planKey, error: o.error };
  }
  const result: DonorResult = {
    donationId: id,
    donor: (donor as NonNullable<typeof donor>).decision,
    anonymous: p.donors.anonymous,
    label: p.donors.label,
    giftType: p.donors.giftType,
    warnings,
    error,
  };
  const person = run.outcome(id, 'companyPerson');
  if (person) result.companyPerson = person.decision;
  const fundraiser = run.outcome(id, 'fundraiser');
  // §4: no slot when the fundraiser is the hard donor's own record (their own start donation), or
  // (NPSP, P9) the gift's primary contact.
  const primary = ctx.target.companyPersonIsPrimary ? person?.row : undefined;
  if (fundraiser && fundraiser.row !== donor?.row && fundraiser.row !== primary) result.fundraiser = fundraiser.decision;
  return result;
}

/** A page's owner as its fundraiser, decided alone (no donation): their record, or why there is none. */
export interface FundraiserResult {
  /** Absent: no valid email, so no slot (N12). */
  decision?: DonorDecisionOut | undefined;
  warnings: string[];
  error?: { object: GiftObject; key: string; error: CrmError } | undefined;
}

/**
 * The owners of pages whose owner changed (by page id), matched and written as any fundraiser is
 * (§1.3), in one donor run: a later page's owner sees the Accounts decided for earlier ones.
 */
export async function resolveFundraisers(pages: ReadonlyMap<number, FundraiserInput>, ctx: DonorContext): Promise<Map<number, FundraiserResult>> {
  const ids = [...pages.keys()].sort((a, b) => a - b);
  const entries: Entry[] = [];
  for (const id of ids) {
    const f = pages.get(id) as FundraiserInput;
    const plan = fundraiserDonor(f.owner, f.user);
    if (plan) entries.push({ donationId: id, role: 'fundraiser', plan });
  }
  const run = await settledDonors(entries, ctx);
  const out = new Map<number, FundraiserResult>();
  for (const id of ids) {
    const o = run.outcome(id, 'fundraiser');
    // The run words its lines by donation; here the number is the page's.
    const warnings = (o?.warnings ?? []).map((w) => w.replace(/^Donation_\d+: /, `Action_${id}: `));
    out.set(id, o === undefined ? { warnings } : { decision: o.decision, warnings, ...(o.error ? { error: { object: o.object, key: o.planKey, error: o.error } } : {}) });
  }
  return out;
}

/** Reads the donors of `entries`, decides each, and (not in a dry run) writes them and keeps their links. */
async function settledDonors(entries: Parameters<DonorRun['read']>[0], ctx: DonorContext): Promise<DonorRun> {
  const run = new DonorRun(ctx.sink, ctx);
  await run.read(entries);
  for (const e of entries) run.decide(e);
  if (!ctx.dryRun) {
    await run.write();
    run.saveLinks();
  }
  return run;
}
