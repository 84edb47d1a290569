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
import type { DonorObjectSpec } from '../../mapping/gifts/target.js';
import type { GiftObject } from '../../model/objects.js';
import type { GiftSink } from '../../model/ports.js';
import { AccountBook, type AccountRow } from './donorReads.js';
import { queryIn } from './soqlIn.js';
import type { DonorContext, DonorDecisionOut, MatchedBy } from './donorContext.js';

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
  /** The donor object the record is of. */
  object: GiftObject;
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
  /** The book of each donor kind (one book for both in NPC, whose persons and companies are Accounts). */
  private readonly books: { person: AccountBook; organisation: AccountBook };
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
    sink: GiftSink,
    private readonly ctx: DonorContext,
  ) {
    const { person, organisation } = ctx.target.donorObjects;
    const personBook = new AccountBook(sink, person);
    this.books = { person: personBook, organisation: organisation === person ? personBook : new AccountBook(sink, organisation) };
  }

  private bookOf(person: boolean): AccountBook {
    return person ? this.books.person : this.books.organisation;
  }

  /** A plan's fields as the target's object names them (NPSP: a Contact's, P3). */
  private fieldsOf(plan: DonorPlan): Record<string, string> {
    return plan.person ? this.ctx.target.personFields(plan.fields) : { ...plan.fields };
  }

  /** §6.1 step 1: per donor object, the links (alive, or merged: followed), then the keys still unresolved, then their emails. */
  async read(entries: readonly Entry[]): Promise<void> {
    const { person, organisation } = this.books;
    if (person === organisation) return this.readBook(person, entries);
    await this.readBook(
      person,
      entries.filter((e) => e.plan.person),
    );
    await this.readBook(
      organisation,
      entries.filter((e) => !e.plan.person),
    );
  }

  private async readBook(book: AccountBook, entries: readonly Entry[]): Promise<void> {
    const keys = [...new Set(entries.map((e) => e.plan.key))];
    const linked = new Map<string, string>();
    for (const k of keys) {
      const id = this.ctx.links.get(k);
      if (id !== undefined) linked.set(k, id);
    }
    // One query for the links and the keys without one, where it fits; each on its own otherwise.
    await book.loadIdsAndKeys(
      [...linked.values()],
      keys.filter((k) => !linked.has(k)),
    );
    await book.loadIds([...linked.values()]);
    const alive = await book.survivors([...linked.values()]);
    for (const [k, id] of linked) {
      const row = alive.get(id);
      if (row) this.byLink.set(k, row);
    }
    const open = keys.filter((k) => !this.byLink.has(k));
    // NPSP's four email fields make the email read the longest: it goes with the keys (fuller queries).
    if (book.spec.emailFields.length > 1) await book.loadKeysWithEmails(open, this.emailsOf(entries, false));
    const holders = await book.loadKeys(open);
    const survivors = await book.survivors([...holders.values()].map((r) => String(r.Id)));
    for (const k of open) {
      const holder = holders.get(k.toLowerCase());
      const row = holder === undefined ? undefined : survivors.get(String(holder.Id));
      if (row) this.byKey.set(k, row);
    }
    await book.loadEmails(this.emailsOf(entries, true));
  }

  /** The emails step 3 may need: of the donors no link found (`afterKeys`: and no key either). */
  private emailsOf(entries: readonly Entry[], afterKeys: boolean): string[] {
    return [...new Set(entries.filter((e) => this.byEmailMayDecide(e.plan, afterKeys)).map((e) => e.plan.match?.email as string))];
  }

  private byEmailMayDecide(plan: DonorPlan, afterKeys: boolean): boolean {
    const found = this.byLink.has(plan.key) || (afterKeys && this.byKey.has(plan.key));
    return this.ctx.matchEmailAndName && plan.kind === 'person' && plan.match !== undefined && fold(plan.match.lastName) !== null && !found;
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
    const book = this.bookOf(plan.person);
    const spec = book.spec;
    const candidates = plan.match ? book.personsWithEmail(plan.match.email).map((r) => candidateOf(r, spec.emailFields)) : [];
    const link = this.byLink.get(plan.key);
    const byKey = this.byKey.get(plan.key);
    const d = decideDonor(plan, { link: link?.id, byKey: byKey?.id, byEmail: candidates }, this.ctx.matchEmailAndName);
    let decided: Decided;
    if (d.id !== undefined) {
      const row = (d.matchedBy === 'link' ? link : d.matchedBy === 'key' ? byKey : book.row(d.id)) as AccountRow;
      // A step-3 hit, or a merge survivor, without a key gets this one (N5, §1.6); a key is never replaced.
      if (row.key === null) {
        row.key = plan.key;
        this.updateFor(row, entry.donationId).SvcDonorKey__c = plan.key;
      }
      this.fill(row, plan, entry.donationId);
      decided = { row, matchedBy: d.matchedBy };
    } else {
      const row = book.addPending(plan.key, plan.person, this.fieldsOf(plan));
      this.creates.push(row);
      const rows = (d.candidates ?? []).map((id) => book.row(id)).filter((r): r is AccountRow => r !== undefined);
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
    const own = Object.fromEntries(Object.entries(this.fieldsOf(plan)).filter(([f]) => (row.person ? !BUSINESS_FILL.test(f) : BUSINESS_FILL.test(f))));
    const filled = fillBlanks(row.values, own, this.ctx.target.fill);
    if (Object.keys(filled).length === 0) return;
    Object.assign(row.values, filled);
    const book = this.bookOf(row.person);
    if (book.spec.emailFields.some((f) => filled[f] !== undefined)) book.emailChanged(row);
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

  /** §6.1 step 2: per donor object, one upsert of the new donors, then one update of claims and filled blanks. */
  async write(): Promise<void> {
    const { person, organisation } = this.ctx.target.donorObjects;
    for (const spec of person === organisation ? [person] : [person, organisation]) await this.writeObject(spec);
  }

  private async writeObject(spec: DonorObjectSpec): Promise<void> {
    const mine = (r: AccountRow): boolean => this.bookOf(r.person).spec === spec;
    const { person, business } = this.ctx.recordTypes;
    const creates = this.creates.filter(mine);
    const typeOf = (r: AccountRow): CrmRecord => {
      const id = r.person ? person : business;
      return id === undefined ? {} : { RecordTypeId: id };
    };
    const records = creates.map((r): CrmRecord => ({ ...typeOf(r), ...r.values, SvcDonorKey__c: r.key }));
    const byKey = new Map(creates.map((r) => [r.key as string, r]));
    for (const o of await this.ctx.sink.upsertOn(spec.object, 'SvcDonorKey__c', records)) {
      const row = byKey.get(o.key);
      if (row === undefined) continue;
      if (o.status === 'failed') this.errors.set(row, o.error);
      else Object.assign(row, { id: o.id, pending: false });
    }
    if (spec.valueFields.includes('AccountId')) await this.readAccounts(creates.filter((r) => !r.pending));
    const rows = [...this.updates.keys()].filter(mine);
    const outcomes = await this.ctx.sink.updateByIds(
      spec.object,
      rows.map((r) => ({ ...(this.updates.get(r)?.fields ?? {}), Id: r.id })),
    );
    outcomes.forEach((o, i) => {
      if (o.status === 'failed') this.failedUpdates.set(rows[i] as AccountRow, o.error);
    });
  }

  /** §1.4 NPSP: the Household Account NPSP gave each new Contact (none without its automation), read back. */
  private async readAccounts(created: readonly AccountRow[]): Promise<void> {
    if (created.length === 0) return;
    const byId = new Map(created.map((r) => [r.id, r]));
    for (const r of await queryIn(this.ctx.sink, { fields: ['Id', 'AccountId'], object: 'Contact', field: 'Id', values: [...byId.keys()] })) {
      const row = byId.get(String(r.Id));
      if (row && typeof r.AccountId === 'string' && r.AccountId !== '') row.values.AccountId = r.AccountId;
    }
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
    if (row.values.AccountId !== undefined) decision.accountId = row.values.AccountId;
    const warnings: string[] = [];
    if (decided.candidates) {
      decision.candidates = decided.candidates.map((c) => c.id);
      warnings.push(`Donation_${donationId}: ${what[entry.role]} matches ${decided.candidates.length} accounts by email and name, so a new one is made; merge them: ${decision.candidates.join(', ')}`);
    }
    const failed = this.failedUpdates.get(row);
    if (failed && this.updates.get(row)?.donationId === donationId)
      warnings.push(`Donation_${donationId}: ${what[entry.role]} ${this.bookOf(row.person).spec.object} ${row.id}: key or blank fields not written: ${failed.code}: ${failed.message}`);
    return { row, planKey: entry.plan.key, object: this.bookOf(row.person).spec.object, decision, warnings, error: this.errors.get(row) };
  }
}

const candidateOf = (r: AccountRow, emailFields: readonly string[]): Candidate => {
  const [email, ...others] = emailFields.map((f) => r.values[f] ?? null);
  return { id: r.id, firstName: r.values.FirstName ?? null, lastName: r.values.LastName ?? null, email: email ?? null, otherEmails: others, key: r.key };
};
