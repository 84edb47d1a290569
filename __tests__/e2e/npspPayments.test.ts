/**
 * NPSP refunds in refund mode `payments` (PROJECTION.md §2.3, §7's NPSP paragraph, P2, P8, P10,
 * P11) end to end through dist/cli.js: the §7 site synced into the strict NPSP org whose payments
 * have npsp__DebitType__c (SVC_NPSP_REFUND_MODE auto chooses `payments` there). E9 (first seen
 * charged back) and E8 (a refund later) become negative payments pointing at the payment NPSP
 * made for the gift; a refund undone deletes its payment; without NPSP's automation there is no
 * payment to point at (ORIGINAL_PAYMENT_MISSING); an org without DebitType runs `stage`; the
 * SVC_NPSP_* names reach the org. Every expected value is written from the document.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { accounts, contacts, opportunities, projectedNpsp, roles } from '../support/npspOrg.js';
import { CAMPAIGNS, type Row } from '../support/projectionOrg.js';
import { cli, cliJson, recordCount, removeDir, tempCwd, unstamp, writeCalls } from './helpers.js';

const SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };

interface Projection {
  objects: Record<string, Record<string, number>>;
  failures: string[];
}
interface RunResult {
  projection: Projection;
  where: { projection: { setting: string; resolved: string; refundMode?: string } };
}
const resultOf = (body: { result?: unknown }): RunResult => body.result as RunResult;

/** P8 in `payments` mode: every gift Closed Won (refunds too), the checkbox not sent (a checkbox not sent holds false). */
function paymentsOpportunities(automation: boolean): Record<string, Row> {
  const out = opportunities(automation, []);
  for (const o of Object.values(out)) o.npe01__Do_Not_Automatically_Create_Payment__c = false;
  return out;
}

/** P11: with NPSP's automation each gift gets NPSP's paid payment of G on T when it is inserted. */
function npspPayments(opps: Record<string, Row>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [key, o] of Object.entries(opps)) out[`${key}:payment`] = { npe01__Payment_Amount__c: o.Amount as number, npe01__Paid__c: true, npe01__Payment_Date__c: o.CloseDate as string, Gift: key };
  return out;
}

/** E9 (§7: 8.00, status_at 2016-05-20) as P10's refund payment: -G, paid, R, Chargeback, the gift's own payment. */
const E9_REFUND: Row = {
  npe01__Payment_Amount__c: -8,
  npe01__Paid__c: true,
  npe01__Payment_Date__c: '2016-05-20',
  npsp__DebitType__c: 'Chargeback',
  Gift: 'Donation_9',
  Original: 'Donation_9:payment',
};
/** E8 (§7's NPSP paragraph): -15.40, paid, 2016-04-03 (the local date of 2016-04-02T23:30:00Z), Refund. */
const E8_REFUND: Row = {
  npe01__Payment_Amount__c: -15.4,
  npe01__Paid__c: true,
  npe01__Payment_Date__c: '2016-04-03',
  npsp__DebitType__c: 'Refund',
  Gift: 'Donation_1',
  Original: 'Donation_1:payment',
};

describe('refund mode payments, with NPSP automation (auto on an org whose payments have npsp__DebitType__c)', () => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;
  const opps = paymentsOpportunities(true);
  let wantPayments: Record<string, Row> = { ...npspPayments(opps), Donation_9: E9_REFUND };

  /** The org holds exactly the document's records, payments included. */
  function expectOrg(): void {
    const p = projectedNpsp(stack);
    expect(p.contacts).toEqual(contacts(true));
    expect(p.accounts).toEqual(accounts(true));
    expect(p.opportunities).toEqual(opps);
    expect(p.roles).toEqual(roles(true, opps));
    expect(p.payments).toEqual(wantPayments);
    expect(p.campaigns).toEqual(CAMPAIGNS);
  }

  /** A second run with no platform change writes nothing and leaves the org as it is. */
  async function secondRunWritesNothing(): Promise<void> {
    stack.salesforce.resetCalls();
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
    expectOrg();
  }

  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: true } });
    env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_SITE_ID: '6' };
    cwd = tempCwd('npsp-payments');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a dry run first: nothing written, E9 refund payment shown as an insert', async () => {
    const res = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
    expect(resultOf(res.body).where.projection).toMatchObject({ resolved: 'npsp', refundMode: 'payments' });
    expect(resultOf(res.body).projection.objects.npe01__OppPayment__c).toMatchObject({ insert: 1, fail: 0 });
    expect(projectedNpsp(stack).payments).toEqual({});
  });

  it('first run, E9: the gift Closed Won with NPSP payment, and a Chargeback payment of -8.00 on 2016-05-20 pointing at it', async () => {
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    // E12 (CURRENCY_MISMATCH) stays the one failure.
    expect(res.code).toBe(1);
    expect(`${res.stdout}\n${res.stderr}`).not.toMatch(/ORIGINAL_PAYMENT_MISSING/);
    expect(unstamp(res.stderr).split('\n')).toContain('gifts: npsp, refunds: payments');
    expectOrg();
  });

  it('E18: a second run writes nothing', secondRunWritesNothing);

  it('E8: a refund later is a Refund payment of -15.40 on 2016-04-03; the dry run before it writes nothing and shows it', async () => {
    stack.platform.update('donation', 1, { payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z', updated_at: new Date().toISOString() });
    stack.salesforce.resetCalls();
    const dry = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, env);
    expect(writeCalls(stack)).toBe(0);
    expect(resultOf(dry.body).projection.objects.npe01__OppPayment__c).toMatchObject({ insert: 1, fail: 0 });
    expectOrg();
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    // The gift stays Closed Won (P10): only the payment is new.
    wantPayments = { ...wantPayments, Donation_1: E8_REFUND };
    expectOrg();
  });

  it('E8, then a second run writes nothing', secondRunWritesNothing);

  it('the refund undone (refunded -> paid): its payment deleted, the gift and NPSP payment as they were', async () => {
    stack.platform.update('donation', 1, { payment_status: 'paid', payment_status_at: '2016-03-30T14:41:48Z', updated_at: new Date().toISOString() });
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    const { Donation_1: _gone, ...kept } = wantPayments;
    wantPayments = kept;
    expectOrg();
    await secondRunWritesNothing();
  });
});

describe('refund mode payments without NPSP automation: no payment to point at', () => {
  it('E9 fails ORIGINAL_PAYMENT_MISSING (exit 1, in the run log), the gift written, no payment; a second run writes nothing; two payments are not guessed between', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: false } });
    const cwd = tempCwd('npsp-payments-missing');
    const env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_SITE_ID: '6' };
    try {
      const res = await cliJson(stack, ['sync', '--all'], cwd, undefined, env);
      expect(res.code).toBe(1);
      const failures = resultOf(res.body).projection.failures;
      expect(failures.filter((f) => /ORIGINAL_PAYMENT_MISSING/.test(f))).toEqual([expect.stringMatching(/Donation_9\b.*npe01__OppPayment__c.*ORIGINAL_PAYMENT_MISSING/)]);
      const p = projectedNpsp(stack);
      expect(p.opportunities).toEqual(paymentsOpportunities(false));
      expect(p.payments).toEqual({});
      // The run log holds the refund's failure under its donation.
      expect(stack.salesforce.records('Svc_SyncError__c').map((r) => `${String(r.Key__c)} ${String(r.StatusCode__c)}`)).toContain('Donation_9:refund ORIGINAL_PAYMENT_MISSING');
      stack.salesforce.resetCalls();
      expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
      expect(writeCalls(stack)).toBe(0);
      expect(projectedNpsp(stack).payments).toEqual({});
      // A dry run writes nothing, so nothing fails: it says the refund would not be written, and why.
      const dry = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, env);
      expect(dry.code).toBe(0);
      expect(writeCalls(stack)).toBe(0);
      expect(resultOf(dry.body).projection.objects.npe01__OppPayment__c).toMatchObject({ skip: 1, insert: 0 });
      expect(JSON.stringify(dry.body)).toMatch(/Donation_9: refund not written: ORIGINAL_PAYMENT_MISSING/);

      // Two paid payments an admin entered: which one was refunded is not guessed.
      const npsp = stack.salesforce.npsp as NonNullable<Stack['salesforce']['npsp']>;
      const gift = npsp.records('Opportunity').find((o) => o.SvcGiftKey__c === 'Donation_9')?.Id as string;
      const paid = { npe01__Opportunity__c: gift, npe01__Payment_Amount__c: 8, npe01__Paid__c: true, npe01__Payment_Date__c: '2016-05-01' };
      const first = npsp.seed('npe01__OppPayment__c', paid);
      npsp.seed('npe01__OppPayment__c', { ...paid, npe01__Payment_Amount__c: 4 });
      const twice = await cliJson(stack, ['sync', '--all'], cwd, undefined, env);
      expect(resultOf(twice.body).projection.failures.filter((f) => /ORIGINAL_PAYMENT_MISSING/.test(f))).toEqual([
        expect.stringMatching(/Donation_9\b.*2 paid npe01__OppPayment__c records without SvcRefundKey__c/),
      ]);
      expect(npsp.records('npe01__OppPayment__c').filter((r) => typeof r.SvcRefundKey__c === 'string')).toEqual([]);
      // One left: the next run writes the refund, pointing at it.
      npsp.adminDelete(first);
      expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
      expect(projectedNpsp(stack).payments).toEqual({
        'Donation_9:payment': { npe01__Payment_Amount__c: 4, npe01__Paid__c: true, npe01__Payment_Date__c: '2016-05-01', Gift: 'Donation_9' },
        Donation_9: { ...E9_REFUND },
      });
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});

describe('an org whose payments lack npsp__DebitType__c (P2)', () => {
  it('SVC_NPSP_REFUND_MODE=payments refused in one line, exit 2, before anything is read or written; auto runs `stage`', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npsp: true, npspDebitType: false } });
    const cwd = tempCwd('npsp-payments-nodebit');
    const env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_SITE_ID: '6' };
    try {
      const refused = await cli(stack, ['sync', '--all'], cwd, undefined, { ...env, SVC_NPSP_REFUND_MODE: 'payments' });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/SVC_NPSP_REFUND_MODE payments: npe01__OppPayment__c shows no npsp__DebitType__c .*set SVC_NPSP_REFUND_MODE=stage; next: svc-sync doctor$/),
      ]);
      expect(stack.platform.requests.total).toBe(0);
      expect(writeCalls(stack)).toBe(0);
      expect(recordCount(stack)).toBe(0);

      const run = await cliJson(stack, ['sync', '--all'], cwd, undefined, env);
      expect(run.code).toBe(1);
      expect(resultOf(run.body).where.projection).toMatchObject({ resolved: 'npsp', refundMode: 'stage' });
      // `stage` (P10): E9 Closed Lost, the checkbox tells NPSP to make no payment.
      const p = projectedNpsp(stack);
      expect(p.opportunities).toEqual(opportunities(true));
      expect(p.payments).toEqual({});
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});

describe('the SVC_NPSP_* names reach the org', () => {
  it('won and refunded stages, the fundraiser role and the Donation record type as set', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: false } });
    const npsp = stack.salesforce.npsp as NonNullable<Stack['salesforce']['npsp']>;
    npsp.addStage('Posted', true, true);
    npsp.addStage('Returned', true, false);
    const cwd = tempCwd('npsp-names');
    const env = {
      ...stack.env,
      SVC_PROJECTION: 'npsp',
      SVC_SITE_ID: '6',
      SVC_NPSP_REFUND_MODE: 'stage',
      SVC_NPSP_STAGE_WON: 'Posted',
      SVC_NPSP_STAGE_REFUNDED: 'Returned',
      SVC_NPSP_ROLE_FUNDRAISER: 'Solicitor',
      SVC_NPSP_DONATION_RECORD_TYPE: 'MajorGift',
    };
    try {
      expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
      const want = opportunities(false);
      for (const [key, o] of Object.entries(want)) Object.assign(o, { StageName: key === 'Donation_9' ? 'Returned' : 'Posted', RecordType: 'MajorGift' });
      const p = projectedNpsp(stack);
      expect(p.opportunities).toEqual(want);
      const slots = roles(false, want);
      for (const r of Object.values(slots)) r.Role = 'Solicitor';
      expect(p.roles).toEqual(slots);
      stack.salesforce.resetCalls();
      expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
      expect(writeCalls(stack)).toBe(0);
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});
