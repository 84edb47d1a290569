/**
 * What the gift projection costs (PROJECTION.md §6.2, §6.3): a first sync of a site with about a
 * thousand donations projects them all in at most 10 Salesforce calls per 200 beyond the mirror's
 * own (its reads split to Salesforce's URL limit, never refused whole); a second `sync --all` with
 * no platform change writes nothing, and an incremental run neither writes nor reads for it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { cliJson, donationSynced, removeDir, tempCwd, writeCalls } from './helpers.js';

const SITE = { siteId: 6, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 1200, newsletterSubscriptions: 0 };

interface Figures {
  salesforceCalls: { mirror: number; projection: number };
  projection: { donations: number; gifts: Record<string, number>; failures: string[]; salesforceCalls: number };
}

describe('the projection of a first sync of about a thousand donations', () => {
  let stack: Stack;
  let cwd: string;
  const env = (): Record<string, string> => ({ ...stack.env, SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });
  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npc: true } });
    cwd = tempCwd('gift-projection-cost');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('costs at most 10 Salesforce calls per 200 projected donations beyond the mirror', async () => {
    const run = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(run.code).toBe(0);
    const r = run.body.result as unknown as Figures;
    const mirrored = stack.platform.site.donation.filter(donationSynced).length;
    expect(r.projection.donations).toBe(mirrored);
    expect(r.projection.failures).toEqual([]);
    expect(r.projection.gifts.insert + r.projection.gifts.skip).toBe(mirrored);
    expect(npc(stack).records('GiftTransaction').length).toBe(r.projection.gifts.insert);
    expect(r.salesforceCalls.projection).toBe(r.projection.salesforceCalls);
    expect(r.salesforceCalls.mirror + r.salesforceCalls.projection).toBe(run.body.result.requests.salesforce);
    expect((r.salesforceCalls.projection * 200) / mirrored).toBeLessThanOrEqual(10);
  });

  it('a second run with no platform change: nothing written; an incremental one makes no projection call at all', async () => {
    stack.salesforce.resetCalls();
    // `sync --all` compares the projection with the org (the repair path): reads, no write.
    const full = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(full.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    const run = await cliJson(stack, ['sync'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect((run.body.result as unknown as Figures).salesforceCalls.projection).toBe(0);
    // The org guard's verdict and the record types are kept for a day: no describe either.
    expect(stack.salesforce.requests().filter((r) => /\/describe\b|FROM RecordType/.test(r))).toEqual([]);
  });
});

const npc = (stack: Stack): NpcOrg => stack.salesforce.npc as NpcOrg;
