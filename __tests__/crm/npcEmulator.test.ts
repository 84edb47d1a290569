/**
 * The emulator's Nonprofit Cloud org ("with NPC") is a strict instrument: it refuses what a real
 * org refuses (required fields, restricted picklists, Person Account fields on business accounts,
 * lookups to missing or deleted records, duplicate external ids, campaign cycles, an admin's
 * duplicate rule, campaigns without Marketing User), fills the defaults a real org fills, deletes
 * as Salesforce does (master-detail children go, optional lookups are cleared) and models admin
 * merges. Without the option the objects do not exist, as in an org without Fundraising. Required
 * fields, defaults and values: Salesforce's Nonprofit Cloud Developer Guide (v67.0).
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
  (r.body as Array<{ success: boolean; created?: boolean; errors: Array<{ statusCode: string }> }>).map((x) =>
    x.success ? (x.created === undefined ? 'deleted' : x.created ? 'created' : 'updated') : (x.errors[0]?.statusCode ?? '?'),
  );
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
  it('describes the objects as the reference does: not-nillable fields, defaults, which picklists are restricted', async () => {
    const e = await npcOrg();
    const d = await call(e, 'GET', '/sobjects/GiftTransaction/describe');
    type Field = {
      name: string;
      type: string;
      nillable: boolean;
      externalId: boolean;
      restrictedPicklist: boolean;
      defaultedOnCreate: boolean;
      picklistValues: Array<{ value: string; defaultValue: boolean }>;
    };
    const fields = (d.body as { fields: Field[] }).fields;
    const f = (n: string): Field | undefined => fields.find((x) => x.name === n);
    expect(fields.filter((x) => !x.nillable && !['id', 'boolean'].includes(x.type)).map((x) => x.name)).toEqual(['Name', 'OriginalAmount', 'Status', 'PaymentMethod']);
    expect(f('SvcGiftKey__c')?.externalId).toBe(true);
    expect(fields.filter((x) => x.restrictedPicklist).map((x) => x.name)).toEqual(['GiftType']);
    expect(f('Status')?.defaultedOnCreate).toBe(true);
    expect(f('Status')?.picklistValues.find((v) => v.defaultValue)?.value).toBe('Unpaid');
    expect(f('Status')?.picklistValues.map((v) => v.value)).toEqual(['Canceled', 'Failed', 'Fully Refunded', 'Paid', 'Pending', 'Unpaid', 'Written-Off']);
    const refund = ((await call(e, 'GET', '/sobjects/GiftRefund/describe')).body as { fields: Field[] }).fields;
    expect(refund.find((x) => x.name === 'Reason')?.picklistValues.map((v) => v.value)).toEqual(['Donor Request', 'Incorrect Amount']);
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
    // The upsert on the same key updates the one record, in the org.
    expect(codes(await upsert(e, 'Account', 'SvcDonorKey__c', [{ SvcDonorKey__c: 'P:A@X.NL:DOE:JOHN', Phone: '0612345678' }]))).toEqual(['updated']);
    expect(
      e.npc
        .records('Account')
        .filter((a) => String(a.SvcDonorKey__c).toLowerCase() === 'p:a@x.nl:doe:john')
        .map((a) => a.Phone),
    ).toEqual(['0612345678']);
  });

  it('refuses a missing required field, a bad restricted value, an unknown lookup, a duplicate key in one call', async () => {
    const e = await npcOrg();
    const donor = e.npc.seed('Account', { Name: 'Acme' });
    const base = { Name: 'Acme - Donation 1', DonorId: donor, OriginalAmount: 15.4, TransactionDate: '2016-03-30', Status: 'Paid', PaymentMethod: 'Credit Card' };
    const r = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [
      { ...base, SvcGiftKey__c: 'Donation_1' },
      { ...base, SvcGiftKey__c: 'Donation_2', GiftType: 'Corporate' },
      { ...base, SvcGiftKey__c: 'Donation_3', TransactionDate: undefined },
      { ...base, SvcGiftKey__c: 'Donation_4', DonorId: '001000000000000AAA' },
      { ...base, SvcGiftKey__c: 'Donation_5', Campaign: { SvcCampaignKey__c: 'Action_404' } },
      { ...base, SvcGiftKey__c: 'Donation_6' },
      { ...base, SvcGiftKey__c: 'donation_6' },
      { ...base, SvcGiftKey__c: 'Donation_7', PaymentMethod: undefined },
      { ...base, SvcGiftKey__c: 'Donation_8', OriginalAmount: null },
    ]);
    expect(codes(r)).toEqual([
      'created',
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      'REQUIRED_FIELD_MISSING',
      'INVALID_CROSS_REFERENCE_KEY',
      'INVALID_FIELD',
      'DUPLICATE_EXTERNAL_ID',
      'DUPLICATE_EXTERNAL_ID',
      'REQUIRED_FIELD_MISSING',
      'REQUIRED_FIELD_MISSING',
    ]);
  });

  it('fills the defaults on create (Status Unpaid, GiftType Individual, Role Soft Credit) and stores values of unrestricted picklists', async () => {
    const e = await npcOrg();
    const donor = e.npc.seed('Account', { Name: 'Acme' });
    // No donor (an optional lookup), no date (needed only for Paid), no status: an Unpaid gift.
    const r = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [
      { SvcGiftKey__c: 'Donation_1', Name: 'G1', OriginalAmount: 5, PaymentMethod: 'Cash' },
      { SvcGiftKey__c: 'Donation_2', Name: 'G2', OriginalAmount: 5, PaymentMethod: 'Bitcoin', Status: 'Refunded', DonorId: donor },
    ]);
    expect(codes(r)).toEqual(['created', 'created']);
    expect(e.npc.records('GiftTransaction').map((g) => [g.Status, g.GiftType, g.PaymentMethod, g.DonorId ?? null])).toEqual([
      ['Unpaid', 'Individual', 'Cash', null],
      ['Refunded', 'Individual', 'Bitcoin', donor],
    ]);
    const slot = await upsert(e, 'GiftSoftCredit', 'SvcSoftCreditKey__c', [{ SvcSoftCreditKey__c: 'Donation_1:fundraiser', GiftTransaction: { SvcGiftKey__c: 'Donation_1' }, RecipientId: donor }]);
    expect(codes(slot)).toEqual(['created']);
    expect(e.npc.records('GiftSoftCredit')[0]?.Role).toBe('Soft Credit');
    // An update does not reset a default; setting a not-nillable field to null is refused.
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', Status: 'Paid' }]))).toEqual(['REQUIRED_FIELD_MISSING']);
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', Status: null }]))).toEqual(['REQUIRED_FIELD_MISSING']);
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', Status: 'Paid', TransactionDate: '2016-03-30' }]))).toEqual(['updated']);
  });

  it('reads a checkbox never set, or set to null, as false (as Salesforce stores it), on every object', async () => {
    const e = await npcOrg();
    const donor = e.npc.seed('Account', { Name: 'Acme' });
    const r = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', Name: 'G1', OriginalAmount: 5, PaymentMethod: 'Cash', DonorId: donor }]);
    expect(codes(r)).toEqual(['created']);
    expect(codes(await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Project_3', Name: 'P3' }]))).toEqual(['created']);
    expect(await query(e, "SELECT SvcAnonymous__c FROM GiftTransaction WHERE SvcGiftKey__c = 'Donation_1'")).toEqual([expect.objectContaining({ SvcAnonymous__c: false })]);
    expect(await query(e, "SELECT IsActive FROM Campaign WHERE SvcCampaignKey__c = 'Project_3'")).toEqual([expect.objectContaining({ IsActive: false })]);
    // Found by `= false`, as in Salesforce; a null sent later is false again.
    expect(await query(e, 'SELECT Id FROM GiftTransaction WHERE SvcAnonymous__c = false')).toHaveLength(1);
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', SvcAnonymous__c: true }]))).toEqual(['updated']);
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [{ SvcGiftKey__c: 'Donation_1', SvcAnonymous__c: null }]))).toEqual(['updated']);
    expect(e.npc.records('GiftTransaction')[0]?.SvcAnonymous__c).toBe(false);
  });

  it('deletes as Salesforce does: a gift takes its soft credits and refunds, an account or campaign leaves its gifts with the lookup cleared', async () => {
    const e = await npcOrg();
    const person = e.npc.recordTypeId('PersonAccount');
    const donor = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe' });
    const piet = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Jansen' });
    const campaign = e.npc.seed('Campaign', { Name: 'Action 7', SvcCampaignKey__c: 'Action_7' });
    const gift = (k: string): Record<string, string | number> => ({
      Name: k,
      DonorId: donor,
      CampaignId: campaign,
      OriginalAmount: 5,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      PaymentMethod: 'Cash',
      SvcGiftKey__c: k,
    });
    const g1 = e.npc.seed('GiftTransaction', gift('Donation_1'));
    const g2 = e.npc.seed('GiftTransaction', gift('Donation_2'));
    const s1 = e.npc.seed('GiftSoftCredit', { GiftTransactionId: g1, RecipientId: piet, Role: 'Solicitor', SvcSoftCreditKey__c: 'Donation_1:fundraiser' });
    const s2 = e.npc.seed('GiftSoftCredit', { GiftTransactionId: g2, RecipientId: piet, Role: 'Solicitor', SvcSoftCreditKey__c: 'Donation_2:fundraiser' });
    e.npc.seed('GiftRefund', { GiftTransactionId: g1, Amount: 5, Date: '2016-04-03', SvcRefundKey__c: 'Donation_1' });
    const del = (ids: string[], allOrNone = false): Promise<Reply> => call(e, 'DELETE', `/composite/sobjects?ids=${ids.join(',')}&allOrNone=${allOrNone}`);

    // A soft credit alone (the writer's obsolete slot), then the same again: already deleted.
    expect(await del([s2])).toEqual({ status: 200, body: [{ id: s2, success: true, errors: [] }] });
    expect(codes(await del([s2]))).toEqual(['ENTITY_IS_DELETED']);
    expect(await query(e, `SELECT Id, IsDeleted FROM GiftSoftCredit WHERE Id IN ('${s2}')`, true)).toEqual([expect.objectContaining({ Id: s2, IsDeleted: true })]);
    // allOrNone with one Id gone: nothing deleted.
    expect(codes(await del([g2, s2], true))).toEqual(['ALL_OR_NONE_OPERATION_ROLLED_BACK', 'ENTITY_IS_DELETED']);
    expect(e.npc.records('GiftTransaction').map((g) => g.Id)).toEqual([g1, g2]);

    // A gift: its soft credit and refund go with it (master-detail).
    expect(codes(await del([g1]))).toEqual(['deleted']);
    expect(e.npc.records('GiftSoftCredit').map((r) => r.Id)).toEqual([]);
    expect(e.npc.records('GiftRefund')).toEqual([]);
    expect(e.npc.records('GiftSoftCredit', true).find((r) => r.Id === s1)?.IsDeleted).toBe(true);
    // An upsert on the deleted gift's key creates a new one (the recycle bin is not matched).
    expect(codes(await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [gift('Donation_1')]))).toEqual(['created']);

    // The donor and the campaign: the gifts stay, DonorId and CampaignId cleared.
    expect(codes(await del([donor, campaign]))).toEqual(['deleted', 'deleted']);
    expect(e.npc.records('GiftTransaction').map((g) => [g.SvcGiftKey__c, g.DonorId, g.CampaignId])).toEqual([
      ['Donation_2', null, null],
      ['Donation_1', null, null],
    ]);
  });

  it("an admin's duplicate rule refuses a matching donor insert with the matched Ids; no Marketing User, no campaign created", async () => {
    const e = await npcOrg();
    const person = e.npc.recordTypeId('PersonAccount');
    const existing = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    e.npc.duplicateRule = true;
    const r = await upsert(e, 'Account', 'SvcDonorKey__c', [
      { SvcDonorKey__c: 'P:john.doe@kentaa.nl:doe:john', RecordTypeId: person, FirstName: 'John', LastName: 'Doe', PersonEmail: 'JOHN.DOE@kentaa.nl' },
      { SvcDonorKey__c: 'P:jane@x.nl:doe:jane', RecordTypeId: person, FirstName: 'Jane', LastName: 'Doe', PersonEmail: 'jane@x.nl' },
    ]);
    expect(codes(r)).toEqual(['DUPLICATES_DETECTED', 'created']);
    const error = (r.body as Array<{ errors: Array<{ duplicateResult: { matchResults: Array<{ matchRecords: Array<{ record: { Id: string } }> }> } }> }>)[0]?.errors[0];
    expect(error?.duplicateResult.matchResults[0]?.matchRecords.map((m) => m.record.Id)).toEqual([existing]);
    // An update of the matched record itself is no insert: the rule does not apply.
    expect(codes(await upsert(e, 'Account', 'SvcDonorKey__c', [{ SvcDonorKey__c: 'P:jane@x.nl:doe:jane', Phone: '06' }]))).toEqual(['updated']);

    e.npc.marketingUser = false;
    expect(codes(await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Segment_1', Name: 'S' }]))).toEqual(['INSUFFICIENT_ACCESS_OR_READONLY']);
    e.npc.marketingUser = true;
    expect(codes(await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Segment_1', Name: 'S' }]))).toEqual(['created']);
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
    const gift = e.npc.seed('GiftTransaction', { Name: 'G', DonorId: donor, OriginalAmount: 8, TransactionDate: '2016-05-01', Status: 'Paid', PaymentMethod: 'Cash', SvcGiftKey__c: 'Donation_9' });
    const other = e.npc.seed('GiftTransaction', { Name: 'H', DonorId: donor, OriginalAmount: 1, TransactionDate: '2016-05-01', Status: 'Paid', PaymentMethod: 'Cash', SvcGiftKey__c: 'Donation_10' });
    const refund = { SvcRefundKey__c: 'Donation_9', GiftTransaction: { SvcGiftKey__c: 'Donation_9' }, Amount: 8, Date: '2016-05-20', Status: 'Completed', Reason: 'Chargeback' };
    expect(codes(await upsert(e, 'GiftRefund', 'SvcRefundKey__c', [refund, { SvcRefundKey__c: 'Donation_10', GiftTransactionId: other, Amount: 1 }]))).toEqual(['created', 'REQUIRED_FIELD_MISSING']);
    expect(codes(await upsert(e, 'GiftRefund', 'SvcRefundKey__c', [{ ...refund, GiftTransaction: undefined, GiftTransactionId: other }]))).toEqual(['INVALID_FIELD_FOR_INSERT_UPDATE']);
    expect(e.npc.records('GiftRefund')).toEqual([expect.objectContaining({ GiftTransactionId: gift, Amount: 8, Date: '2016-05-20', Reason: 'Chargeback' })]);
    const slot = { SvcSoftCreditKey__c: 'Donation_9:fundraiser', GiftTransactionId: gift, RecipientId: donor, Role: 'Solicitor', PartialPercent: 100 };
    expect(codes(await upsert(e, 'GiftSoftCredit', 'SvcSoftCreditKey__c', [slot, { ...slot, SvcSoftCreditKey__c: 'Donation_10:fundraiser', GiftTransactionId: 'a9Z000000000000AAA' }]))).toEqual([
      'created',
      'INVALID_CROSS_REFERENCE_KEY',
    ]);
  });

  it('merges as an admin does: the loser is only in queryAll, points at the survivor, refuses writes; gifts follow', async () => {
    const e = await npcOrg();
    const person = e.npc.recordTypeId('PersonAccount');
    const loser = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', SvcDonorKey__c: 'P:j@x.nl:doe:john' });
    const survivor = e.npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', FirstName: 'John' });
    const gift = e.npc.seed('GiftTransaction', { Name: 'G', DonorId: loser, OriginalAmount: 5, TransactionDate: '2016-03-30', Status: 'Paid', PaymentMethod: 'Cash', SvcGiftKey__c: 'Donation_1' });
    e.npc.merge(survivor, loser);
    expect(await query(e, `SELECT Id FROM Account WHERE Id IN ('${loser}')`)).toEqual([]);
    expect(await query(e, `SELECT Id, MasterRecordId, IsDeleted FROM Account WHERE Id IN ('${loser}')`, true)).toEqual([
      expect.objectContaining({ Id: loser, MasterRecordId: survivor, IsDeleted: true }),
    ]);
    expect(e.npc.records('GiftTransaction').find((g) => g.Id === gift)?.DonorId).toBe(survivor);
    const update = await call(e, 'PATCH', '/composite/sobjects', { allOrNone: false, records: [{ attributes: { type: 'Account' }, Id: loser, Phone: '1' }] });
    expect(codes(update)).toEqual(['ENTITY_IS_DELETED']);
    const pointing = await upsert(e, 'GiftTransaction', 'SvcGiftKey__c', [
      { SvcGiftKey__c: 'Donation_3', Name: 'G3', DonorId: loser, OriginalAmount: 5, TransactionDate: '2016-03-30', Status: 'Paid', PaymentMethod: 'Cash' },
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
