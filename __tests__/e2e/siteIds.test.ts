/**
 * One reading of an id wherever ids are compared across sources: a platform that writes its ids
 * and site ids as strings ("12", "6") is mirrored as one that writes numbers, and SVC_SITE_ID
 * judges "7" as it judges 7. A record whose site cannot be read stops the run as another site's
 * does: nothing written, one line saying why, exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, donationSynced, expectFullMirror, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';

const ID_KEYS = ['id', 'site_id', 'segment_id', 'project_id', 'team_id', 'company_id', 'action_id'];

describe('ids and site ids as numbers or strings', () => {
  let stack: Stack;
  let cwd = '';

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 5, donations: 30, newsletterSubscriptions: 8 }, behaviour: { numbersAsStrings: ID_KEYS } });
    cwd = tempCwd('site-ids');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a platform sending "12" for 12 is mirrored in full, SVC_SITE_ID "6" passing for 6, and audited without drift', async () => {
    const env = { ...stack.env, SVC_SITE_ID: '6' };
    const run = await cliJson(stack, ['sync', '--all'], cwd, undefined, env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expectFullMirror(stack, stack.platform.site);
    const audit = await cliJson(stack, ['audit'], cwd, undefined, env);
    expect({ code: audit.code, drift: (audit.body.result as unknown as { drift: unknown[] }).drift }).toEqual({ code: 0, drift: [] });
  }, 60_000);

  it('a record of site "7" with SVC_SITE_ID=6: exit 2, nothing written', async () => {
    const donation = stack.platform.site.donation.find(donationSynced)!;
    Object.assign(donation, { site_id: 7 });
    const before = recordCount(stack);
    stack.salesforce.resetCalls();
    try {
      const run = await cli(stack, ['object', 'donation', String(donation.id)], cwd, undefined, { ...stack.env, SVC_SITE_ID: '6' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`SVC_SITE_ID is 6, but http://127\\.0\\.0\\.1:\\d+ serves records of site 7 \\(donation ${donation.id}\\)`));
      expect(writeCalls(stack)).toBe(0);
      expect(recordCount(stack)).toBe(before);
    } finally {
      Object.assign(donation, { site_id: 6 });
    }
  });

  it('a record without a readable site_id while SVC_SITE_ID is set: refused with a line that says so, exit 2, nothing written', async () => {
    const donation = stack.platform.site.donation.find(donationSynced)!;
    const before = recordCount(stack);
    for (const [value, shown] of [
      [undefined, 'absent'],
      [null, 'got null'],
      ['seven', 'got "seven"'],
    ] as const) {
      if (value === undefined) delete (donation as { site_id?: unknown }).site_id;
      else Object.assign(donation, { site_id: value });
      stack.salesforce.resetCalls();
      const run = await cli(stack, ['object', 'donation', String(donation.id)], cwd, undefined, { ...stack.env, SVC_SITE_ID: '6' });
      expect({ value, code: run.code }).toEqual({ value, code: 2 });
      expect(run.stderr).toContain(`serves donation ${donation.id} without a readable site_id (${shown}), so which site it belongs to cannot be told`);
      expect(writeCalls(stack)).toBe(0);
    }
    expect(recordCount(stack)).toBe(before);
    // Without SVC_SITE_ID nothing is judged.
    expect((await cli(stack, ['object', 'donation', String(donation.id)], cwd)).code).toBe(0);
    Object.assign(donation, { site_id: 6 });
  });
});
