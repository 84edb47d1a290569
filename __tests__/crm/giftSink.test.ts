/**
 * The gift projection's Salesforce port on the real client against the NPC emulator: upserts on
 * each object's own key, updates by Id, deletes (an obsolete soft credit), and queryAll that shows
 * a merged loser.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { setup } from './helpers.js';
import { queryIn } from '../../src/sync/gifts/soqlIn.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('SalesforceGiftSink', () => {
  it('upserts on the key field, updates by Id, reads, and counts every call', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const gifts = s.sink.gifts();
    const person = s.emu.npc?.recordTypeId('PersonAccount') ?? '';
    const before = gifts.calls().total;
    const [created] = await gifts.upsertOn('Account', 'SvcDonorKey__c', [{ SvcDonorKey__c: 'P:j@x.nl:doe:john', RecordTypeId: person, LastName: 'Doe' }]);
    expect(created).toMatchObject({ key: 'P:j@x.nl:doe:john', status: 'created' });
    const id = created?.status === 'created' ? created.id : '';
    const [updated] = await gifts.updateByIds('Account', [{ Id: id, Phone: '0612345678' }]);
    expect(updated).toMatchObject({ key: id, status: 'updated', id });
    const rows = await gifts.query(`SELECT Id, Phone, LastName FROM Account WHERE SvcDonorKey__c = 'P:j@x.nl:doe:john'`);
    expect(rows).toEqual([expect.objectContaining({ Id: id, Phone: '0612345678', LastName: 'Doe' })]);
    expect(gifts.calls().total - before).toBe(3);
  });

  it('deletes an obsolete soft credit in one call; one already gone counts as deleted', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const npc = s.emu.npc;
    if (!npc) throw new Error('no npc org');
    const gifts = s.sink.gifts();
    const donor = npc.seed('Account', { Name: 'Acme' });
    const gift = npc.seed('GiftTransaction', { Name: 'G', DonorId: donor, OriginalAmount: 3, TransactionDate: '2016-03-30', Status: 'Paid', PaymentMethod: 'Cash', SvcGiftKey__c: 'Donation_3' });
    const slot = npc.seed('GiftSoftCredit', { GiftTransactionId: gift, RecipientId: donor, Role: 'Solicitor', SvcSoftCreditKey__c: 'Donation_3:fundraiser' });
    const before = gifts.calls().collections;
    expect(await gifts.deleteByIds('GiftSoftCredit', [slot])).toEqual([{ id: slot, status: 'deleted' }]);
    expect(gifts.calls().collections - before).toBe(1);
    expect(npc.records('GiftSoftCredit')).toEqual([]);
    expect(npc.records('GiftTransaction').map((g) => g.Id)).toEqual([gift]);
    // The emulator answers ENTITY_IS_DELETED (as Salesforce does); the port takes it as done.
    expect(await gifts.deleteByIds('GiftSoftCredit', [slot])).toEqual([{ id: slot, status: 'deleted' }]);
    expect(s.emu.requests().filter((r) => r.startsWith('DELETE')).length).toBeGreaterThanOrEqual(2);
  });

  it('reports a refused update per record', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const gifts = s.sink.gifts();
    const id = s.emu.npc?.seed('Account', { Name: 'Acme' }) ?? '';
    const [refused] = await gifts.updateByIds('Account', [{ Id: id, NoSuchField__c: 'x' }]);
    expect(refused).toMatchObject({ key: id, status: 'failed' });
    expect(await gifts.query(`SELECT Id, Name FROM Account WHERE Id = '${id}'`)).toEqual([expect.objectContaining({ Name: 'Acme' })]);
  });

  it('finds a merged loser and its survivor only through queryAll', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const gifts = s.sink.gifts();
    const survivor = s.emu.npc?.seed('Account', { Name: 'Survivor' }) ?? '';
    const loser = s.emu.npc?.seed('Account', { Name: 'Loser', SvcDonorKey__c: 'O:loser' }) ?? '';
    s.emu.npc?.merge(survivor, loser);
    const soql = `SELECT Id, IsDeleted, MasterRecordId FROM Account WHERE SvcDonorKey__c = 'O:loser'`;
    expect(await gifts.query(soql)).toEqual([]);
    expect(await gifts.query(soql, true)).toEqual([expect.objectContaining({ Id: loser, IsDeleted: true, MasterRecordId: survivor })]);
  });

  it('with site keys: writes the keys from platform ids qualified, shared donor keys as they are, and reads back only its own, bare', async () => {
    const s = await setup({ npc: true }, { siteKeys: 6 });
    emu = s.emu;
    const npc = s.emu.npc;
    if (!npc) throw new Error('no npc org');
    const gifts = s.sink.gifts();
    expect(gifts.siteKeys).toBe(6);
    const person = npc.recordTypeId('PersonAccount');
    const donors = await gifts.upsertOn('Account', 'SvcDonorKey__c', [
      { SvcDonorKey__c: 'D:Donation_4', RecordTypeId: person, LastName: 'Smit' },
      { SvcDonorKey__c: 'P:j@x.nl:doe:john', RecordTypeId: person, LastName: 'Doe' },
    ]);
    expect(donors.map((o) => [o.key, o.status])).toEqual([
      ['D:Donation_4', 'created'],
      ['P:j@x.nl:doe:john', 'created'],
    ]);
    expect(npc.records('Account').map((a) => a.SvcDonorKey__c)).toEqual(['D:6:Donation_4', 'P:j@x.nl:doe:john']);
    const [campaign] = await gifts.upsertOn('Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Project_12', Name: 'P' }]);
    expect(campaign).toMatchObject({ key: 'Project_12', status: 'created' });
    // Site 7's campaign of the same id, and a bare one an earlier single-site run left: never site 6's.
    npc.seed('Campaign', { Name: 'Q', SvcCampaignKey__c: '7:Project_12' });
    npc.seed('Campaign', { Name: 'R', SvcCampaignKey__c: 'Project_12' });
    const rows = await queryIn(gifts, { fields: ['Id', 'Name', 'SvcCampaignKey__c'], object: 'Campaign', field: 'SvcCampaignKey__c', values: ['Project_12'] });
    expect(rows).toEqual([expect.objectContaining({ Name: 'P', SvcCampaignKey__c: 'Project_12' })]);
    const donorRows = await queryIn(gifts, { fields: ['Id', 'SvcDonorKey__c'], object: 'Account', field: 'SvcDonorKey__c', values: ['D:Donation_4', 'P:j@x.nl:doe:john'] });
    expect(donorRows.map((r) => r.SvcDonorKey__c).sort()).toEqual(['D:Donation_4', 'P:j@x.nl:doe:john']);
  });
});
