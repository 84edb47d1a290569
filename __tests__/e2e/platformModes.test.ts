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
import { cheapestPlan, COLLECTIONS, confirmingRequests, learningRequests } from '../../fixtures/platform/cheapestPlan.js';
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
      // Within 10 % of the cheapest plan, plus what learning the platform costs a first run (at most one request a collection).
      const fullCost = { requests: stack.platform.requests.total, cheapest: cheapestPlan(stack.platform.site, mode.behaviour), learning: learningRequests(stack.platform.site, mode.behaviour) };
      expect(fullCost.learning).toBeLessThanOrEqual(7);
      expect(fullCost.requests).toBeLessThanOrEqual(Math.floor(fullCost.cheapest * 1.1) + fullCost.learning);
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
      const watermark = (JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { watermarks: Record<string, string> }).watermarks.donation!;
      const incremental = await cliJson(stack, ['sync'], cwd);
      expect(incremental.code).toBe(0);
      const incrementalCost = {
        requests: stack.platform.requests.total,
        cheapest: cheapestPlan(stack.platform.site, mode.behaviour, watermark),
        confirming: confirmingRequests(stack.platform.site, mode.behaviour, watermark),
      };
      // The second run plans with what the first learned: nothing more to learn, only the lists' shape
      // it relies on to confirm (one record by id where a page leaves a key out of every record).
      expect(incrementalCost.confirming).toBeLessThanOrEqual(7);
      expect(incrementalCost.requests).toBeLessThanOrEqual(Math.floor(incrementalCost.cheapest * 1.1) + incrementalCost.confirming);
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

describe('SVC_INCREMENTAL=new-records where updated_after is ignored', () => {
  let stack: Stack | undefined;
  let cwd = '';
  afterEach(async () => {
    await stack?.close();
    removeDir(cwd);
  });

  it('incremental runs read only new records (created_after), say what they leave to webhooks and audit, and audit --fix completes the mirror', async () => {
    const behaviour: FakePlatformBehaviour = { ignoreFilters: ['updated_after'] };
    stack = await startStack({ site: SITE, behaviour });
    cwd = tempCwd('new-records');
    const env = { ...stack.env, SVC_INCREMENTAL: 'new-records' };
    expect((await cliJson(stack, ['sync', '--all'], cwd, undefined, env)).code).toBe(0);
    // The first incremental run finds the filter ignored (and reads whole lists, exact); the profile keeps it.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await cliJson(stack, ['sync'], cwd, undefined, env)).code).toBe(0);

    await new Promise((r) => setTimeout(r, 1_100));
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const changed = stack.platform.site.donation.find(donationSynced)!;
    stack.platform.update('donation', changed.id, { message: 'changed on the platform' });
    stack.platform.add('donation', { ...changed, id: 199_998, created_at: now, updated_at: now, message: 'new' });
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['sync'], cwd, undefined, env);
    expect(run.code).toBe(0);
    const result = run.body.result as unknown as RunJson;
    expect(result.summary.Svc_Donation__c?.inserted).toBe(1);
    expect(result.learned ?? []).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/reads the donations created after .*created_after; SVC_INCREMENTAL=new-records\); changes to existing donations come through serve's webhooks and audit --fix/),
      ]),
    );
    // Every list asked with created_after, one page each: the cost of the new records, not of the site.
    const lists = stack.platform.requests.log.filter((e) => e.kind === 'list');
    expect(lists.every((e) => e.url.includes('created_after=') && !e.url.includes('updated_after='))).toBe(true);
    expect(stack.platform.requests.total).toBeLessThanOrEqual(Object.keys(COLLECTIONS).length + 1);
    // The change to an existing donation is left to audit, as said.
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${changed.id}`)?.Message__c).not.toBe('changed on the platform');
    expect((await cliJson(stack, ['audit', '--fix'], cwd, undefined, env)).code).toBe(0);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${changed.id}`)?.Message__c).toBe('changed on the platform');
    expectFullMirror(stack, stack.platform.site);
  }, 90_000);
});

describe('updated_after ignored, once learned', () => {
  let stack: Stack | undefined;
  let cwd = '';
  afterEach(async () => {
    await stack?.close();
    removeDir(cwd);
  });

  it('an incremental run after the one that learns it costs what a full scan costs (within 10 %), parents no longer listed included', async () => {
    // Records whose parent was deleted: a full scan proves those parents absent from its complete
    // lists; an incremental run must too, not ask for each of them by id.
    stack = await startStack({ site: { seed: 3, donations: 30, newsletterSubscriptions: 10, danglingParents: 0.2 }, behaviour: { ignoreFilters: ['updated_after'] } });
    cwd = tempCwd('ignored-once');
    const cost = async (args: string[]): Promise<number> => {
      await new Promise((r) => setTimeout(r, 1_100));
      stack!.platform.resetCounts();
      expect((await cliJson(stack!, args, cwd)).code).toBe(0);
      return stack!.platform.requests.total;
    };
    const full = await cost(['sync', '--all']);
    await cost(['sync']); // learns that updated_after is ignored
    const changed = stack.platform.site.donation.find(donationSynced)!;
    stack.platform.update('donation', changed.id, { message: 'changed on the platform' });
    const incremental = [await cost(['sync']), await cost(['sync'])];
    for (const n of incremental) expect(n).toBeLessThanOrEqual(Math.floor(full * 1.1));
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${changed.id}`)?.Message__c).toBe('changed on the platform');
  }, 90_000);
});
