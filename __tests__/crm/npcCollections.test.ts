/**
 * The writer of the gift projection needs no new Salesforce code for its writes and reads: the
 * mirror's sObject Collections upsert (on any external id, lookups as `Rel.Key` by external id)
 * and its paged query already reach the Nonprofit Cloud objects, through the real client.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { upsertViaCollections } from '../../src/crm/collections.js';
import { queryAll } from '../../src/crm/query.js';
import { setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('the mirror’s Salesforce calls on the NPC objects', () => {
  it('upserts donors and gifts on their keys, with the donor by external id, in one call each; a rerun updates', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const person = s.emu.npc?.recordTypeId('PersonAccount') ?? '';
    const donors = await upsertViaCollections(s.sink.api, 'Account', [{ SvcDonorKey__c: 'P:j@x.nl:doe:john', RecordTypeId: person, LastName: 'Doe', FirstName: 'John' }], undefined, 'SvcDonorKey__c');
    expect([...donors.values()].map((o) => o.status)).toEqual(['created']);
    const gift = {
      SvcGiftKey__c: 'Donation_1',
      Name: 'John Doe - Donation 1',
      'Donor.SvcDonorKey__c': 'P:j@x.nl:doe:john',
      OriginalAmount: 15.4,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      GiftType: 'Individual',
      PaymentMethod: 'Credit Card',
    };
    const before = s.sink.calls().total;
    const first = await upsertViaCollections(s.sink.api, 'GiftTransaction', [gift], undefined, 'SvcGiftKey__c');
    expect(s.sink.calls().total - before).toBe(1);
    expect([...first.values()].map((o) => o.status)).toEqual(['created']);
    const again = await upsertViaCollections(s.sink.api, 'GiftTransaction', [gift], undefined, 'SvcGiftKey__c');
    expect([...again.values()].map((o) => o.status)).toEqual(['updated']);
    const donor = donors.get('P:j@x.nl:doe:john');
    const rows = await queryAll(s.sink.api, "SELECT Id, DonorId, OriginalAmount FROM GiftTransaction WHERE SvcGiftKey__c IN ('Donation_1')");
    expect(rows).toEqual([expect.objectContaining({ DonorId: donor && 'id' in donor ? donor.id : 'none', OriginalAmount: 15.4 })]);
  });

  it('reports a refused gift per record with Salesforce’s code (GiftType is a restricted picklist)', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const donor = s.emu.npc?.seed('Account', { Name: 'Acme' }) ?? '';
    const out = await upsertViaCollections(
      s.sink.api,
      'GiftTransaction',
      [{ SvcGiftKey__c: 'Donation_2', Name: 'G', DonorId: donor, OriginalAmount: 1, TransactionDate: '2016-03-30', Status: 'Paid', PaymentMethod: 'Cash', GiftType: 'Corporate' }],
      undefined,
      'SvcGiftKey__c',
    );
    expect(out.get('Donation_2')).toMatchObject({ status: 'failed', error: { code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', fields: ['GiftType'] } });
  });
});
