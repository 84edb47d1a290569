/**
 * The gift projection end to end (dist/cli.js, the fake platform, the strict NPC emulator): one
 * site with a donation of each kind projects field by field as PROJECTION.md says; a second run
 * writes nothing; a gift Salesforce refuses is its own failure (exit 1, the mirror row written,
 * one failed record); a dry run writes nothing and shows each donation's decision in 80 columns.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { NpcOrg, NpcRecord } from '../../fixtures/salesforce/npc.js';
import type { ApiAction, ApiDonation } from '../../src/model/apiRecords.js';
import { personKey } from '../../src/mapping/gifts/normalise.js';
import { cli, cliJson, removeDir, tempCwd, writeCalls } from './helpers.js';

const SITE = { siteId: 6, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 0, newsletterSubscriptions: 0 };

const base = (id: number, over: Partial<ApiDonation>): ApiDonation => ({
  id,
  site_id: 6,
  created_at: '2016-03-30T14:41:48Z',
  updated_at: '2016-03-30T14:41:48Z',
  payment_status: 'paid',
  payment_status_at: '2016-03-30T14:41:48Z',
  currency: 'EUR',
  payment_method: 'creditcard',
  ...over,
});

interface ProjectionJson {
  gifts: Record<string, number>;
  failures: string[];
  skipped: Array<{ donation: string; reason: string }>;
  salesforceCalls: number;
  decisions?: Array<{ donation: string; donor?: { matchedBy: string }; gift: string }>;
}

/** The §7 cases this slice writes, on the generated site's team page (E1, E2, E4-E7, E9, E13, E14). */
function donationsOf(action: ApiAction, projectId: number): ApiDonation[] {
  return [
    base(1, {
      first_name: 'John',
      last_name: 'Doe',
      email: 'john.doe@kentaa.nl',
      amount: '15.0',
      donation_amount: '15.0',
      transaction_costs: '0.4',
      registration_fee_amount: '10.0',
      total_amount: '25.4',
      action_id: action.id,
    }),
    base(2, { first_name: 'Jane', last_name: 'Doe', email: 'john.doe@kentaa.nl', donation_amount: '20.0', total_amount: '20.0', project_id: projectId }),
    base(4, { first_name: 'Karel', last_name: 'Smit', donation_amount: '10.0', total_amount: '10.0' }),
    base(5, { company: 'Acme BV', first_name: 'Eva', last_name: 'Bos', email: 'acme@x.nl', donation_amount: '100.0', total_amount: '100.0' }),
    base(6, { anonymous: true, contact_details_type: 'visible', first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl', donation_amount: '12.5', total_amount: '12.5' }),
    base(7, { donation_amount: '3.0', total_amount: '3.0', action_id: action.id }),
    base(9, {
      first_name: 'Wim',
      last_name: 'Kok',
      email: 'wim@x.nl',
      donation_amount: '8.0',
      total_amount: '8.0',
      payment_status: 'chargedback',
      created_at: '2016-05-01T10:00:00Z',
      payment_status_at: '2016-05-20T10:00:00Z',
    }),
    base(13, { first_name: 'Lot', last_name: 'Vos', email: 'lot@x.nl', amount: '25.4', total_amount: '25.4', payment_method: 'paypal' }),
    base(14, { first_name: 'Bas', last_name: 'Dam', email: 'bas@x.nl', donation_amount: '0.0', registration_fee_amount: '25.0', total_amount: '25.0' }),
  ];
}

const byField = (rows: NpcRecord[], field: string): Map<unknown, NpcRecord> => new Map(rows.map((r) => [r[field], r]));

describe('SVC_PROJECTION=npc: a site with a donation of each kind', () => {
  let stack: Stack;
  let cwd: string;
  let npc: NpcOrg;
  let action: ApiAction;
  const env = (): Record<string, string> => ({ ...stack.env, SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });

  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npc: true } });
    cwd = tempCwd('gift-projection');
    npc = stack.salesforce.npc as NpcOrg;
    const team = stack.platform.site.team[0];
    action = stack.platform.site.action.find((a) => a.team_id === team?.id) as ApiAction;
    for (const d of donationsOf(action, stack.platform.site.project[0]?.id ?? 0)) stack.platform.add('donation', d);
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a dry run writes nothing and shows each donation: the donor decision and the gift, in 80 columns', async () => {
    const res = await cli(stack, ['sync', '--all', '--dry-run'], cwd, undefined, env());
    expect(res.code).toBe(0);
    expect(npc.records('GiftTransaction')).toEqual([]);
    expect(npc.records('Account').filter((a) => a.SvcDonorKey__c)).toEqual([]);
    const lines = res.stdout.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // One row a donation under a legend of the donor decisions (§6.4): the label whole, not cut.
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}donor: link, key, email\+name = an Account found/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}donation +donor +gift +amount +date +donor label$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Donation_1 +new +insert +15\.40 {2}2016-03-30 {2}John Doe$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Donation_14 +- +skip +\(noGiftAmount\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Gifts: 8 inserted, 0 updated, 0 unchanged, 1 skipped, 0 failed \(\d+ calls\)$/));
    // Each Account once: Donations 1-13 have a donor each (the pool and a no-email donor included).
    expect(lines).toContain('  Donors: 0 matched, 8 new, 0 ambiguous');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Donation_7 +anonymousPool +insert +3\.00 {2}2016-03-30 {2}Anonymous$/));
    // Campaigns and slots come from the mirror's rows, which a dry run on a fresh org has not written.
    expect(lines).toContain('  GiftRefund 1 inserted');
  });

  it('projects field by field as the document says', async () => {
    const run = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const projection = (run.body.result as unknown as { projection: ProjectionJson }).projection;
    expect(projection.failures).toEqual([]);
    expect(projection.skipped).toEqual([{ donation: 'Donation_14', reason: 'noGiftAmount' }]);
    const accounts = byField(npc.records('Account'), 'SvcDonorKey__c');
    const id = (key: string): string | undefined => accounts.get(key)?.Id;
    expect(accounts.get('P:john.doe@kentaa.nl:doe:john')).toMatchObject({ FirstName: 'John', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl', IsPersonAccount: true });
    expect(accounts.get('P:john.doe@kentaa.nl:doe:jane')).toMatchObject({ FirstName: 'Jane', LastName: 'Doe' });
    expect(accounts.get('D:Donation_4')).toMatchObject({ FirstName: 'Karel', LastName: 'Smit' });
    expect(accounts.get('O:acme bv:acme@x.nl')).toMatchObject({ Name: 'Acme BV', IsPersonAccount: false });
    expect(accounts.get('P:acme@x.nl:bos:eva')).toMatchObject({ FirstName: 'Eva', LastName: 'Bos' });
    expect(accounts.get('A:6')).toMatchObject({ LastName: 'Anonymous' });
    const owner = action.owner ?? {};
    const fundraiserKey = personKey(String(owner.email).trim().toLowerCase(), [action.infix, action.last_name].filter(Boolean).join(' '), action.first_name ?? null);
    expect(accounts.get(fundraiserKey)).toMatchObject({ PersonEmail: String(owner.email).toLowerCase() });

    const campaigns = byField(npc.records('Campaign'), 'SvcCampaignKey__c');
    const team = stack.platform.site.team[0];
    const project = stack.platform.site.project[0];
    const segment = stack.platform.site.segment[0];
    expect([...campaigns.keys()].sort()).toEqual([`Action_${action.id}`, `Project_${project?.id}`, `Segment_${segment?.id}`, `Team_${team?.id}`].sort());
    expect(campaigns.get(`Action_${action.id}`)?.ParentId).toBe(campaigns.get(`Team_${team?.id}`)?.Id);
    expect(campaigns.get(`Team_${team?.id}`)?.ParentId).toBe(campaigns.get(`Project_${project?.id}`)?.Id);
    expect(campaigns.get(`Project_${project?.id}`)?.ParentId).toBe(campaigns.get(`Segment_${segment?.id}`)?.Id);

    const gifts = byField(npc.records('GiftTransaction'), 'SvcGiftKey__c');
    expect([...gifts.keys()].sort()).toEqual(['Donation_1', 'Donation_13', 'Donation_2', 'Donation_4', 'Donation_5', 'Donation_6', 'Donation_7', 'Donation_9']);
    expect(gifts.get('Donation_1')).toMatchObject({
      Name: 'John Doe - Donation 1',
      DonorId: id('P:john.doe@kentaa.nl:doe:john'),
      GiftType: 'Individual',
      OriginalAmount: 15.4,
      DonorCoverAmount: 0.4,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      CampaignId: campaigns.get(`Action_${action.id}`)?.Id,
      PaymentMethod: 'Credit Card',
      SvcAnonymous__c: false,
    });
    expect(gifts.get('Donation_2')).toMatchObject({ DonorId: id('P:john.doe@kentaa.nl:doe:jane'), OriginalAmount: 20, CampaignId: campaigns.get(`Project_${project?.id}`)?.Id });
    expect(gifts.get('Donation_4')).toMatchObject({ DonorId: id('D:Donation_4'), OriginalAmount: 10 });
    expect(gifts.get('Donation_4')?.CampaignId ?? null).toBeNull();
    expect(gifts.get('Donation_5')).toMatchObject({ Name: 'Acme BV - Donation 5', DonorId: id('O:acme bv:acme@x.nl'), GiftType: 'Organizational', OriginalAmount: 100 });
    expect(gifts.get('Donation_6')).toMatchObject({ DonorId: id('P:ria@x.nl:post:ria'), SvcAnonymous__c: true, OriginalAmount: 12.5 });
    expect(gifts.get('Donation_7')).toMatchObject({ Name: 'Anonymous - Donation 7', DonorId: id('A:6'), OriginalAmount: 3 });
    expect(gifts.get('Donation_9')).toMatchObject({ Status: 'Paid', OriginalAmount: 8, TransactionDate: '2016-05-01' });
    expect(gifts.get('Donation_13')).toMatchObject({ OriginalAmount: 25.4, PaymentMethod: 'PayPal' });
    expect(gifts.get('Donation_13')?.DonorCoverAmount ?? null).toBeNull();

    const slots = byField(npc.records('GiftSoftCredit'), 'SvcSoftCreditKey__c');
    expect([...slots.keys()].sort()).toEqual(['Donation_1:fundraiser', 'Donation_7:fundraiser']);
    expect(slots.get('Donation_1:fundraiser')).toMatchObject({ GiftTransactionId: gifts.get('Donation_1')?.Id, RecipientId: id(fundraiserKey), Role: 'Solicitor', PartialPercent: 100 });
    expect(slots.get('Donation_7:fundraiser')).toMatchObject({ GiftTransactionId: gifts.get('Donation_7')?.Id, RecipientId: id(fundraiserKey) });
    expect(npc.records('GiftRefund')).toEqual([
      expect.objectContaining({ SvcRefundKey__c: 'Donation_9', GiftTransactionId: gifts.get('Donation_9')?.Id, Amount: 8, Date: '2016-05-20', Status: 'Completed', Reason: 'Chargeback' }),
    ]);
    // The mirror is as exact as without the projection: every donation row is there.
    expect(stack.salesforce.records('Svc_Donation__c')).toHaveLength(9);
  });

  it('a second run with no platform change writes nothing', async () => {
    stack.salesforce.resetCalls();
    // A full run compares with the org (the repair path): nothing to write.
    const full = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(full.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    const run = await cliJson(stack, ['sync', '--since', '2000-01-01T00:00:00Z'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    const projection = (run.body.result as unknown as { projection: ProjectionJson }).projection;
    expect(projection.gifts).toMatchObject({ insert: 0, update: 0, unchanged: 9, fail: 0 });
    // Each donation is as it was projected (the state folder keeps a digest): not even read again.
    expect(projection.salesforceCalls).toBe(0);
  });

  it('with the state folder lost, a run compares with the org field by field and still writes nothing', async () => {
    fs.rmSync(path.join(cwd, '.svc-sync', 'projected-gifts.json'));
    fs.rmSync(path.join(cwd, '.svc-sync', 'donor-links.json'), { force: true });
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    const projection = (run.body.result as unknown as { projection: ProjectionJson }).projection;
    expect(projection.gifts).toMatchObject({ insert: 0, update: 0, unchanged: 8, skip: 1, fail: 0 });
    expect(projection.salesforceCalls).toBeGreaterThan(0);
  });

  it('a team renamed and closed on the platform: its campaign follows, no gift is read or written', async () => {
    const team = stack.platform.site.team[0];
    if (!team) throw new Error('no team');
    stack.platform.update('team', team.id, { name: 'Fast runners', closed: true });
    // Incremental (a full run would compare every gift with the org: the repair path).
    const run = await cliJson(stack, ['sync'], cwd, undefined, env());
    expect(run.code).toBe(0);
    const campaign = npc.records('Campaign').find((c) => c.SvcCampaignKey__c === `Team_${team.id}`);
    expect(campaign).toMatchObject({ Name: 'Fast runners', IsActive: false });
    const rows = run.body.result.records.filter((r) => !r.object.startsWith('Svc_'));
    expect(rows.map((r) => [r.object, r.key, r.action])).toEqual([['Campaign', `Team_${team.id}:campaign`, 'update']]);
  });

  it('a gift Salesforce refuses: exit 1, the mirror row written, one failed record naming donation, stage, object, key and code', async () => {
    stack.platform.add('donation', base(20, { company: 'Paal BV', first_name: 'Piet', last_name: 'Paal', email: 'pp@x.nl', donation_amount: '5.0', total_amount: '5.0' }));
    // GiftType is a restricted picklist: the admin deactivates the company gift's value while the
    // run is on its way (after the checks at its start), so Salesforce refuses that one gift.
    const gate = stack.salesforce.holdNext(/^PATCH .*\/composite\/sobjects\/GiftTransaction\/SvcGiftKey__c$/);
    // With the sync log in the org on: the failure is one error record there too.
    const running = cliJson(stack, ['sync', '--all'], cwd, undefined, { ...env(), SVC_SALESFORCE_LOG: 'on' });
    await gate.reached;
    npc.deactivateValue('GiftTransaction', 'GiftType', 'Organizational');
    gate.release();
    const run = await running;
    expect(run.code).toBe(1);
    expect(stack.salesforce.get('Svc_Donation__c', 'Donation_20')).toBeDefined();
    const failed = run.body.result.records.filter((r) => r.action === 'fail');
    expect(failed).toEqual([expect.objectContaining({ object: 'GiftTransaction', key: 'Donation_20:gift', error: expect.objectContaining({ code: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST' }) })]);
    // The record names object, donation and stage, and code: its message is Salesforce's alone.
    expect(failed[0]?.error?.message).toBe('GiftType: bad value for restricted picklist field: Organizational');
    const projection = (run.body.result as unknown as { projection: ProjectionJson }).projection;
    expect(projection.failures).toEqual([expect.stringMatching(/^Donation_20 gift GiftTransaction Donation_20: INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST: /)]);
    expect(npc.records('GiftTransaction').some((g) => g.SvcGiftKey__c === 'Donation_20')).toBe(false);
    // The donors stand: the business account the gift was for, and its person (N9).
    expect(npc.records('Account').some((a) => a.SvcDonorKey__c === 'O:paal bv:pp@x.nl')).toBe(true);
    expect(npc.records('Account').some((a) => a.SvcDonorKey__c === 'P:pp@x.nl:paal:piet')).toBe(true);
    expect(stack.salesforce.records('Svc_SyncError__c')).toEqual([
      expect.objectContaining({ Key__c: 'Donation_20:gift', ObjectName__c: 'GiftTransaction', StatusCode__c: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', Status__c: 'Open' }),
    ]);
    // The next sync takes the donation again by id, and so projects it again.
    const state = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { retry?: unknown[] };
    expect(state.retry).toEqual([{ type: 'donation', id: 20 }]);
  });
});

describe('SVC_PROJECTION=npc: a read the batch needs is refused', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npc: true } });
    cwd = tempCwd('gift-projection-read');
    const action = stack.platform.site.action[0] as ApiAction;
    for (const d of donationsOf(action, stack.platform.site.project[0]?.id ?? 0).slice(0, 2)) stack.platform.add('donation', d);
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('each donation of the batch fails in one line, the mirror rows stand, exit 1', async () => {
    const npc = stack.salesforce.npc as NpcOrg;
    // The campaigns' field hidden from the integration user after the run's checks, while the
    // donors are written: the projection's campaign read that follows is refused.
    const gate = stack.salesforce.holdNext(/^PATCH .*\/composite\/sobjects\/Account\/SvcDonorKey__c$/);
    const running = cliJson(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });
    await gate.reached;
    npc.removeField('Campaign', 'ExpectedRevenue');
    gate.release();
    const run = await running;
    expect(run.code).toBe(1);
    expect(
      stack.salesforce
        .records('Svc_Donation__c')
        .map((r) => r.SvcId__c)
        .sort(),
    ).toEqual(['Donation_1', 'Donation_2']);
    expect(run.body.result.summary.Svc_Donation__c?.failed).toBe(0);
    const projection = (run.body.result as unknown as { projection: ProjectionJson }).projection;
    expect(projection.failures.map((f) => f.split(':')[0])).toEqual(['Donation_1 gift GiftTransaction Donation_1', 'Donation_2 gift GiftTransaction Donation_2']);
    for (const line of projection.failures) expect(line).toMatch(/^Donation_[12] gift GiftTransaction Donation_[12]: PROJECTION_FAILED: [^\n]*ExpectedRevenue[^\n]*$/);
    expect(npc.records('GiftTransaction')).toEqual([]);
  });
});

describe('SVC_PROJECTION=npc: an org whose currency is not EUR', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npc: true, orgCurrency: 'GBP' } });
    cwd = tempCwd('gift-projection-gbp');
    stack.platform.add('donation', base(31, { first_name: 'Ann', last_name: 'Lee', email: 'ann@x.uk', donation_amount: '10.0', total_amount: '10.0', currency: 'GBP' }));
    stack.platform.add('donation', base(32, { first_name: 'Bo', last_name: 'Ray', email: 'bo@x.uk', donation_amount: '5.0', total_amount: '5.0', currency: 'EUR' }));
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('writes the gifts in the org’s currency (read from the org) and refuses the others as CURRENCY_MISMATCH', async () => {
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });
    expect(`${res.stdout}\n${res.stderr}`).toMatch(/CURRENCY_MISMATCH: org GBP, donation EUR \(Donation_32:gift\)/);
    expect(res.code).toBe(1);
    const gifts = (stack.salesforce.npc as NpcOrg).records('GiftTransaction');
    expect(gifts.map((g) => [g.SvcGiftKey__c, g.OriginalAmount])).toEqual([['Donation_31', 10]]);
  });
});
