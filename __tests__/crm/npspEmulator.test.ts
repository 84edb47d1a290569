/**
 * The emulator's NPSP org ("with NPSP") through the real jsforce connection: strict describes and
 * writes (unknown field, bad lookup, too-long text, wrong restricted value, wrong record type),
 * and NPSP's automation as PROJECTION.md's appendix (P11, P12, "What NPSP's own source says")
 * describes it: household accounts, the primary contact and its role, automatic payments and
 * clearOCRs, each visible to queries; switched off, none of it happens.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Connection } from 'jsforce';
import { startSalesforceEmulator, type Emulator, type EmulatorOptions } from '../../fixtures/salesforce/emulator.js';
import { connectSalesforce } from '../../src/crm/connection.js';
import { settingsFor } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Row = Record<string, unknown>;
interface Saved {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode?: string; errorCode?: string }>;
}

async function npspOrg(opts: EmulatorOptions = {}): Promise<{ e: Emulator; conn: Connection }> {
  const e = await startSalesforceEmulator({ npsp: true, ...opts });
  emu = e;
  const session = await connectSalesforce(settingsFor(e));
  return { e, conn: session.connection };
}

const rows = async (conn: Connection, soql: string): Promise<Row[]> => (await conn.query<Row>(soql)).records.map(({ attributes: _a, ...r }) => r);
const create = async (conn: Connection, type: string, records: Row[]): Promise<Saved[]> => (await conn.sobject(type).create(records, { allOrNone: false })) as unknown as Saved[];
const upsert = async (conn: Connection, type: string, records: Row[], ext: string): Promise<Saved[]> => (await conn.sobject(type).upsert(records, ext, { allOrNone: false })) as unknown as Saved[];
const update = async (conn: Connection, type: string, records: Row[]): Promise<Saved[]> =>
  (await conn.sobject(type).update(records as Array<Row & { Id: string }>, { allOrNone: false })) as unknown as Saved[];
const code = (s: Saved | undefined): string => (s?.success ? 'ok' : (s?.errors[0]?.statusCode ?? s?.errors[0]?.errorCode ?? '?'));
const idOf = (s: Saved | undefined): string => {
  if (!s?.success || !s.id) throw new Error(`not saved: ${JSON.stringify(s)}`);
  return s.id;
};

async function recordTypeId(conn: Connection, object: string, developerName: string): Promise<string> {
  const [rt] = await rows(conn, `SELECT Id FROM RecordType WHERE SobjectType = '${object}' AND DeveloperName = '${developerName}'`);
  return String(rt?.Id);
}

/** A donor Contact as svc-sync writes it (P3: no AccountId). */
const donor = (key: string, last: string, more: Row = {}): Row => ({
  SvcDonorKey__c: key,
  FirstName: 'Jan',
  LastName: last,
  Email: `${key}@example.org`,
  npe01__HomeEmail__c: `${key}@example.org`,
  npe01__Preferred_Email__c: 'Personal',
  ...more,
});
const gift = (key: string, contactId: string, more: Row = {}): Row => ({
  SvcGiftKey__c: key,
  Name: `Jan - Donation ${key}`,
  StageName: 'Closed Won',
  CloseDate: '2026-03-01',
  Amount: 25,
  npsp__Primary_Contact__c: contactId,
  ...more,
});

describe('an NPSP org: strict describes and writes', () => {
  it('describes the objects: the four emails and preferred email, record types, stages restricted, OCR role not, DebitType present', async () => {
    const { conn } = await npspOrg();
    const contact = await conn.sobject('Contact').describe();
    expect(contact.fields.map((f) => f.name)).toEqual(
      expect.arrayContaining(['Email', 'npe01__HomeEmail__c', 'npe01__WorkEmail__c', 'npe01__AlternateEmail__c', 'npe01__Preferred_Email__c', 'SvcDonorKey__c']),
    );
    const account = await conn.sobject('Account').describe();
    expect((account.recordTypeInfos as unknown as Array<{ developerName: string }>).map((r) => r.developerName)).toEqual(['HH_Account', 'Organization']);
    const opp = await conn.sobject('Opportunity').describe();
    expect((opp.recordTypeInfos as unknown as Array<{ developerName: string }>).map((r) => r.developerName)).toContain('Donation');
    const stage = opp.fields.find((f) => f.name === 'StageName');
    expect(stage?.restrictedPicklist).toBe(true);
    expect(stage?.picklistValues?.map((v) => v.value)).toEqual(['Prospecting', 'Pledged', 'Closed Won', 'Closed Lost']);
    const ocr = await conn.sobject('OpportunityContactRole').describe();
    expect(ocr.fields.find((f) => f.name === 'Role')?.restrictedPicklist).toBe(false);
    expect(ocr.fields.find((f) => f.name === 'SvcSoftCreditKey__c')?.externalId).toBe(false);
    const pay = await conn.sobject('npe01__OppPayment__c').describe();
    expect(pay.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['npsp__DebitType__c', 'npsp__OriginalPayment__c', 'SvcRefundKey__c']));
    expect(await rows(conn, 'SELECT ApiName, IsClosed, IsWon FROM OpportunityStage WHERE IsClosed = true')).toEqual([
      { ApiName: 'Closed Won', IsClosed: true, IsWon: true },
      { ApiName: 'Closed Lost', IsClosed: true, IsWon: false },
    ]);
  });

  it('without DebitType (an org before 2022, or no field access): the payment fields are absent', async () => {
    const { conn } = await npspOrg({ npspDebitType: false });
    const pay = await conn.sobject('npe01__OppPayment__c').describe();
    expect(pay.fields.map((f) => f.name)).not.toContain('npsp__DebitType__c');
    expect(pay.fields.map((f) => f.name)).not.toContain('npsp__OriginalPayment__c');
  });

  it('refuses an unknown field, a bad lookup id, a too-long text, a wrong stage, a record type of another object, an Id on insert', async () => {
    const { conn } = await npspOrg({ npspAutomation: false });
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    const hh = await recordTypeId(conn, 'Account', 'HH_Account');
    const out = await upsert(
      conn,
      'Opportunity',
      [
        gift('D1', c, { PersonEmail: 'x@y.nl' }),
        gift('D2', '003000000000000AAA'),
        gift('D3', c, { Name: 'x'.repeat(121) }),
        gift('D4', c, { StageName: 'Refunded' }),
        gift('D5', c, { RecordTypeId: hh }),
        gift('D6', c, { npsp__Primary_Contact__c: hh }),
        gift('D7', c),
      ],
      'SvcGiftKey__c',
    );
    expect(out.map(code)).toEqual([
      'INVALID_FIELD',
      'INVALID_CROSS_REFERENCE_KEY',
      'STRING_TOO_LONG',
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      'INVALID_CROSS_REFERENCE_KEY',
      'INVALID_CROSS_REFERENCE_KEY',
      'ok',
    ]);
    expect((await upsert(conn, 'Contact', [donor('p2', 'x'.repeat(81))], 'SvcDonorKey__c')).map(code)).toEqual(['STRING_TOO_LONG']);
    expect((await upsert(conn, 'Contact', [donor('p3', 'Jansen', { npe01__WorkEmail__c: 'not an email' })], 'SvcDonorKey__c')).map(code)).toEqual(['INVALID_EMAIL_ADDRESS']);
    // OCR: the role is not restricted (stored), the opportunity cannot move, the key is not an external id.
    const opp = idOf(out[6]);
    const ocr = await create(conn, 'OpportunityContactRole', [{ OpportunityId: opp, ContactId: c, Role: 'Fundraiser', SvcSoftCreditKey__c: 'D7:fundraiser' }, { OpportunityId: opp }]);
    expect(ocr.map(code)).toEqual(['ok', 'REQUIRED_FIELD_MISSING']);
    const other = idOf((await upsert(conn, 'Opportunity', [gift('D8', c)], 'SvcGiftKey__c'))[0]);
    expect((await update(conn, 'OpportunityContactRole', [{ Id: idOf(ocr[0]), OpportunityId: other }])).map(code)).toEqual(['INVALID_FIELD_FOR_INSERT_UPDATE']);
    await expect(conn.sobject('OpportunityContactRole').upsert([{ SvcSoftCreditKey__c: 'k', OpportunityId: opp, ContactId: c }], 'SvcSoftCreditKey__c')).rejects.toThrow(/not an external id/);
    expect(await rows(conn, `SELECT Role, IsPrimary FROM OpportunityContactRole WHERE SvcSoftCreditKey__c = 'D7:fundraiser'`)).toEqual([{ Role: 'Fundraiser', IsPrimary: false }]);
  });
});

describe("an NPSP org: NPSP's automation", () => {
  it('a Contact without an Account gets a Household Account (name, record type, flags, address and phone from the contact)', async () => {
    const { conn } = await npspOrg();
    const saved = await upsert(
      conn,
      'Contact',
      [donor('p1', 'van Dijk', { Phone: '+31 20 1234567', MailingStreet: 'Dam 1', MailingPostalCode: '1012 JS', MailingCity: 'Amsterdam', MailingCountry: 'NL' })],
      'SvcDonorKey__c',
    );
    const [c] = await rows(conn, `SELECT Id, AccountId FROM Contact WHERE Id = '${idOf(saved[0])}'`);
    expect(c?.AccountId).toEqual(expect.stringMatching(/^001/));
    const [hh] = await rows(
      conn,
      `SELECT Name, RecordTypeId, Type, npe01__SYSTEM_AccountType__c, npe01__SYSTEMIsIndividual__c, npe01__One2OneContact__c, BillingStreet, BillingPostalCode, BillingCity, BillingCountry, Phone FROM Account WHERE Id = '${String(c?.AccountId)}'`,
    );
    expect(hh).toEqual({
      Name: 'van Dijk Household',
      RecordTypeId: await recordTypeId(conn, 'Account', 'HH_Account'),
      Type: 'Household',
      npe01__SYSTEM_AccountType__c: 'Household Account',
      npe01__SYSTEMIsIndividual__c: true,
      npe01__One2OneContact__c: c?.Id,
      BillingStreet: 'Dam 1',
      BillingPostalCode: '1012 JS',
      BillingCity: 'Amsterdam',
      BillingCountry: 'NL',
      Phone: '+31 20 1234567',
    });
    // A second write of the same contact keeps its household.
    await upsert(conn, 'Contact', [donor('p1', 'van Dijk', { Phone: '+31 6 1' })], 'SvcDonorKey__c');
    expect(await rows(conn, 'SELECT Id FROM Account')).toHaveLength(1);
  });

  it('a gift with a primary contact gets its AccountId and a primary Donor role; a Closed Won gift a paid payment', async () => {
    const { conn } = await npspOrg();
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    const [{ AccountId: hh } = {}] = await rows(conn, `SELECT AccountId FROM Contact WHERE Id = '${c}'`);
    const opp = idOf((await upsert(conn, 'Opportunity', [gift('D1', c)], 'SvcGiftKey__c'))[0]);
    expect(await rows(conn, `SELECT AccountId, IsClosed, IsWon FROM Opportunity WHERE Id = '${opp}'`)).toEqual([{ AccountId: hh, IsClosed: true, IsWon: true }]);
    expect(await rows(conn, `SELECT ContactId, Role, IsPrimary, SvcSoftCreditKey__c FROM OpportunityContactRole WHERE OpportunityId = '${opp}'`)).toEqual([
      { ContactId: c, Role: 'Donor', IsPrimary: true, SvcSoftCreditKey__c: null },
    ]);
    expect(await rows(conn, `SELECT npe01__Payment_Amount__c, npe01__Paid__c, npe01__Payment_Date__c, SvcRefundKey__c FROM npe01__OppPayment__c WHERE npe01__Opportunity__c = '${opp}'`)).toEqual([
      { npe01__Payment_Amount__c: 25, npe01__Paid__c: true, npe01__Payment_Date__c: '2026-03-01', SvcRefundKey__c: null },
    ]);
  });

  it('no payment with Do Not Automatically Create Payment; a Closed Lost gift gets an unpaid one without dates (as NPSP does)', async () => {
    const { conn } = await npspOrg();
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    const out = await upsert(conn, 'Opportunity', [gift('D1', c, { npe01__Do_Not_Automatically_Create_Payment__c: true }), gift('D2', c, { StageName: 'Closed Lost' })], 'SvcGiftKey__c');
    expect(await rows(conn, `SELECT npe01__Paid__c FROM npe01__OppPayment__c WHERE npe01__Opportunity__c = '${idOf(out[0])}'`)).toEqual([]);
    expect(await rows(conn, `SELECT npe01__Paid__c, npe01__Payment_Date__c, npe01__Scheduled_Date__c FROM npe01__OppPayment__c WHERE npe01__Opportunity__c = '${idOf(out[1])}'`)).toEqual([
      { npe01__Paid__c: false, npe01__Payment_Date__c: null, npe01__Scheduled_Date__c: null },
    ]);
    // Closed Lost -> Closed Won: the open payment is paid.
    await upsert(conn, 'Opportunity', [gift('D2', c)], 'SvcGiftKey__c');
    expect(await rows(conn, `SELECT npe01__Paid__c, npe01__Payment_Date__c FROM npe01__OppPayment__c WHERE npe01__Opportunity__c = '${idOf(out[1])}'`)).toEqual([
      { npe01__Paid__c: true, npe01__Payment_Date__c: '2026-03-01' },
    ]);
  });

  it("an organization's gift: the primary contact's role is the organizational one (Soft Credit)", async () => {
    const { conn } = await npspOrg();
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    const org = idOf((await upsert(conn, 'Account', [{ SvcDonorKey__c: 'O:acme', Name: 'Acme', RecordTypeId: await recordTypeId(conn, 'Account', 'Organization') }], 'SvcDonorKey__c'))[0]);
    const opp = idOf((await upsert(conn, 'Opportunity', [gift('D1', c, { AccountId: org })], 'SvcGiftKey__c'))[0]);
    expect(await rows(conn, `SELECT AccountId FROM Opportunity WHERE Id = '${opp}'`)).toEqual([{ AccountId: org }]);
    expect(await rows(conn, `SELECT ContactId, Role, IsPrimary FROM OpportunityContactRole WHERE OpportunityId = '${opp}'`)).toEqual([{ ContactId: c, Role: 'Soft Credit', IsPrimary: true }]);
  });

  it('clearOCRs: a new primary contact moves the primary role (role kept) and deletes every other role, the fundraiser slot included', async () => {
    const { conn } = await npspOrg();
    const saved = await upsert(conn, 'Contact', [donor('p1', 'Smit'), donor('p2', 'Jansen'), donor('f1', 'Visser'), donor('h1', 'Bakker')], 'SvcDonorKey__c');
    const [p1, p2, f1, h1] = saved.map(idOf) as [string, string, string, string];
    const opp = idOf((await upsert(conn, 'Opportunity', [gift('D1', p1)], 'SvcGiftKey__c'))[0]);
    await create(conn, 'OpportunityContactRole', [
      { OpportunityId: opp, ContactId: f1, Role: 'Soft Credit', IsPrimary: false, SvcSoftCreditKey__c: 'Donation_1:fundraiser' },
      { OpportunityId: opp, ContactId: h1, Role: 'Honoree', IsPrimary: false },
    ]);
    // An update that changes neither the contact nor the account leaves the roles.
    await upsert(conn, 'Opportunity', [gift('D1', p1, { Amount: 30 })], 'SvcGiftKey__c');
    expect(await rows(conn, `SELECT Id FROM OpportunityContactRole WHERE OpportunityId = '${opp}'`)).toHaveLength(3);
    const [{ AccountId: hh2 } = {}] = await rows(conn, `SELECT AccountId FROM Contact WHERE Id = '${p2}'`);
    await upsert(conn, 'Opportunity', [gift('D1', p2, { AccountId: hh2 })], 'SvcGiftKey__c');
    expect(await rows(conn, `SELECT ContactId, Role, IsPrimary FROM OpportunityContactRole WHERE OpportunityId = '${opp}'`)).toEqual([
      { ContactId: p2, Role: 'Donor', IsPrimary: true },
      { ContactId: h1, Role: 'Honoree', IsPrimary: false },
    ]);
    const gone = await conn.query<Row>(`SELECT Id, IsDeleted FROM OpportunityContactRole WHERE SvcSoftCreditKey__c = 'Donation_1:fundraiser'`, { scanAll: true });
    expect(gone.records.map((x) => x.IsDeleted)).toEqual([true]);
  });

  it('switched off (npspAutomation: false): no household, no role, no payment, nothing cleared', async () => {
    const { e, conn } = await npspOrg({ npspAutomation: false });
    const [p1, p2, f1] = (await upsert(conn, 'Contact', [donor('p1', 'Smit'), donor('p2', 'Jansen'), donor('f1', 'Visser')], 'SvcDonorKey__c')).map(idOf) as [string, string, string];
    expect(await rows(conn, 'SELECT Id, AccountId FROM Contact WHERE AccountId != null')).toEqual([]);
    const opp = idOf((await upsert(conn, 'Opportunity', [gift('D1', p1)], 'SvcGiftKey__c'))[0]);
    await create(conn, 'OpportunityContactRole', [{ OpportunityId: opp, ContactId: f1, Role: 'Soft Credit', SvcSoftCreditKey__c: 'Donation_1:fundraiser' }]);
    await upsert(conn, 'Opportunity', [gift('D1', p2)], 'SvcGiftKey__c');
    expect(await rows(conn, 'SELECT Id FROM Account')).toEqual([]);
    expect(await rows(conn, `SELECT ContactId FROM OpportunityContactRole WHERE OpportunityId = '${opp}'`)).toEqual([{ ContactId: f1 }]);
    expect(await rows(conn, 'SELECT Id FROM npe01__OppPayment__c')).toEqual([]);
    expect(await rows(conn, `SELECT AccountId FROM Opportunity WHERE Id = '${opp}'`)).toEqual([{ AccountId: null }]);
    // A test can switch it on mid-run, as an admin re-enables the triggers.
    if (!e.npsp) throw new Error('no npsp org');
    e.npsp.automation = true;
    await upsert(conn, 'Contact', [donor('p4', 'de Vries')], 'SvcDonorKey__c');
    expect(await rows(conn, 'SELECT Name FROM Account')).toEqual([{ Name: 'de Vries Household' }]);
  });

  it("what the automation wrote is visible to a Bulk API 2.0 query too (the household, its contact's AccountId)", async () => {
    const { e, conn } = await npspOrg();
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    const api = `${e.url}/services/data/v${e.apiVersion}/jobs/query`;
    const headers = { Authorization: `Bearer ${e.accessToken}`, 'Content-Type': 'application/json' };
    const job = (await (await fetch(api, { method: 'POST', headers, body: JSON.stringify({ operation: 'query', query: 'SELECT Id, AccountId FROM Contact' }) })).json()) as { id: string };
    for (let state = ''; state !== 'JobComplete';) state = ((await (await fetch(`${api}/${job.id}`, { headers })).json()) as { state: string }).state;
    const csv = await (await fetch(`${api}/${job.id}/results`, { headers })).text();
    const [{ AccountId: hh } = {}] = await rows(conn, `SELECT AccountId FROM Contact WHERE Id = '${c}'`);
    expect(csv.trim().split('\n')).toEqual(['"Id","AccountId"', `"${c}","${String(hh)}"`]);
  });

  it('payments switched off in NPSP Settings: no automatic payment', async () => {
    const { e, conn } = await npspOrg();
    e.npsp?.setSettings({ npe01__Payments_Enabled__c: false });
    const c = idOf((await upsert(conn, 'Contact', [donor('p1', 'Smit')], 'SvcDonorKey__c'))[0]);
    await upsert(conn, 'Opportunity', [gift('D1', c)], 'SvcGiftKey__c');
    expect(await rows(conn, 'SELECT Id FROM npe01__OppPayment__c')).toEqual([]);
    expect(await rows(conn, 'SELECT npe01__Payments_Enabled__c FROM npe01__Contacts_And_Orgs_Settings__c')).toEqual([{ npe01__Payments_Enabled__c: false }]);
  });
});
