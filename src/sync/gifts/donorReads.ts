/**
 * The donor step's reads (PROJECTION.md §6.1 step 1): the linked Ids, the keys still unresolved
 * and the emails of person donors still unresolved, each one query (split only by URL length).
 * Links and keys are read through queryAll, so a merged loser is seen with its MasterRecordId and
 * followed to the survivor, along a chain of merges too (§1.6).
 */
import type { CrmRecord } from '../../model/crmRecords.js';
import type { DonorObjectSpec } from '../../mapping/gifts/target.js';
import type { GiftSink } from '../../model/ports.js';
import { NPC_TARGET } from '../../mapping/gifts/npcTarget.js';
import { queryEither, queryIn, queryInAny, queryPacked } from './soqlIn.js';

/** A merge chain longer than this is taken as a loop (a damaged org), not followed further. */
const MAX_MERGE_HOPS = 10;

/** An Account as this run knows it: read, or about to be created (pending), with this run's claims and fills applied. */
export interface AccountRow {
  /** The Salesforce Id; for a pending row `(new <key>)` until the upsert answers. */
  id: string;
  pending: boolean;
  person: boolean;
  /** SvcDonorKey__c as it will stand after this run's claims. */
  key: string | null;
  /** The matched and filled fields (VALUE_FIELDS), as they will stand after this run's writes. */
  values: Record<string, string>;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

function rowOf(spec: DonorObjectSpec, r: CrmRecord): AccountRow {
  const values: Record<string, string> = {};
  for (const f of spec.valueFields) {
    const v = text(r[f]);
    if (v !== null) values[f] = v;
  }
  return { id: String(r.Id), pending: false, person: spec.person === 'IsPersonAccount' ? r.IsPersonAccount === true : spec.person, key: text(r.SvcDonorKey__c), values };
}

/** The donor records (of one object) this run has read, by Id, deleted ones too (merged losers point at their survivor). */
export class AccountBook {
  private readonly fields: readonly string[];
  private readonly read = new Map<string, CrmRecord>();
  /** Ids asked for (found or not), so a gone Id is not asked again. */
  private readonly asked = new Set<string>();
  /** Live rows by Id, each one object for the whole run, so claims and fills are seen by later donors. */
  private readonly live = new Map<string, AccountRow>();
  /** Live Person Accounts by email in lower case (step 3's candidates), kept as rows are added or filled. */
  private readonly byEmail = new Map<string, Set<AccountRow>>();

  constructor(
    private readonly sink: GiftSink,
    readonly spec: DonorObjectSpec = NPC_TARGET.donorObjects.person,
  ) {
    this.fields = ['Id', 'IsDeleted', 'MasterRecordId', ...(spec.person === 'IsPersonAccount' ? ['IsPersonAccount'] : []), 'SvcDonorKey__c', ...spec.valueFields];
  }

  private keep(rows: readonly CrmRecord[]): void {
    for (const r of rows) {
      const id = String(r.Id);
      this.read.set(id, r);
      if (r.IsDeleted !== true && !this.live.has(id)) this.add(rowOf(this.spec, r));
    }
  }

  /** Keys (lower case) whose holders were all read by one query already. */
  private readonly keysAsked = new Set<string>();

  /**
   * The links and the keys of the donors without one in one query (queryAll): all the links and as
   * many keys as fit a URL, the rest left to loadKeys. Nothing is read here when no key fits.
   */
  async loadIdsAndKeys(ids: readonly string[], keys: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.read.has(id) && !this.asked.has(id));
    if (missing.length === 0 || keys.length === 0) return;
    const got = await queryEither(this.sink, { fields: this.fields, object: this.spec.object, field: 'Id', values: missing, or: { field: 'SvcDonorKey__c', values: keys } }, true);
    if (got === undefined) return;
    for (const id of missing) this.asked.add(id);
    for (const k of got.asked) this.keysAsked.add(k.toLowerCase());
    this.keep(got.rows);
  }

  /** Reads the Ids not read yet (queryAll: a merged loser too). */
  async loadIds(ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.read.has(id) && !this.asked.has(id));
    for (const id of missing) this.asked.add(id);
    if (missing.length > 0) this.keep(await queryIn(this.sink, { fields: this.fields, object: this.spec.object, field: 'Id', values: missing }, true));
  }

  /** The rows holding these keys (queryAll), by key in lower case: a live row, else a merged loser. */
  async loadKeys(keys: readonly string[]): Promise<Map<string, CrmRecord>> {
    const byKey = new Map<string, CrmRecord>();
    if (keys.length === 0) return byKey;
    const ask = keys.filter((k) => !this.keysAsked.has(k.toLowerCase()));
    if (ask.length > 0) this.keep(await queryIn(this.sink, { fields: this.fields, object: this.spec.object, field: 'SvcDonorKey__c', values: ask }, true));
    // Every holder of an asked key has been read (by this query or loadIdsAndKeys's).
    const wanted = new Set(keys.map((k) => k.toLowerCase()));
    for (const r of this.read.values()) {
      const k = text(r.SvcDonorKey__c)?.toLowerCase();
      if (k === undefined || !wanted.has(k)) continue;
      const had = byKey.get(k);
      if (r.IsDeleted !== true || had === undefined || (had.IsDeleted === true && text(had.MasterRecordId) === null)) byKey.set(k, r);
    }
    return byKey;
  }

  /** Emails (lower case) whose holders were read with the keys already (loadKeysWithEmails). */
  private readonly emailsAsked = new Set<string>();

  /**
   * NPSP (four email fields, each list sent four times, the longest read of a batch): the keys not
   * asked yet and the emails of their donors, packed into as few queries as fit (queryAll), so the
   * tail of one list shares a query with the next. An email whose donor the key then finds was
   * read for nothing; the candidates it adds are those a donor with that email would read anyway.
   */
  async loadKeysWithEmails(keys: readonly string[], emails: readonly string[]): Promise<void> {
    const ask = keys.filter((k) => !this.keysAsked.has(k.toLowerCase()));
    const mail = emails.filter((e) => !this.emailsAsked.has(e.toLowerCase()));
    if (ask.length === 0 || this.spec.emailFields.length === 0) return;
    const lists = [
      { anyOf: ['SvcDonorKey__c'], values: ask },
      { anyOf: this.spec.emailFields, values: mail },
    ];
    this.keep(await queryPacked(this.sink, { fields: this.fields, object: this.spec.object, lists }, true));
    for (const k of ask) this.keysAsked.add(k.toLowerCase());
    for (const e of mail) this.emailsAsked.add(e.toLowerCase());
  }

  /** Persons holding these emails in any email field (live only: a deleted record is no candidate). */
  async loadEmails(all: readonly string[]): Promise<void> {
    const [only, ...more] = this.spec.emailFields;
    const emails = all.filter((e) => !this.emailsAsked.has(e.toLowerCase()));
    if (emails.length === 0 || only === undefined) return;
    const q = { fields: this.fields, object: this.spec.object, values: emails };
    if (more.length > 0) this.keep(await queryInAny(this.sink, { ...q, anyOf: this.spec.emailFields }));
    else this.keep(await queryIn(this.sink, { ...q, field: only, ...(this.spec.person === 'IsPersonAccount' ? { and: 'IsPersonAccount = true' } : {}) }));
  }

  /** The live rows these Ids end at, following merges (reading survivors as needed); absent: gone, not merged. */
  async survivors(ids: readonly string[]): Promise<Map<string, AccountRow>> {
    for (let hop = 0; hop < MAX_MERGE_HOPS; hop++) {
      const next = ids.map((id) => this.end(id)).filter((id): id is string => id !== undefined && !this.read.has(id) && !this.asked.has(id));
      if (next.length === 0) break;
      await this.loadIds(next);
    }
    const out = new Map<string, AccountRow>();
    for (const id of ids) {
      const end = this.end(id);
      const row = end === undefined ? undefined : this.live.get(end);
      if (row) out.set(id, row);
    }
    return out;
  }

  /** Where an Id's merge chain stands now: a live Id, an Id not read yet, or undefined (deleted, not merged). */
  private end(id: string): string | undefined {
    let at = id;
    for (let hop = 0; hop <= MAX_MERGE_HOPS; hop++) {
      const r = this.read.get(at);
      if (r === undefined || r.IsDeleted !== true) return at;
      const master = text(r.MasterRecordId);
      if (master === null) return undefined;
      at = master;
    }
    return undefined;
  }

  row(id: string): AccountRow | undefined {
    return this.live.get(id);
  }

  private add(row: AccountRow): void {
    this.live.set(row.id, row);
    this.emailChanged(row);
  }

  /** A row's email was read, set or filled: it is a candidate under each of its emails from now on. */
  emailChanged(row: AccountRow): void {
    if (!row.person) return;
    for (const f of this.spec.emailFields) {
      const email = row.values[f]?.trim().toLowerCase();
      if (email === undefined) continue;
      const rows = this.byEmail.get(email) ?? new Set<AccountRow>();
      this.byEmail.set(email, rows.add(row));
    }
  }

  /** Live persons holding this email (lower-cased) in an email field, read or pending, in the order met. */
  personsWithEmail(email: string): AccountRow[] {
    return [...(this.byEmail.get(email) ?? [])];
  }

  /** A donor this run creates: a candidate for later donors of the run (N4) before it exists. */
  addPending(key: string, person: boolean, values: Record<string, string>): AccountRow {
    const row: AccountRow = { id: `(new ${key})`, pending: true, person, key, values: { ...values } };
    this.add(row);
    return row;
  }
}
