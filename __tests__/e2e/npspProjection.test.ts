/**
 * PROJECTION.md §7 for NPSP end to end: the generated §7 site synced by dist/cli.js `sync --all`
 * with SVC_PROJECTION=npsp into the strict NPSP org, with NPSP's automation (households, the
 * primary contact role) and without it. Refund mode `stage` (P1, P10). Every expected value
 * (../support/npspOrg.ts) is written from the document, not from the code's output.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
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
    env = { ...stack.env, SVC_PROJECTION: 'npsp', SVC_SITE_ID: '6' };
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
