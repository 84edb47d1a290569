/**
 * The writer's steps after the donors (campaigns, gifts, soft credits, refunds) on the real client
 * against the strict NPC emulator: donors are seeded in the org, the campaign tree comes from the
 * mirror's own Svc_* rows, and a second pass over the same donations sends nothing.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import type { ApiDonation } from '../../../src/model/apiRecords.js';
import type { GiftSink } from '../../../src/model/ports.js';
import { giftOf } from '../../../src/mapping/gifts/gift.js';
import { NPC_TARGET } from '../../../src/mapping/gifts/npcTarget.js';
import { chainOf, readCampaignTree } from '../../../src/sync/gifts/campaignRows.js';
import { writeCampaigns } from '../../../src/sync/gifts/campaigns.js';
import type { DonorResult } from '../../../src/sync/gifts/donors.js';
import { writeGifts } from '../../../src/sync/gifts/gifts.js';
import type { GiftItem, PlannedGift } from '../../../src/sync/gifts/item.js';
import { writeRefunds } from '../../../src/sync/gifts/refunds.js';
import { writeSoftCredits } from '../../../src/sync/gifts/softCredits.js';
import { setup } from '../../crm/helpers.js';
import { mirrorTree } from './mirrorTree.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const TZ = 'Europe/Amsterdam';

const donation = (over: Partial<ApiDonation>): ApiDonation => ({
  id: 1,
  site_id: 6,
  first_name: 'John',
  last_name: 'Doe',
  email: 'john.doe@kentaa.nl',
  payment_status: 'paid',
  amount: '15.0',
  donation_amount: '15.0',
  transaction_costs: '0.4',
  registration_fee_amount: '10.0',
  total_amount: '25.4',
  currency: 'EUR',
  created_at: '2016-03-30T14:41:48Z',
  action_id: 7,
  ...over,
});

function item(d: ApiDonation, donors: DonorResult, campaign: string | undefined): GiftItem {
  const plan = giftOf(
    d,
    { donor: { kind: 'person', key: donors.donor.key, person: true, fields: {} }, anonymous: donors.anonymous, label: donors.label, giftType: donors.giftType },
    { timeZone: TZ, orgCurrency: 'EUR' },
  );
  if ('skip' in plan) throw new Error(plan.reason);
  return { d, key: `Donation_${d.id}`, plan: plan as PlannedGift, donors, links: { donor: donors.donor.id }, campaign };
}

/** One pass of the steps as the orchestrator runs them; the calls it made. */
async function pass(gifts: GiftSink, items: GiftItem[], dryRun = false): Promise<{ calls: number; writes: number; rows: string[] }> {
  const before = gifts.calls();
  const tree = await readCampaignTree(
    gifts,
    items.flatMap((i) => (i.campaign ? [i.campaign] : [])),
  );
  const keys = new Set(items.flatMap((i) => (i.campaign ? chainOf(tree, i.campaign) : [])));
  const campaigns = await writeCampaigns(gifts, tree, keys, { timeZone: TZ, dryRun });
  const g = await writeGifts(gifts, NPC_TARGET, items, campaigns.ids, dryRun);
  const fresh = new Set(g.rows.filter((r) => r.action === 'insert').map((r) => r.key));
  const sc = await writeSoftCredits(gifts, NPC_TARGET, items, g.ids, dryRun, fresh);
  const rf = await writeRefunds(gifts, NPC_TARGET, items, g.ids, dryRun, fresh);
  const after = gifts.calls();
  const rows = [...campaigns.rows, ...g.rows, ...sc.rows, ...rf.rows].filter((r) => r.action !== 'unchanged').map((r) => `${r.action} ${r.object} ${r.key}`);
  return { calls: after.total - before.total, writes: after.collections - before.collections, rows };
}

describe('the gift steps', () => {
  it('write the campaign tree top-down, the gift, the fundraiser slot and a refund field by field; a second pass writes nothing', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    await mirrorTree(s);
    const npc = s.emu.npc;
    if (!npc) throw new Error('no NPC org');
    const person = npc.recordTypeId('PersonAccount');
    const john = npc.seed('Account', { RecordTypeId: person, FirstName: 'John', LastName: 'Doe', SvcDonorKey__c: 'P:john.doe@kentaa.nl:doe:john' });
    const piet = npc.seed('Account', { RecordTypeId: person, FirstName: 'Piet', LastName: 'Jansen', SvcDonorKey__c: 'P:piet@x.nl:jansen:piet' });
    const donors = (id: number): DonorResult => ({
      donationId: id,
      donor: { matchedBy: 'key', key: 'P:john.doe@kentaa.nl:doe:john', id: john },
      fundraiser: { matchedBy: 'key', key: 'P:piet@x.nl:jansen:piet', id: piet },
      anonymous: false,
      label: 'John Doe',
      giftType: 'Individual',
      warnings: [],
    });
    const e1 = donation({ id: 1, payment_method: 'creditcard', transaction_id: 'tx-1' });
    const e9 = donation({
      id: 9,
      donation_amount: '8.0',
      amount: '8.0',
      transaction_costs: null,
      payment_status: 'chargedback',
      created_at: '2016-05-01T10:00:00Z',
      payment_status_at: '2016-05-20T10:00:00Z',
    });
    const items = [item(e1, donors(1), 'Action_7'), item(e9, donors(9), 'Action_7')];
    const first = await pass(s.sink.gifts(), items);
    expect(first.rows).toEqual([
      'insert Campaign Segment_2',
      'insert Campaign Project_3',
      'insert Campaign Team_4',
      'insert Campaign Action_7',
      'insert GiftTransaction Donation_1',
      'insert GiftTransaction Donation_9',
      'insert GiftSoftCredit Donation_1:fundraiser',
      'insert GiftSoftCredit Donation_9:fundraiser',
      'insert GiftRefund Donation_9',
    ]);
    const campaigns = new Map(npc.records('Campaign').map((c) => [c.SvcCampaignKey__c, c]));
    const idOf = (k: string): string | undefined => campaigns.get(k)?.Id;
    expect(campaigns.get('Segment_2')).toMatchObject({ Name: 'Spring run', IsActive: true, StartDate: '2016-02-01' });
    expect(campaigns.get('Segment_2')?.ParentId ?? null).toBeNull();
    expect(campaigns.get('Project_3')).toMatchObject({ Name: 'Water', ParentId: idOf('Segment_2'), IsActive: true, ExpectedRevenue: 1000 });
    expect(campaigns.get('Team_4')).toMatchObject({ Name: 'Runners', ParentId: idOf('Project_3'), IsActive: false, EndDate: '2016-07-01' });
    expect(campaigns.get('Action_7')).toMatchObject({ Name: 'Piet Jansen', ParentId: idOf('Team_4'), IsActive: true });
    const gift = npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === 'Donation_1');
    expect(gift).toMatchObject({
      Name: 'John Doe - Donation 1',
      DonorId: john,
      GiftType: 'Individual',
      OriginalAmount: 15.4,
      DonorCoverAmount: 0.4,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      CampaignId: idOf('Action_7'),
      PaymentMethod: 'Credit Card',
      GatewayReference: 'tx-1',
      SvcAnonymous__c: false,
    });
    expect(npc.records('GiftSoftCredit').find((c) => c.SvcSoftCreditKey__c === 'Donation_1:fundraiser')).toMatchObject({
      GiftTransactionId: gift?.Id,
      RecipientId: piet,
      Role: 'Solicitor',
      PartialPercent: 100,
    });
    const e9Gift = npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === 'Donation_9');
    expect(e9Gift).toMatchObject({ Status: 'Paid', OriginalAmount: 8, TransactionDate: '2016-05-01' });
    expect(npc.records('GiftRefund')).toEqual([
      expect.objectContaining({ SvcRefundKey__c: 'Donation_9', GiftTransactionId: e9Gift?.Id, Amount: 8, Date: '2016-05-20', Status: 'Completed', Reason: 'Chargeback' }),
    ]);
    const second = await pass(s.sink.gifts(), items);
    expect(second.rows).toEqual([]);
    // The project renamed in the mirror: its campaign is updated in place (the stored record changes).
    await s.sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_3', Name: 'Clean water' }]);
    const renamed = await pass(s.sink.gifts(), items);
    expect(renamed.rows).toEqual(['update Campaign Project_3']);
    expect(npc.records('Campaign').find((c) => c.SvcCampaignKey__c === 'Project_3')).toMatchObject({ Name: 'Clean water', Id: idOf('Project_3') });
    expect(npc.records('Campaign')).toHaveLength(4);
    expect(second.writes).toBe(0);
    // Reads only: the tree (action, team, project, segment), campaigns, gifts, slots, refunds.
    expect(second.calls).toBe(8);
  });

  it('a refund later (E8) adds only the GiftRefund; the gift stays Paid on its day', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    await mirrorTree(s);
    const npc = s.emu.npc;
    if (!npc) throw new Error('no NPC org');
    const john = npc.seed('Account', { RecordTypeId: npc.recordTypeId('PersonAccount'), FirstName: 'John', LastName: 'Doe', SvcDonorKey__c: 'P:john.doe@kentaa.nl:doe:john' });
    const donors: DonorResult = {
      donationId: 1,
      donor: { matchedBy: 'key', key: 'P:john.doe@kentaa.nl:doe:john', id: john },
      anonymous: false,
      label: 'John Doe',
      giftType: 'Individual',
      warnings: [],
    };
    await pass(s.sink.gifts(), [item(donation({ id: 1 }), donors, 'Action_7')]);
    const later = await pass(s.sink.gifts(), [item(donation({ id: 1, payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z' }), donors, 'Action_7')]);
    expect(later.rows).toEqual(['insert GiftRefund Donation_1']);
    expect(npc.records('GiftRefund')).toEqual([expect.objectContaining({ SvcRefundKey__c: 'Donation_1', Amount: 15.4, Date: '2016-04-03', Status: 'Completed' })]);
    expect(npc.records('GiftRefund')[0]?.Reason ?? null).toBeNull();
    expect(npc.records('GiftTransaction')).toEqual([expect.objectContaining({ Status: 'Paid', TransactionDate: '2016-03-30' })]);
  });

  it('no slot when the fundraiser is the donor; a dry run reads but writes nothing', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    await mirrorTree(s);
    const npc = s.emu.npc;
    if (!npc) throw new Error('no NPC org');
    const piet = npc.seed('Account', { RecordTypeId: npc.recordTypeId('PersonAccount'), FirstName: 'Piet', LastName: 'Jansen', SvcDonorKey__c: 'P:piet@x.nl:jansen:piet' });
    const self: DonorResult = {
      donationId: 3,
      donor: { matchedBy: 'key', key: 'P:piet@x.nl:jansen:piet', id: piet },
      fundraiser: { matchedBy: 'key', key: 'P:piet@x.nl:jansen:piet', id: piet },
      anonymous: false,
      label: 'Piet Jansen',
      giftType: 'Individual',
      warnings: [],
    };
    const items = [item(donation({ id: 3, first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl' }), self, 'Action_7')];
    const dry = await pass(s.sink.gifts(), items, true);
    expect(dry.rows).toEqual(['insert Campaign Segment_2', 'insert Campaign Project_3', 'insert Campaign Team_4', 'insert Campaign Action_7', 'insert GiftTransaction Donation_3']);
    expect(dry.writes).toBe(0);
    expect(npc.records('Campaign')).toEqual([]);
    const real = await pass(s.sink.gifts(), items);
    expect(real.rows).toEqual(dry.rows);
    expect(npc.records('GiftSoftCredit')).toEqual([]);
  });

  it('a gift Salesforce refuses fails alone, with its code; its campaigns stand', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    await mirrorTree(s);
    const npc = s.emu.npc;
    if (!npc) throw new Error('no NPC org');
    // GiftType is a restricted picklist: a value the admin deactivated is refused.
    npc.deactivateValue('GiftTransaction', 'GiftType', 'Organizational');
    const john = npc.seed('Account', { RecordTypeId: npc.recordTypeId('PersonAccount'), FirstName: 'John', LastName: 'Doe', SvcDonorKey__c: 'P:john.doe@kentaa.nl:doe:john' });
    const donors = (id: number): DonorResult => ({
      donationId: id,
      donor: { matchedBy: 'key', key: 'P:john.doe@kentaa.nl:doe:john', id: john },
      anonymous: false,
      label: 'John Doe',
      giftType: id === 1 ? 'Organizational' : 'Individual',
      warnings: [],
    });
    const gifts = s.sink.gifts();
    const items = [
      item(donation({ id: 1, company: 'Acme BV' }), { ...donors(1), label: 'Acme BV', giftType: 'Organizational' }, 'Action_7'),
      item(donation({ id: 2, action_id: null, project_id: 3 }), donors(2), 'Project_3'),
    ];
    const tree = await readCampaignTree(gifts, ['Action_7', 'Project_3']);
    const campaigns = await writeCampaigns(gifts, tree, new Set([...chainOf(tree, 'Action_7'), ...chainOf(tree, 'Project_3')]), { timeZone: TZ, dryRun: false });
    const g = await writeGifts(gifts, NPC_TARGET, items, campaigns.ids, false);
    expect([...g.failed]).toEqual([['Donation_1', expect.objectContaining({ code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST' })]]);
    expect(npc.records('GiftTransaction').map((r) => r.SvcGiftKey__c)).toEqual(['Donation_2']);
    expect(npc.records('Campaign')).toHaveLength(4);
  });
});
