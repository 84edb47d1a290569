/**
 * The platform as it may really be (SPEC.md: "query parameters, pagination, response envelope: not
 * shown"): list filters ignored, pages smaller than asked, list pages lacking fields, no rate-limit
 * headers, and all four at once. In each mode `sync --all`, then changes on the platform, then an
 * incremental `sync` leave an exact mirror, and the run says what it learned. Exactness is checked
 * by an audit against the same site served the way svc-sync assumes (complete lists, filters
 * honoured): no drift means Salesforce holds what the by-id records give, field by field.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { FakePlatformBehaviour } from '../../fixtures/platform/server.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cliJson, donationSynced, expectFullMirror, removeDir, tempCwd } from './helpers.js';

const SITE = { seed: 21, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 160, newsletterSubscriptions: 30 };

const MODES: Array<{ name: string; behaviour: FakePlatformBehaviour; learned: RegExp[]; site?: Partial<typeof SITE> }> = [
  { name: 'updated_after ignored', behaviour: { ignoreFilters: ['updated_after'] }, learned: [/the platform ignores updated_after on \w+ lists: this run reads the whole list/] },
  { name: 'page size 25', behaviour: { maxPerPage: 25 }, learned: [/the platform serves donations lists 25 a page \(asked 100\): a full scan of 160 costs 7 requests/] },
  {
    name: 'partial list pages',
    behaviour: { listOmit: { donations: ['consents', 'donation_amount', 'payment_status'], projects: ['segment_id'] } },
    learned: [/list pages of donations lack consents, donation_amount, payment_status \(the by-id records have them\)/, /list pages of projects lack segment_id/],
  },
  { name: 'no rate-limit headers', behaviour: { noRateLimitHeaders: true }, learned: [] },
  {
    name: 'all four at once',
    behaviour: { ignoreFilters: ['updated_after'], maxPerPage: 25, listOmit: { donations: ['consents', 'donation_amount', 'payment_status'] }, noRateLimitHeaders: true },
    learned: [/ignores updated_after/, /serves \w+ lists 25 a page/, /list pages of donations lack consents/],
    // Without headers the pacer keeps to 100 requests a minute: a site each run reads in fewer.
    site: { donations: 30, actionsPerParent: 1, newsletterSubscriptions: 10 },
  },
];

interface RunJson {
  learned?: string[];
  summary: Record<string, { inserted: number; updated: number; failed: number }>;
}

describe('the platform as it is', () => {
  let stack: Stack | undefined;
  let cwd = '';

  afterEach(async () => {
    await stack?.close();
    removeDir(cwd);
  });

  for (const mode of MODES) {
    it(`${mode.name}: sync --all, changes, sync: an exact mirror, and the run says what it learned`, async () => {
      stack = await startStack({ site: { ...SITE, ...mode.site }, behaviour: { ...mode.behaviour } });
      cwd = tempCwd('modes');
      const full = await cliJson(stack, ['sync', '--all'], cwd);
      expect(full.code).toBe(0);
      const learnedFull = (full.body.result as unknown as RunJson).learned ?? [];
      for (const l of mode.learned.filter((r) => !/ignores updated_after/.test(r.source))) expect(learnedFull).toEqual(expect.arrayContaining([expect.stringMatching(l)]));
      if (mode.behaviour.noRateLimitHeaders) expect(stack.platform.requests.total).toBeLessThan(100);
      expectFullMirror(stack, stack.platform.site);
      // What was learned is kept beside the state for the next run.
      const profile = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'platform-profile.json'), 'utf8')) as { baseUrl: string; collections: Record<string, unknown> };
      expect(profile.baseUrl).toBe(stack.platform.url);

      // Changes on the platform after the watermark: an edited donation and project, a new donation.
      await new Promise((r) => setTimeout(r, 1_100));
      const donation = stack.platform.site.donation.find(donationSynced)!;
      stack.platform.update('donation', donation.id, { message: 'changed on the platform' });
      const project = stack.platform.site.project[0]!;
      stack.platform.update('project', project.id, { title: 'Renamed project' });
      stack.platform.add('donation', { ...donation, id: 199_999, updated_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
      stack.platform.resetCounts();
      const incremental = await cliJson(stack, ['sync'], cwd);
      expect(incremental.code).toBe(0);
      const result = incremental.body.result as unknown as RunJson;
      for (const l of mode.learned.filter((r) => /ignores updated_after/.test(r.source))) expect(result.learned ?? []).toEqual(expect.arrayContaining([expect.stringMatching(l)]));
      expect(result.summary.Svc_Donation__c?.inserted).toBe(1);
      expect(result.summary.Svc_Donation__c?.failed).toBe(0);
      expectFullMirror(stack, stack.platform.site);
      expect(stack.salesforce.get('Svc_Project__c', `Project_${project.id}`)?.Title__c).toBe('Renamed project');

      // Field by field: the same site served the way svc-sync assumes finds nothing to change.
      for (const k of Object.keys(stack.platform.behaviour) as Array<keyof FakePlatformBehaviour>) delete stack.platform.behaviour[k];
      const audit = await cliJson(stack, ['audit'], cwd);
      expect({ code: audit.code, drift: (audit.body.result as unknown as { drift: unknown[] }).drift }).toEqual({ code: 0, drift: [] });
    }, 90_000);
  }

  it('partial list pages cost one by-id request a record for that collection only, and a single sample request elsewhere', async () => {
    stack = await startStack({ site: SITE, behaviour: { listOmit: { donations: ['consents'] } } });
    cwd = tempCwd('modes-cost');
    expect((await cliJson(stack, ['sync', '--all', '--types', 'donations,newsletter_subscriptions'], cwd)).code).toBe(0);
    const listed = stack.platform.site.donation.length;
    // Donations: every one by id (+ the list pages); subscriptions: one sample by id, then list pages only.
    expect(stack.platform.requests.byId.donations).toBe(listed);
    expect(stack.platform.requests.byId['newsletter-subscriptions'] ?? 0).toBeLessThanOrEqual(1);
  }, 60_000);
});
