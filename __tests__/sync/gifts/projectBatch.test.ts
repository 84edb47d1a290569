/**
 * projectBatch, the orchestrator, with the real donor step against the strict NPC emulator:
 * eligibility (N2), order (§6.1), each step only for the donations whose prerequisites succeeded
 * (DONOR_FAILED, CAMPAIGN_FAILED), the currency rule (N3), and a dry run that writes nothing.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import type { NpcOrg } from '../../../fixtures/salesforce/npc.js';
import type { ApiDonation } from '../../../src/model/apiRecords.js';
import { NPC_TARGET } from '../../../src/mapping/gifts/npcTarget.js';
import { projectBatch } from '../../../src/sync/gifts/projectBatch.js';
import { readRecordTypes } from '../../../src/sync/gifts/recordTypes.js';
import { setup } from '../../crm/helpers.js';
import { MemoryLinks } from './helpers.js';
import { mirrorTree } from './mirrorTree.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const donation = (id: number, over: Partial<ApiDonation> = {}): ApiDonation => ({
  id,
  site_id: 6,
  first_name: 'John',
  last_name: 'Doe',
  email: 'john.doe@kentaa.nl',
  payment_status: 'paid',
  donation_amount: '5.0',
  total_amount: '5.0',
  currency: 'EUR',
  created_at: '2016-03-30T14:41:48Z',
  payment_method: 'creditcard',
  action_id: 7,
  ...over,
});

async function org(): Promise<{ npc: NpcOrg; run: (donations: ApiDonation[], dryRun?: boolean) => ReturnType<typeof projectBatch> }> {
  const s = await setup({ npc: true });
  emu = s.emu;
  await mirrorTree(s);
  const sink = s.sink.gifts();
  const recordTypes = await readRecordTypes(sink, 'PersonAccount');
  const links = new MemoryLinks();
  const ctx = { sink, target: NPC_TARGET, siteId: 6, timeZone: 'Europe/Amsterdam', anonymousLastName: 'Anonymous', matchEmailAndName: true, orgCurrency: 'EUR', recordTypes, links };
  return { npc: s.emu.npc as NpcOrg, run: (donations, dryRun = false) => projectBatch(donations, { ...ctx, dryRun }) };
}

describe('projectBatch', () => {
  it('E3: the same person twice (the email upper-cased) is one donor; both gifts credit the fundraiser; ids ascending', async () => {
    const { npc, run } = await org();
    const out = await run([donation(3, { email: 'JOHN.DOE@kentaa.nl' }), donation(1)]);
    expect(out.failures).toEqual([]);
    expect(out.donations.map((d) => [d.donation, d.gift, d.donor?.matchedBy])).toEqual([
      ['Donation_1', 'insert', 'new'],
      ['Donation_3', 'insert', 'key'],
    ]);
    const john = npc.records('Account').filter((a) => a.SvcDonorKey__c === 'P:john.doe@kentaa.nl:doe:john');
    expect(john).toHaveLength(1);
    expect(npc.records('GiftTransaction').map((g) => g.DonorId)).toEqual([john[0]?.Id, john[0]?.Id]);
    const piet = npc.records('Account').find((a) => a.SvcDonorKey__c === 'P:piet@x.nl:jansen:piet');
    expect(npc.records('GiftSoftCredit').map((c) => [c.SvcSoftCreditKey__c, c.RecipientId])).toEqual([
      ['Donation_1:fundraiser', piet?.Id],
      ['Donation_3:fundraiser', piet?.Id],
    ]);
  });

  it('N2 and N3: a fee-only donation writes nothing; another currency writes its donor and campaigns, no gift, one failure', async () => {
    const { npc, run } = await org();
    const out = await run([donation(14, { first_name: 'Bas', email: 'bas@x.nl', donation_amount: '0.0', registration_fee_amount: '25.0', total_amount: '25.0' }), donation(12, { currency: 'GBP' })]);
    expect(out.donations.map((d) => [d.donation, d.gift, d.reason])).toEqual([
      ['Donation_12', 'fail', 'CURRENCY_MISMATCH'],
      ['Donation_14', 'skip', 'noGiftAmount'],
    ]);
    expect(out.failures).toEqual([{ donation: 'Donation_12', stage: 'gift', object: 'GiftTransaction', key: 'Donation_12', error: { code: 'CURRENCY_MISMATCH', message: 'org EUR, donation GBP' } }]);
    expect(npc.records('GiftTransaction')).toEqual([]);
    expect(npc.records('GiftSoftCredit')).toEqual([]);
    expect(
      npc
        .records('Account')
        .map((a) => a.SvcDonorKey__c)
        .sort(),
    ).toEqual(['P:john.doe@kentaa.nl:doe:john', 'P:piet@x.nl:jansen:piet']);
    expect(
      npc
        .records('Campaign')
        .map((c) => c.SvcCampaignKey__c)
        .sort(),
    ).toEqual(['Action_7', 'Project_3', 'Segment_2', 'Team_4']);
  });

  it('CAMPAIGN_FAILED: a campaign Salesforce refuses fails once, the gifts below it are not written, the others are', async () => {
    const { npc, run } = await org();
    // An admin nested the segment's campaign under the project's: the project under the segment is a cycle.
    const project = npc.seed('Campaign', { Name: 'Water', SvcCampaignKey__c: 'Project_3' });
    npc.seed('Campaign', { Name: 'Spring run', SvcCampaignKey__c: 'Segment_2', ParentId: project });
    const out = await run([donation(1), donation(2, { action_id: null, segment_id: 2 }), donation(3, { action_id: null, project_id: 3 })]);
    expect(out.failures.map((f) => [f.donation, f.stage, f.object, f.key, f.error.code])).toEqual([
      ['Donation_1', 'campaign', 'Campaign', 'Project_3', 'INVALID_CROSS_REFERENCE_KEY'],
      ['Donation_1', 'gift', 'GiftTransaction', 'Donation_1', 'CAMPAIGN_FAILED'],
      ['Donation_3', 'gift', 'GiftTransaction', 'Donation_3', 'CAMPAIGN_FAILED'],
    ]);
    expect(npc.records('GiftTransaction').map((g) => g.SvcGiftKey__c)).toEqual(['Donation_2']);
    expect(npc.records('Campaign').map((c) => c.SvcCampaignKey__c)).toEqual(['Project_3', 'Segment_2']);
    expect(npc.records('Campaign').find((c) => c.SvcCampaignKey__c === 'Project_3')?.ParentId ?? null).toBeNull();
  });

  it('DONOR_FAILED: a donor Salesforce refuses fails its gift, slot and refund; the batch goes on', async () => {
    const { npc, run } = await org();
    npc.removeField('Account', 'PersonBirthdate');
    const out = await run([
      donation(1, { birthday: '1980-02-03', payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z' }),
      donation(2, { first_name: 'Jane', project_id: 3, action_id: null }),
    ]);
    expect(out.failures.map((f) => [f.donation, f.stage, f.object, f.error.code])).toEqual([
      ['Donation_1', 'donor', 'Account', 'INVALID_FIELD'],
      ['Donation_1', 'gift', 'GiftTransaction', 'DONOR_FAILED'],
    ]);
    expect(npc.records('GiftTransaction').map((g) => g.SvcGiftKey__c)).toEqual(['Donation_2']);
    expect(npc.records('GiftRefund')).toEqual([]);
  });

  it('a dry run reads, decides and writes nothing', async () => {
    const { npc, run } = await org();
    const out = await run([donation(1), donation(9, { payment_status: 'chargedback', payment_status_at: '2016-05-20T10:00:00Z' })], true);
    expect(out.donations.map((d) => [d.donation, d.gift, d.donor?.matchedBy, d.name, d.amount, d.date, d.campaign])).toEqual([
      ['Donation_1', 'insert', 'new', 'John Doe - Donation 1', 5, '2016-03-30', 'Action_7'],
      ['Donation_9', 'insert', 'key', 'John Doe - Donation 9', 5, '2016-03-30', 'Action_7'],
    ]);
    expect(out.rows.filter((r) => r.object === 'GiftRefund').map((r) => [r.key, r.action])).toEqual([['Donation_9', 'insert']]);
    for (const object of ['Campaign', 'GiftTransaction', 'GiftSoftCredit', 'GiftRefund']) expect(npc.records(object)).toEqual([]);
    expect(npc.records('Account').filter((a) => a.SvcDonorKey__c)).toEqual([]);
  });
});
