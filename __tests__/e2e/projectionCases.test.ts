/**
 * PROJECTION.md §7 end to end: the generated site's projection cases (company, anonymous, hidden
 * contact details, no email, shared mailbox, initials, refunds, charge-backs, other currencies,
 * cents as strings, a target the platform lacks) synced by dist/cli.js `sync --all` with
 * SVC_PROJECTION=npc into the strict NPC org. Every expected value (../support/projectionOrg.ts) is written from the
 * document (§1-§4, §7, N1-N16), not from the code's output; Ids are replaced by keys. Where
 * Salesforce's reference differs from the document, the reference wins and the line says so.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PROJECTION_LATER } from '../../fixtures/platform/projectionCases.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { ACCOUNTS, CAMPAIGNS, GIFTS, projected, REFUNDS, SOFT_CREDITS } from '../support/projectionOrg.js';
import { cli, cliJson, expectFullMirror, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';
import { CASES_SITE, closeCasesStack, npcCasesStack } from './npcCasesStack.js';

describe('the §7 site projected into Nonprofit Cloud by sync --all', () => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ stack, cwd, env } = await npcCasesStack('projection-cases'));
  });
  afterAll(() => closeCasesStack({ stack, cwd, env }));

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

  it('first run: every donor, campaign, gift, soft credit and refund as the document says', async () => {
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    // E12 is the projection's one failure (§2.4, §6.5): exit 1, a line naming the donation and the code.
    expect(`${res.stdout}\n${res.stderr}`).toMatch(/Donation_12\b.*CURRENCY_MISMATCH|CURRENCY_MISMATCH.*Donation_12\b/);
    // One line for it under Failures and one in the closing line, each saying the code once.
    const said = `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => l.includes('CURRENCY_MISMATCH'));
    expect(said).toEqual([
      expect.stringMatching(/^ *1 +GiftTransaction CURRENCY_MISMATCH: org EUR, donation GBP$/),
      expect.stringMatching(/exit 1: 1 record failed: 1 GiftTransaction CURRENCY_MISMATCH: org EUR, donation GBP \(Donation_12:gift\); next: /),
    ]);
    expect(res.code).toBe(1);
    const p = projected(stack);
    expect(p.accounts).toEqual(ACCOUNTS);
    expect(p.campaigns).toEqual(CAMPAIGNS);
    expect(p.gifts).toEqual(GIFTS);
    expect(p.softCredits).toEqual(SOFT_CREDITS);
    expect(p.refunds).toEqual(REFUNDS);
  });

  it('E18: a second run with no platform change writes nothing', async () => {
    stack.salesforce.resetCalls();
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
    expect(projected(stack).gifts).toEqual(GIFTS);
  });

  it('a dry run after it reads at 80 columns: counts of gifts, donors and campaigns, a legend, one row a donation', async () => {
    const res = await cli(stack, ['--dry-run', 'sync', '--all'], cwd, undefined, { ...env, COLUMNS: '80' });
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines.filter((l) => [...l].length > 80)).toEqual([]);
    // Every gift of GIFTS unchanged; E12 (another currency) and E14 (no gift amount) skipped.
    expect(lines).toContainEqual(expect.stringMatching(/^Gifts: 0 inserted, 0 updated, 17 unchanged, 2 skipped, 0 failed \(\d+ calls\)$/));
    // The gifts' donors (15 Accounts) and the two fundraisers, each once, all found by their links.
    expect(lines).toContain('  Donors: 17 matched, 0 new, 0 ambiguous');
    expect(lines).toContain(`  Campaigns: 0 inserted, 0 updated, ${Object.keys(CAMPAIGNS).length} unchanged`);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}donor: link, key, email\+name = an Account found/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Donation_5 +link +unchanged +100\.00 {2}2016-03-05 {2}Acme BV$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Donation_12 +link +skip +\(CURRENCY_MISMATCH\)$/));
    // The whole reason in the run's Skipped section.
    expect(res.stdout).toMatch(/CURRENCY_MISMATCH: org EUR, donation GBP/);
  });

  it('the mirror stays exact with the projection on (every record, every lookup; audit finds nothing)', async () => {
    expectFullMirror(stack, stack.platform.site);
    const audit = await cli(stack, ['audit'], cwd, undefined, { ...stack.env, SVC_SITE_ID: '6' });
    expect(audit.code).toBe(0);
  });

  it('E8 and E10 later: the refund is added, the gift stays Paid; the moved gift follows, its slot goes', async () => {
    for (const { id, patch } of PROJECTION_LATER) stack.platform.update('donation', id, patch);
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    expect(res.code).toBe(1);
    const p = projected(stack);
    expect(p.refunds).toEqual({ ...REFUNDS, Donation_1: { Gift: 'Donation_1', Amount: 15.4, Date: '2016-04-03', Status: 'Completed' } });
    expect(p.gifts).toEqual({ ...GIFTS, Donation_3: { ...GIFTS.Donation_3, Campaign: 'Action_8' } });
    // The new target's owner is the donor: no slot (§4), the old one deleted.
    const { 'Donation_3:fundraiser': _gone, ...kept } = SOFT_CREDITS;
    expect(p.softCredits).toEqual(kept);
    // Action 8 is hidden: inactive; without a team its parent is the project.
    expect(p.campaigns).toEqual({ ...CAMPAIGNS, Action_8: { Name: 'John Doe', Parent: 'Project_3', StartDate: '2016-02-20', ExpectedRevenue: 250, IsActive: false } });
    expect(p.accounts).toEqual(ACCOUNTS);
    stack.salesforce.resetCalls();
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
  });
});

describe('the §7 site and an org without Nonprofit Cloud', () => {
  it('SVC_PROJECTION=npc: exit 2 before anything is read from the platform or written', async () => {
    const stack = await startStack({ site: CASES_SITE });
    const cwd = tempCwd('projection-cases-none');
    try {
      const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(/SVC_PROJECTION npc: the org has no GiftTransaction object .*; next: svc-sync doctor$/)]);
      expect(stack.platform.requests.total).toBe(0);
      expect(writeCalls(stack)).toBe(0);
      expect(recordCount(stack)).toBe(0);
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});
