/**
 * PROJECTION.md §7 for NPSP end to end: the generated §7 site synced by dist/cli.js `sync --all`
 * with SVC_PROJECTION=npsp into the strict NPSP org, with NPSP's automation (households, the
 * primary contact role) and without it. Refund mode `stage` (P1, P10), forced by SVC_NPSP_REFUND_MODE in
 * an org whose payments have npsp__DebitType__c (auto would take `payments` there, npspPayments.test.ts). Every expected value
 * (../support/npspOrg.ts) is written from the document, not from the code's output.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { accounts, contacts, opportunities, projectedNpsp, roles } from '../support/npspOrg.js';
import { CAMPAIGNS } from '../support/projectionOrg.js';
import { cli, cliJson, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';

const SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };

describe.each([
  ['with NPSP automation', true],
  ['without NPSP automation', false],
])('the §7 site projected into NPSP by sync --all, %s', (_name, automation) => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: automation } });
    env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_NPSP_REFUND_MODE: 'stage', SVC_SITE_ID: '6' };
    cwd = tempCwd('npsp-projection');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a dry run first: exit 0, nothing written, the gift in another currency listed as skipped (§6.4)', async () => {
    const res = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
    const projection = (res.body.result as unknown as { projection: { skipped: Array<{ donation: string; reason: string }>; failures: string[] } }).projection;
    expect(projection.failures).toEqual([]);
    expect(projection.skipped).toEqual([
      { donation: 'Donation_12', reason: 'CURRENCY_MISMATCH: org EUR, donation GBP' },
      { donation: 'Donation_14', reason: expect.stringMatching(/^noGiftAmount/) as unknown as string },
    ]);
  });

  it('first run: every Contact, Account, Opportunity, contact role, payment and Campaign as the document says', async () => {
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    // E12: the one failure (§2.4, §6.5): exit 1, a line naming the donation and the code.
    expect(`${res.stdout}\n${res.stderr}`).toMatch(/CURRENCY_MISMATCH.*Donation_12\b|Donation_12\b.*CURRENCY_MISMATCH/);
    expect(res.code).toBe(1);
    const p = projectedNpsp(stack);
    const opps = opportunities(automation);
    expect(p.contacts).toEqual(contacts(automation));
    expect(p.accounts).toEqual(accounts(automation));
    expect(p.opportunities).toEqual(opps);
    expect(p.roles).toEqual(roles(automation, opps));
    // `stage` mode: the checkbox tells NPSP to make no payment (P10), with or without automation.
    expect(p.payments).toEqual({});
    expect(p.campaigns).toEqual(CAMPAIGNS);
  });

  it('E18: a second run with no platform change writes nothing', async () => {
    stack.salesforce.resetCalls();
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
    expect(projectedNpsp(stack).opportunities).toEqual(opportunities(automation));
  });

  it('a dry run after it writes nothing and finds every gift unchanged', async () => {
    stack.salesforce.resetCalls();
    const res = await cli(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(res.stdout).toMatch(/^Gifts: 0 inserted, 0 updated, 17 unchanged, 2 skipped, 0 failed \(\d+ calls\)$/m);
  });
});

/** A paid donation made on the given day; updated now, so an incremental run reads it. */
function donation(id: number, day: string, fields: Partial<ApiDonation>): ApiDonation {
  const created = `${day}T10:00:00Z`;
  return {
    id,
    site_id: 6,
    created_at: created,
    updated_at: new Date().toISOString(),
    currency: 'EUR',
    payment_method: 'creditcard',
    payment_status: 'paid',
    payment_status_at: created,
    transaction_id: `TX${id}`,
    ...fields,
  };
}

describe.each([
  ['with NPSP automation', true],
  ['without NPSP automation', false],
])('the §7 site in NPSP after platform changes, %s (P10, P12)', (_name, automation) => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;
  const want = { contacts: contacts(automation), accounts: accounts(automation), opportunities: opportunities(automation) };
  let wantRoles = roles(automation, want.opportunities);
  let wantCampaigns = CAMPAIGNS;

  /** Runs sync --all (E12 its one failure), then the org holds exactly `want`, and a second run writes nothing. */
  async function syncExact(): Promise<void> {
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    const check = (): void => {
      const p = projectedNpsp(stack);
      expect({ contacts: p.contacts, accounts: p.accounts, opportunities: p.opportunities, roles: p.roles, payments: p.payments, campaigns: p.campaigns }).toEqual({
        ...want,
        roles: wantRoles,
        payments: {},
        campaigns: wantCampaigns,
      });
    };
    check();
    stack.salesforce.resetCalls();
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
    check();
  }

  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: automation } });
    env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_NPSP_REFUND_MODE: 'stage', SVC_SITE_ID: '6' };
    cwd = tempCwd('npsp-projection-runs');
    await syncExact();
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('E8 in `stage` mode: a refund makes the gift Closed Lost, nothing else changes', async () => {
    stack.platform.update('donation', 1, { payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z', updated_at: new Date().toISOString() });
    want.opportunities.Donation_1 = { ...want.opportunities.Donation_1, StageName: 'Closed Lost' };
    await syncExact();
  });

  it('the refund undone: Closed Won again (P10)', async () => {
    stack.platform.update('donation', 1, { payment_status: 'paid', payment_status_at: '2016-03-30T14:41:48Z', updated_at: new Date().toISOString() });
    want.opportunities.Donation_1 = { ...want.opportunities.Donation_1, StageName: 'Closed Won' };
    await syncExact();
  });

  it('an email changed (N18, P12): a new Contact is the primary contact, the fundraiser slot stays', async () => {
    stack.platform.update('donation', 3, { email: 'john@new.nl', updated_at: new Date().toISOString() });
    const john = 'P:john@new.nl:doe:john';
    want.contacts[john] = {
      FirstName: 'John',
      LastName: 'Doe',
      Email: 'john@new.nl',
      npe01__HomeEmail__c: 'john@new.nl',
      npe01__Preferred_Email__c: 'Personal',
      ...(automation ? { Account: `HH:${john}` } : {}),
    };
    if (automation) {
      want.accounts[`HH:${john}`] = {
        Name: 'Doe Household',
        RecordType: 'HH_Account',
        npe01__SYSTEM_AccountType__c: 'Household Account',
        Type: 'Household',
        npe01__SYSTEMIsIndividual__c: true,
        One2One: john,
      };
    }
    want.opportunities.Donation_3 = { ...want.opportunities.Donation_3, Primary: john, ...(automation ? { Account: `HH:${john}` } : {}) };
    // With automation the primary role follows the contact, and NPSP's clearOCRs drops the slot: svc-sync writes it again.
    wantRoles = roles(automation, want.opportunities);
    await syncExact();
  });

  it('E10: an action moved, the gift follows to the new page, whose owner is the donor: the slot goes', async () => {
    stack.platform.update('donation', 1, { action_id: 8, team_id: null, updated_at: new Date().toISOString() });
    want.opportunities.Donation_1 = { ...want.opportunities.Donation_1, Campaign: 'Action_8' };
    // Action 8 is hidden: inactive; without a team its parent is the project.
    wantCampaigns = { ...CAMPAIGNS, Action_8: { Name: 'John Doe', Parent: 'Project_3', StartDate: '2016-02-20', ExpectedRevenue: 250, IsActive: false } };
    const { 'Donation_1:fundraiser': _gone, ...kept } = roles(automation, want.opportunities);
    wantRoles = kept;
    await syncExact();
  });

  it('a new donation by a known donor: matched by link, a new Opportunity on her household', async () => {
    stack.platform.add(
      'donation',
      donation(40, '2016-04-10', { project_id: 3, segment_id: 2, first_name: 'Lisa', infix: 'de', last_name: 'Wit', email: 'lisa@x.nl', donation_amount: '12.0', total_amount: '12.0' }),
    );
    const lisa = 'P:lisa@x.nl:de wit:lisa';
    want.opportunities.Donation_40 = {
      Name: 'Lisa de Wit - Donation 40',
      StageName: 'Closed Won',
      CloseDate: '2016-04-10',
      Amount: 12,
      npe01__Do_Not_Automatically_Create_Payment__c: true,
      SvcAnonymous__c: false,
      RecordType: 'Donation',
      ...(automation ? { Account: `HH:${lisa}` } : {}),
      Primary: lisa,
      Campaign: 'Project_3',
    };
    const { 'Donation_1:fundraiser': _gone, ...kept } = roles(automation, want.opportunities);
    wantRoles = kept;
    await syncExact();
    expect(Object.keys(projectedNpsp(stack).contacts).filter((k) => k.startsWith('P:lisa@'))).toEqual([lisa]);
  });
});

describe('SVC_PROJECTION auto and NPSP (§0)', () => {
  it('an org with NPSP and Nonprofit Cloud: auto refused in one line, exit 2, before anything is read or written', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npc: true, npsp: true } });
    const cwd = tempCwd('npsp-projection-both');
    try {
      const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto', SVC_SITE_ID: '6' });
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(/SVC_PROJECTION auto: org has NPSP and NPC \(migration\?\); set SVC_PROJECTION=npc .*; next: svc-sync doctor$/)]);
      expect(stack.platform.requests.total).toBe(0);
      expect(writeCalls(stack)).toBe(0);
      expect(recordCount(stack)).toBe(0);
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });

  it('an org with NPSP alone: auto chooses npsp and says why', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npsp: true } });
    const cwd = tempCwd('npsp-projection-auto');
    try {
      const run = await cliJson(stack, ['sync', '--all', '--dry-run'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto', SVC_SITE_ID: '6' });
      expect(run.code).toBe(0);
      expect((run.body.result as unknown as { where: { projection: { setting: string; resolved: string } } }).where.projection).toMatchObject({ setting: 'auto', resolved: 'npsp' });
      expect(writeCalls(stack)).toBe(0);
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});
