/**
 * The emulator's Nonprofit Cloud org ("with NPC") is a strict instrument: it refuses what a real
 * org refuses (required fields, restricted picklists, Person Account fields on business accounts,
 * lookups to missing or deleted records, duplicate external ids, campaign cycles) and models
 * admin merges. Without the option the objects do not exist, as in an org without Fundraising.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

interface Reply {
  status: number;
  body: unknown;
}

async function call(e: Emulator, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${e.url}/services/data/v${e.apiVersion}${path}`, {
    method,
    headers: { Authorization: `Bearer ${e.accessToken}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const upsert = (e: Emulator, object: string, ext: string, records: Array<Record<string, unknown>>): Promise<Reply> =>
  call(e, 'PATCH', `/composite/sobjects/${object}/${ext}`, { allOrNone: false, records: records.map((r) => ({ attributes: { type: object }, ...r })) });
const codes = (r: Reply): string[] =>
  (r.body as Array<{ success: boolean; created?: boolean; errors: Array<{ statusCode: string }> }>).map((x) => (x.success ? (x.created ? 'created' : 'updated') : (x.errors[0]?.statusCode ?? '?')));
const query = async (e: Emulator, q: string, all = false): Promise<Array<Record<string, unknown>>> => {
  const r = await call(e, 'GET', `/${all ? 'queryAll' : 'query'}?q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return (r.body as { records: Array<Record<string, unknown>> }).records;
};

async function npcOrg(): Promise<Emulator & { npc: NonNullable<Emulator['npc']> }> {
  const e = await startSalesforceEmulator({ npc: true });
  emu = e;
  if (!e.npc) throw new Error('no npc org');
  return e as Emulator & { npc: NonNullable<Emulator['npc']> };
}

describe('an org without NPC', () => {
  it('does not know the gift objects: describe NOT_FOUND, query INVALID_TYPE, upsert NOT_FOUND', async () => {
    emu = await startSalesforceEmulator();
    expect(emu.npc).toBeUndefined();
    const d = await call(emu, 'GET', '/sobjects/GiftTransaction/describe');
    expect(d.status).toBe(404);
    expect((d.body as Array<{ errorCode: string }>)[0]?.errorCode).toBe('NOT_FOUND');
    const q = await call(emu, 'GET', `/query?q=${encodeURIComponent('SELECT Id FROM GiftTransaction')}`);
    expect(q.status).toBe(400);
    expect((q.body as Array<{ errorCode: string }>)[0]?.errorCode).toBe('INVALID_TYPE');
    const u = await upsert(emu, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1' }]);
    expect(u.status).toBe(404);
  });
});

describe('an org with NPC', () => {
  it('describes the objects with required fields, restricted picklists and the key fields', async () => {
    const e = await npcOrg();
    const d = await call(e, 'GET', '/sobjects/GiftTransaction/describe');
    const fields = (d.body as { fields: Array<{ name: string; nillable: boolean; externalId: boolean; restrictedPicklist: boolean; picklistValues: Array<{ value: string }> }> }).fields;
    const f = (n: string): (typeof fields)[number] | undefined => fields.find((x) => x.name === n);
    expect(fields.filter((x) => !x.nillable && x.name !== 'Id' && x.name !== 'SvcAnonymous__c').map((x) => x.name)).toEqual(['Name', 'DonorId', 'OriginalAmount', 'TransactionDate', 'Status']);
    expect(f('SvcGiftKey__c')?.externalId).toBe(true);
    expect(f('Status')?.restrictedPicklist).toBe(true);
    expect(f('Status')?.picklistValues.map((v) => v.value)).toContain('Paid');
  });

  it('derives a Person Account name and refuses person fields on a business account and vice versa', async () => {
    const e = await npcOrg();
    const person = e.npc.recordTypeId('PersonAccount');
    const r = await upsert(e, 'Account', 'SvcDonorKey__c', [
      { SvcDonorKey__c: 'P:a@x.nl:doe:john', RecordTypeId: person, FirstName: 'John', LastName: 'Doe', PersonEmail: 'a@x.nl' },
      { SvcDonorKey__c: 'P:b@x.nl::', RecordTypeId: person, FirstName: 'B' },
      { SvcDonorKey__c: 'O:acme', Name: 'Acme', PersonEmail: 'acme@x.nl' },
      { SvcDonorKey__c: 'O:acme2', Name: 'Acme 2', BillingCity: 'Utrecht' },
      { SvcDonorKey__c: 'P:c@x.nl', RecordTypeId: person, LastName: 'C', Name: 'Forced' },
      { SvcDonorKey__c: 'P:d@x.nl', RecordTypeId: person, LastName: 'D', IsPersonAccount: true },
    ]);
    expect(codes(r)).toEqual(['created', 'REQUIRED_FIELD_MISSING', 'INVALID_FIELD_FOR_INSERT_UPDATE', 'created', 'INVALID_FIELD_FOR_INSERT_UPDATE', 'INVALID_FIELD_FOR_INSERT_UPDATE']);
    const rows = await query(e, "SELECT Id, Name, IsPersonAccount, PersonContactId FROM Account WHERE IsPersonAccount = true AND PersonEmail IN ('a@x.nl')");
    expect(rows).toEqual([expect.objectContaining({ Name: 'John Doe', IsPersonAccount: true, PersonContactId: expect.stringMatching(/^003/) })]);
    // The upsert on the same key updates the one record.
    expect(codes(await upsert(e, 'Account', 'SvcDonorKey__c', [{ SvcDonorKey__c: 'P:A@X.NL:DOE:JOHN', Phone: '0612345678' }]))).toEqual(['updated']);
  });

  it('refuses a missing required field, a bad picklist value, an unknown lookup, a duplicate key in one call', async () => {
    const e = await npcOrg();
    const donor = e.npc.seed('Account', { Name: 'Acme' });
    const base = { Name: 'Acme - Donation 1', DonorId: donor, OriginalAmount: 15.4, TransactionDate: '2016-03-30', Status: 'Paid' };
    const r = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [
      { ...base, SvcGiftKey__c: 'Donation_1' },
      { ...base, SvcGiftKey__c: 'Donation_2', Status: 'Refunded' },
      { ...base, SvcGiftKey__c: 'Donation_3', TransactionDate: undefined },
      { ...base, SvcGiftKey__c: 'Donation_4', DonorId: '001000000000000AAA' },
      { ...base, SvcGiftKey__c: 'Donation_5', Campaign: { SvcCampaignKey__c: 'Action_404' } },
      { ...base, SvcGiftKey__c: 'Donation_6' },
      { ...base, SvcGiftKey__c: 'donation_6' },
    ]);
    expect(codes(r)).toEqual([
      'created',
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      'REQUIRED_FIELD_MISSING',
      'INVALID_CROSS_REFERENCE_KEY',
      'INVALID_FIELD',
      'DUPLICATE_EXTERNAL_ID',
      'DUPLICATE_EXTERNAL_ID',
    ]);
  });

  it('resolves a parent by external id, refuses a campaign cycle and a sixth level', async () => {
    const e = await npcOrg();
    const levels = ['Segment_1', 'Project_1', 'Team_1', 'Action_1', 'Action_2', 'Action_3'];
    const out: string[] = [];
    for (const [i, k] of levels.entries()) {
      const parent = i === 0 ? {} : { Parent: { SvcCampaignKey__c: levels[i - 1] } };
      out.push(...codes(await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: k, Name: k, ...parent }])));
    }
    expect(out).toEqual(['created', 'created', 'created', 'created', 'created', 'INVALID_CROSS_REFERENCE_KEY']);
    const cycle = await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Segment_1', Name: 'S', Parent: { SvcCampaignKey__c: 'Team_1' } }]);
    expect(codes(cycle)).toEqual(['INVALID_CROSS_REFERENCE_KEY']);
  });

  it('a soft credit and a refund need their gift (master-detail, not reparented)', async () => {
    const e = await npcOrg();
    const donor = e.npc.seed('Account', { Name: 'Acme' });
    const gift = e.npc.seed('GiftTransaction', { Name: 'G', DonorId: donor, OriginalAmount: 8, TransactionDate: '2016-05-01', Status: 'Paid', SvcGiftKey__c: 'Donation_9' });
    const other = e.npc.seed('GiftTransaction', { Name: 'H', DonorId: donor, OriginalAmount: 1, TransactionDate: '2016-05-01', Status: 'Paid', SvcGiftKey__c: 'Donation_10' });
    const refund = { SvcRefundKey__c: 'Donation_9', GiftTransaction: { SvcGiftKey__c: 'Donation_9' }, Amount: 8, Date: '2016-05-20', Status: 'Completed', Reason: 'Chargeback' };
    expect(codes(await upsert(e, 'GiftRefund', 'SvcRefundKey__c', [refund, { SvcRefundKey__c: 'Donation_10', GiftTransactionId: other, Amount: 1 }]))).toEqual(['created', 'REQUIRED_FIELD_MISSING']);
    expect(codes(await upsert(e, 'GiftRefund', 'SvcRefundKey__c', [{ ...refund, GiftTransaction: undefined, GiftTransactionId: other }]))).toEqual(['INVALID_FIELD_FOR_INSERT_UPDATE']);
    expect(e.npc.records('GiftRefund')).toEqual([expect.objectContaining({ GiftTransactionId: gift, Amount: 8, Date: '2016-05-20', Reason: 'Chargeback' })]);
    const slot = { SvcSoftCreditKey__c: 'Donation_9:fundraiser', GiftTransactionId: gift, RecipientId: donor, Role: 'Fundraiser', PartialPercent: 100 };
    expect(codes(await upsert(e, 'GiftSoftCredit', 'SvcSoftCreditKey__c', [slot, { ...slot, SvcSoftCreditKey__c: 'Donation_10:fundraiser', GiftTransactionId: other, Role: 'Solicitor' }]))).toEqual([
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      'created',
    ]);
  });

  it('merges as an admin does: the loser is only in queryAll, points at the survivor, refuses writes; gifts follow', async () => {
    const e = await npcOrg();
    const person = e.npc.recordTypeId('PersonAccount');
    const loser = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', SvcDonorKey__c: 'P:j@x.nl:doe:john' });
    const survivor = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', FirstName: 'John' });
    const gift = e.npc.seed('GiftTransaction', { Name: 'G', DonorId: loser, OriginalAmount: 5, TransactionDate: '2016-03-30', Status: 'Paid', SvcGiftKey__c: 'Donation_1' });
    e.npc.merge(survivor, loser);
    expect(await query(e, `SELECT Id FROM Account WHERE Id IN ('${loser}')`)).toEqual([]);
    expect(await query(e, `SELECT Id, MasterRecordId, IsDeleted FROM Account WHERE Id IN ('${loser}')`, true)).toEqual([
      expect.objectContaining({ Id: loser, MasterRecordId: survivor, IsDeleted: true }),
    ]);
    expect(e.npc.records('GiftTransaction').find((g) => g.Id === gift)?.DonorId).toBe(survivor);
    const update = await call(e, 'PATCH', '/composite/sobjects', { allOrNone: false, records: [{ attributes: { type: 'Account' }, Id: loser, Phone: '1' }] });
    expect(codes(update)).toEqual(['ENTITY_IS_DELETED']);
    const pointing = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [
      { SvcGiftKey__c: 'Donation_3', Name: 'G3', DonorId: loser, OriginalAmount: 5, TransactionDate: '2016-03-30', Status: 'Paid' },
    ]);
    expect(codes(pointing)).toEqual(['ENTITY_IS_DELETED']);
    // The merged-away key is gone with its record: an upsert on it creates a new donor (§1.6 says never do it).
    expect((await query(e, "SELECT Id FROM Account WHERE SvcDonorKey__c IN ('P:j@x.nl:doe:john')")).length).toBe(0);
  });

  it('counts queryAll as a query call', async () => {
    const e = await npcOrg();
    e.resetCalls();
    await query(e, 'SELECT Id FROM Account', true);
    expect(e.calls().query).toBe(1);
  });
});
