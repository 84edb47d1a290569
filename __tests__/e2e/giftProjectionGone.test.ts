/**
 * `audit --fix` in Nonprofit Cloud (PROJECTION.md §2.3, §3.2, N20): a donation gone from the
 * platform keeps its gift, Status Canceled; a page gone keeps its campaign, inactive, and the gifts
 * on it keep their CampaignId; a full sync after it leaves both as they are. The NPSP side (Closed
 * Lost) is in npspOrgState.test.ts. Expected values: the §7 tables (../support/projectionOrg.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Stack } from '../../fixtures/stack.js';
import { ACCOUNTS, CAMPAIGNS, GIFTS, projected, REFUNDS, SOFT_CREDITS } from '../support/projectionOrg.js';
import { cli, cliJson, writeCalls } from './helpers.js';
import { closeCasesStack, npcCasesStack } from './npcCasesStack.js';

describe('audit --fix after a page and a donation left the platform, Nonprofit Cloud (E11, N20)', () => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ stack, cwd, env } = await npcCasesStack('gift-projection-gone'));
  });
  afterAll(() => closeCasesStack({ stack, cwd, env }));

  it('the gift Canceled, the campaign inactive, every other record as §7 says; again and a full sync write nothing', async () => {
    expect((await cliJson(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(1);
    const want = { accounts: ACCOUNTS, campaigns: { ...CAMPAIGNS }, gifts: { ...GIFTS }, softCredits: SOFT_CREDITS, refunds: REFUNDS };
    expect(projected(stack)).toEqual(want);
    stack.platform.remove('action', 31);
    stack.platform.remove('donation', 19);

    const fix = ['audit', '--fix', '--max-fix', '100%'];
    // A dry run says what it would mark, one record a line, and writes nothing.
    stack.salesforce.resetCalls();
    const dry = await cli(stack, ['--dry-run', ...fix], cwd, undefined, env);
    expect(dry.stdout).toMatch(/^Would mark gone: 2 gift or campaign record\(s\)\n {2}GiftTransaction Donation_19: Status\n {2}Campaign Action_31: IsActive$/m);
    expect(writeCalls(stack)).toBe(0);
    expect(projected(stack)).toEqual(want);
    const res = await cliJson(stack, fix, cwd, undefined, env);
    // Exit 1: the two orphans remain in the mirror (no --delete-orphans).
    expect(res.code).toBe(1);
    expect((res.body.result as unknown as { projection: unknown }).projection).toEqual([
      { object: 'GiftTransaction', key: 'Donation_19', action: 'update', fields: ['Status'] },
      { object: 'Campaign', key: 'Action_31', action: 'update', fields: ['IsActive'] },
    ]);
    want.gifts.Donation_19 = { ...GIFTS.Donation_19, Status: 'Canceled' };
    want.campaigns.Action_31 = { ...CAMPAIGNS.Action_31, IsActive: false };
    expect(projected(stack)).toEqual(want);

    for (const args of [fix, ['sync', '--all']]) {
      stack.salesforce.resetCalls();
      await cliJson(stack, args, cwd, undefined, env);
      expect({ args, writes: writeCalls(stack) }).toEqual({ args, writes: 0 });
      expect(projected(stack)).toEqual(want);
    }
  });
});
