/**
 * The donor decision of PROJECTION.md §1.3 (appendix N4-N6, N8) as a pure function of what the
 * writer's reads found: a stored link, a record holding the key, and the Person Accounts sharing
 * the donation's email (those created earlier in the same run included). Names never match alone.
 */
import type { DonorPlan } from './donor.js';
import type { FillRule } from './target.js';
import { firstNamesCompatible, fold } from './normalise.js';

/** A person record found by email (step 3): a Person Account, or an NPSP Contact with its four email fields. */
export interface Candidate {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  /** NPSP (P5): the record's other email fields, compared as the first. */
  otherEmails?: ReadonlyArray<string | null> | undefined;
  key: string | null;
}

const holdsEmail = (c: Candidate, email: string): boolean => [c.email, ...(c.otherEmails ?? [])].some((e) => e?.trim().toLowerCase() === email);

type MatchedBy = 'link' | 'key' | 'email+name' | 'new' | 'anonymousPool' | 'noKey' | 'ambiguous';

interface DonorDecision {
  matchedBy: MatchedBy;
  /** The record used; absent when a new donor is created. */
  id?: string | undefined;
  /** Step 3 hit on a record without a key: its SvcDonorKey__c is set (N5). */
  claim?: boolean | undefined;
  /** The candidates of an ambiguous match, listed for the admin. */
  candidates?: string[] | undefined;
}

interface Found {
  link?: string | undefined;
  byKey?: string | undefined;
  byEmail: readonly Candidate[];
}

/** Steps 1-3 in order; `emailAndName` false is SVC_MATCH_EMAIL_NAME=false (step 3 off). */
export function decideDonor(plan: DonorPlan, found: Found, emailAndName = true): DonorDecision {
  if (found.link !== undefined) return { matchedBy: 'link', id: found.link };
  if (found.byKey !== undefined) return { matchedBy: 'key', id: found.byKey };
  if (plan.kind === 'anonymousPool') return { matchedBy: 'anonymousPool' };
  if (plan.kind === 'noKey') return { matchedBy: 'noKey' };
  const m = plan.match;
  if (plan.kind !== 'person' || m === undefined || !emailAndName || fold(m.lastName) === null) return { matchedBy: 'new' };
  const hits = found.byEmail.filter((c) => holdsEmail(c, m.email) && fold(c.lastName) === fold(m.lastName) && firstNamesCompatible(c.firstName, m.firstName));
  if (hits.length === 1) {
    const hit = hits[0] as Candidate;
    return { matchedBy: 'email+name', id: hit.id, claim: hit.key === null || hit.key.trim() === '' };
  }
  if (hits.length > 1) return { matchedBy: 'ambiguous', candidates: hits.map((c) => c.id) };
  return { matchedBy: 'new' };
}

export const NPC_FILL: FillRule = {
  single: ['Phone', 'PersonEmail'],
  blocks: [
    ['PersonMailingStreet', 'PersonMailingPostalCode', 'PersonMailingCity', 'PersonMailingCountry'],
    ['BillingStreet', 'BillingPostalCode', 'BillingCity', 'BillingCountry'],
  ],
};

const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * N6 (P4 for NPSP): on a hit, only blank fields are filled: Phone and PersonEmail one by one, an
 * address (NPSP: also the three email fields) only as a whole block when all of its fields are
 * blank. Names and birthdate never change. `rule`: the target's (default Nonprofit Cloud's).
 */
export function fillBlanks(existing: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, string>>, rule: FillRule = NPC_FILL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of rule.single) {
    const v = fields[name];
    if (v !== undefined && blank(existing[name])) out[name] = v;
  }
  for (const block of rule.blocks) {
    if (!block.every((f) => blank(existing[f])) || !block.some((f) => fields[f] !== undefined)) continue;
    for (const f of block) if (fields[f] !== undefined) out[f] = fields[f] as string;
  }
  return out;
}
