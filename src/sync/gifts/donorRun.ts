/**
 * One batch's donor step: what was read (links, keys, emails), the decision for each donor in the
 * order of N4 (so later donors of the batch see the donors, claims and filled blanks of earlier
 * ones, and the result does not depend on batch size), then the writes: one upsert of the new
 * donors on SvcDonorKey__c, and claims with filled blanks as updates by Id.
 */
import type { CrmError, CrmRecord } from '../../model/crmRecords.js';
import type { DonorPlan } from '../../mapping/gifts/donor.js';
import { decideDonor, fillBlanks, type Candidate } from '../../mapping/gifts/match.js';
import { fold } from '../../mapping/gifts/normalise.js';
import type { AccountBook, AccountRow } from './donorReads.js';
import type { DonorContext, DonorDecisionOut, MatchedBy } from './donors.js';

export type Role = 'donor' | 'companyPerson' | 'fundraiser';

export interface Entry {
  donationId: number;
  role: Role;
  plan: DonorPlan;
}

/** What became of one donor of one donation. */
interface Outcome {
  row: AccountRow;
  planKey: string;
  decision: DonorDecisionOut;
  warnings: string[];
  error?: CrmError | undefined;
}

interface Decided {
  row: AccountRow;
  matchedBy: MatchedBy;
  candidates?: AccountRow[] | undefined;
}

/** A Business Account's fillable fields (§1.4: Name and the Billing address; Name is never filled). */
const BUSINESS_FILL = /^Billing/;

const what: Record<Role, string> = { donor: 'donor', companyPerson: "company's person", fundraiser: 'fundraiser' };

export class DonorRun {
  private readonly byLink = new Map<string, AccountRow>();
  private readonly byKey = new Map<string, AccountRow>();
  /** Keys decided in this run: a later donor with the same key is the same Account. */
  private readonly decided = new Map<string, Decided>();
  private readonly entries: Array<{ entry: Entry; decided: Decided }> = [];
  private readonly at = new Map<string, { entry: Entry; decided: Decided }>();
  private readonly creates: AccountRow[] = [];
  private readonly updates = new Map<AccountRow, { fields: CrmRecord; donationId: number }>();
  private readonly failedUpdates = new Map<AccountRow, CrmError>();
  private readonly errors = new Map<AccountRow, CrmError>();

  constructor(
    private readonly book: AccountBook,
    private readonly ctx: DonorContext,
  ) {}

  /** §6.1 step 1: the links (alive, or merged: followed), then the keys still unresolved, then their emails. */
  async read(entries: readonly Entry[]): Promise<void> {
    const keys = [...new Set(entries.map((e) => e.plan.key))];
    const linked = new Map<string, string>();
    for (const k of keys) {
      const id = this.ctx.links.get(k);
      if (id !== undefined) linked.set(k, id);
    }
    // One query for the links and the keys without one, where it fits; each on its own otherwise.
    await this.book.loadIdsAndKeys(
      [...linked.values()],
      keys.filter((k) => !linked.has(k)),
    );
    await this.book.loadIds([...linked.values()]);
    const alive = await this.book.survivors([...linked.values()]);
    for (const [k, id] of linked) {
      const row = alive.get(id);
      if (row) this.byLink.set(k, row);
    }
    const open = keys.filter((k) => !this.byLink.has(k));
    const holders = await this.book.loadKeys(open);
    const survivors = await this.book.survivors([...holders.values()].map((r) => String(r.Id)));
    for (const k of open) {
      const holder = holders.get(k.toLowerCase());
      const row = holder === undefined ? undefined : survivors.get(String(holder.Id));
      if (row) this.byKey.set(k, row);
    }
    const emails = entries.filter((e) => this.byEmailMayDecide(e.plan)).map((e) => e.plan.match?.email as string);
    await this.book.loadEmails([...new Set(emails)]);
  }

  private byEmailMayDecide(plan: DonorPlan): boolean {
    return this.ctx.matchEmailAndName && plan.kind === 'person' && plan.match !== undefined && fold(plan.match.lastName) !== null && !this.byLink.has(plan.key) && !this.byKey.has(plan.key);
  }

  /** §1.3 for one donor, in N4 order. */
  decide(entry: Entry): void {
    const { plan } = entry;
    const before = this.decided.get(plan.key);
    if (before) {
      // The Account this run already found or creates for the key: found by the key it holds, else by the link made.
      const matchedBy: MatchedBy = before.row.key === plan.key ? 'key' : 'link';
      this.fill(before.row, plan, entry.donationId);
      this.keep(entry, { row: before.row, matchedBy });
      return;
    }
    const candidates = plan.match ? this.book.personsWithEmail(plan.match.email).map(candidateOf) : [];
    const link = this.byLink.get(plan.key);
    const byKey = this.byKey.get(plan.key);
    const d = decideDonor(plan, { link: link?.id, byKey: byKey?.id, byEmail: candidates }, this.ctx.matchEmailAndName);
    let decided: Decided;
    if (d.id !== undefined) {
      const row = (d.matchedBy === 'link' ? link : d.matchedBy === 'key' ? byKey : this.book.row(d.id)) as AccountRow;
      // A step-3 hit, or a merge survivor, without a key gets this one (N5, §1.6); a key is never replaced.
      if (row.key === null) {
        row.key = plan.key;
        this.updateFor(row, entry.donationId).SvcDonorKey__c = plan.key;
      }
      this.fill(row, plan, entry.donationId);
      decided = { row, matchedBy: d.matchedBy };
    } else {
      const row = this.book.addPending(plan.key, plan.person, plan.fields);
      this.creates.push(row);
      const rows = (d.candidates ?? []).map((id) => this.book.row(id)).filter((r): r is AccountRow => r !== undefined);
      decided = { row, matchedBy: d.matchedBy, candidates: d.matchedBy === 'ambiguous' ? rows : undefined };
    }
    this.decided.set(plan.key, decided);
    this.keep(entry, decided);
  }

  private keep(entry: Entry, decided: Decided): void {
    this.entries.push({ entry, decided });
    this.at.set(`${entry.donationId}:${entry.role}`, { entry, decided });
  }

  /** N6: blanks of the Account filled from this donor's fields, once, by the first donor that has them. */
  private fill(row: AccountRow, plan: DonorPlan, donationId: number): void {
    // A fill never sends the other kind's fields; a Business Account gets no Phone (§0, §1.4).
    const own = Object.fromEntries(Object.entries(plan.fields).filter(([f]) => (row.person ? !BUSINESS_FILL.test(f) : BUSINESS_FILL.test(f))));
    const filled = fillBlanks(row.values, own);
    if (Object.keys(filled).length === 0) return;
    Object.assign(row.values, filled);
    if (filled.PersonEmail !== undefined) this.book.emailChanged(row);
    if (!row.pending) Object.assign(this.updateFor(row, donationId), filled);
  }

  private updateFor(row: AccountRow, donationId: number): CrmRecord {
    let u = this.updates.get(row);
    if (!u) {
      u = { fields: {}, donationId };
      this.updates.set(row, u);
    }
    return u.fields;
  }

  /** §6.1 step 2: one upsert of the new donors, then one update of claims and filled blanks. */
  async write(): Promise<void> {
    const { person, business } = this.ctx.recordTypes;
    const records = this.creates.map((r): CrmRecord => ({ RecordTypeId: r.person ? person : business, ...r.values, SvcDonorKey__c: r.key }));
    const byKey = new Map(this.creates.map((r) => [r.key as string, r]));
    for (const o of await this.ctx.sink.upsertOn('Account', 'SvcDonorKey__c', records)) {
      const row = byKey.get(o.key);
      if (row === undefined) continue;
      if (o.status === 'failed') this.errors.set(row, o.error);
      else Object.assign(row, { id: o.id, pending: false });
    }
    const rows = [...this.updates.keys()];
    const outcomes = await this.ctx.sink.updateByIds(
      'Account',
      rows.map((r) => ({ ...(this.updates.get(r)?.fields ?? {}), Id: r.id })),
    );
    outcomes.forEach((o, i) => {
      if (o.status === 'failed') this.failedUpdates.set(rows[i] as AccountRow, o.error);
    });
  }

  /** Every key decided is linked to its Account (a merged loser's key to the survivor). */
  saveLinks(): void {
    for (const { entry, decided } of this.entries) {
      if (!decided.row.pending && !this.errors.has(decided.row)) this.ctx.links.set(entry.plan.key, decided.row.id);
    }
  }

  outcome(donationId: number, role: Role): Outcome | undefined {
    const at = this.at.get(`${donationId}:${role}`);
    if (at === undefined) return undefined;
    const { entry, decided } = at;
    const { row } = decided;
    const decision: DonorDecisionOut = { matchedBy: decided.matchedBy, key: row.key ?? entry.plan.key };
    if (!row.pending) decision.id = row.id;
    const warnings: string[] = [];
    if (decided.candidates) {
      decision.candidates = decided.candidates.map((c) => c.id);
      warnings.push(`Donation_${donationId}: ${what[entry.role]} matches ${decided.candidates.length} accounts by email and name, so a new one is made; merge them: ${decision.candidates.join(', ')}`);
    }
    const failed = this.failedUpdates.get(row);
    if (failed && this.updates.get(row)?.donationId === donationId)
      warnings.push(`Donation_${donationId}: ${what[entry.role]} Account ${row.id}: key or blank fields not written: ${failed.code}: ${failed.message}`);
    return { row, planKey: entry.plan.key, decision, warnings, error: this.errors.get(row) };
  }
}

const candidateOf = (r: AccountRow): Candidate => ({ id: r.id, firstName: r.values.FirstName ?? null, lastName: r.values.LastName ?? null, email: r.values.PersonEmail ?? null, key: r.key });
