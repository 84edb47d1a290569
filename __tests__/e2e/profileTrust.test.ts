/**
 * What a run learned of the platform is not trusted unchecked: a saved claim that list pages are
 * complete is confirmed by the run that relies on it, a profile from the future or of the wrong
 * shape is learned again with a warning, and a key the lists leave out that only some records
 * carry is looked for in enough records by id to be sure. Exactness is judged by an audit against
 * the same site served the way svc-sync assumes (complete lists): no drift, field by field.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { FakePlatformBehaviour } from '../../fixtures/platform/server.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, removeDir, tempCwd, type JsonRun } from './helpers.js';

const SITE = { seed: 4, segments: 2, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 40, newsletterSubscriptions: 24 };

const learnedOf = (run: JsonRun): string[] => (run.body.result as unknown as { learned?: string[] }).learned ?? [];
const driftOf = (run: JsonRun): unknown[] => (run.body.result as unknown as { drift: unknown[] }).drift;

/** The audit against the same site with lists as svc-sync assumes them: what differs from the by-id records. */
async function driftAgainstFullLists(s: Stack, cwd: string): Promise<unknown[]> {
  const behaviour = { ...s.platform.behaviour };
  for (const k of Object.keys(s.platform.behaviour) as Array<keyof FakePlatformBehaviour>) delete s.platform.behaviour[k];
  const audit = await cliJson(s, ['audit'], cwd);
  Object.assign(s.platform.behaviour, behaviour);
  expect(audit.code).toBeLessThanOrEqual(1);
  return driftOf(audit);
}

describe('learned claims, checked', () => {
  let stack: Stack | undefined;
  let cwd = '';
  afterEach(async () => {
    await stack?.close();
    removeDir(cwd);
  });

  const profileFile = (): string => path.join(cwd, '.svc-sync', 'platform-profile.json');

  it('a saved "complete" while the lists have become partial: confirmed by one record by id, found partial, learned again', async () => {
    stack = await startStack({ site: SITE });
    cwd = tempCwd('trust-complete');
    expect((await cliJson(stack, ['sync', '--all'], cwd)).code).toBe(0);
    const saved = JSON.parse(fs.readFileSync(profileFile(), 'utf8')) as { collections: Record<string, { list?: string }> };
    expect(saved.collections.donations?.list).toBe('complete');
    // The platform now serves older list payloads: amounts, consents and segment ids left out.
    Object.assign(stack.platform.behaviour, { listOmit: { donations: ['donation_amount', 'consents'], projects: ['segment_id'] } });
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['sync', '--all'], cwd);
    expect(run.code).toBe(0);
    expect(learnedOf(run)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^list pages of donations lack consents, donation_amount \(the by-id records have them\), though the saved platform profile said they were complete/),
        expect.stringMatching(/^list pages of projects lack segment_id .*, though the saved platform profile said they were complete/),
      ]),
    );
    expect(await driftAgainstFullLists(stack, cwd)).toEqual([]);
    // Once a collection and run: the next run trusts what this one confirmed and saved (partial).
    const next = await cliJson(stack, ['sync', '--all'], cwd);
    expect(next.code).toBe(0);
    expect(learnedOf(next)).toEqual([]);
  }, 90_000);

  it('a profile learned "in the future" is stale, and one of the wrong shape is ignored, each with a warning', async () => {
    stack = await startStack({ site: SITE, behaviour: { listOmit: { donations: ['donation_amount'] } } });
    cwd = tempCwd('trust-shape');
    fs.mkdirSync(path.join(cwd, '.svc-sync'), { recursive: true });
    const claim = { baseUrl: stack.platform.url, collections: { donations: { list: 'complete' }, projects: { list: 'complete' } } };
    fs.writeFileSync(profileFile(), JSON.stringify({ ...claim, learnedAt: '2099-01-01T00:00:00Z' }));
    const future = await cliJson(stack, ['sync', '--all'], cwd);
    expect(future.code).toBe(0);
    expect(future.body.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/platform profile .*platform-profile\.json says it was learned at 2099-01-01T00:00:00Z, in the future: ignored, the platform is learned again/)]),
    );
    expect(learnedOf(future)).toEqual(expect.arrayContaining([expect.stringMatching(/^list pages of donations lack donation_amount \(the by-id records have them\): each record/)]));
    const relearned = JSON.parse(fs.readFileSync(profileFile(), 'utf8')) as { learnedAt: string };
    expect(Date.parse(relearned.learnedAt)).toBeLessThanOrEqual(Date.now());
    expect(await driftAgainstFullLists(stack, cwd)).toEqual([]);

    for (const [bad, why] of [
      [{ ...claim, learnedAt: new Date().toISOString(), collections: { donations: { list: 'yes' } } }, 'collections.donations: list is not complete or partial'],
      [{ ...claim, learnedAt: new Date().toISOString(), collections: { donations: { pageSize: 0 } } }, 'collections.donations: pageSize is not a whole number from 1 to 100'],
      [[claim], 'not a JSON object'],
    ] as const) {
      fs.writeFileSync(profileFile(), JSON.stringify(bad));
      const run = await cliJson(stack, ['sync', '--all'], cwd);
      expect(run.code).toBe(0);
      expect(run.body.warnings).toEqual(expect.arrayContaining([expect.stringContaining(`platform-profile.json is not one svc-sync wrote (${why}): ignored, the platform is learned again`)]));
    }
  }, 90_000);
});

describe('a key only some records carry, left out of every list record', () => {
  let stack: Stack | undefined;
  let cwd = '';
  afterEach(async () => {
    await stack?.close();
    removeDir(cwd);
  });

  /** `sync --all` until a run finds the subscription lists partial (at most `runs`): that run, and how many it took. */
  async function untilFound(s: Stack, runs: number): Promise<{ found: JsonRun; run: number; byId: number[] }> {
    const byId: number[] = [];
    for (let run = 1; run <= runs; run++) {
      s.platform.resetCounts();
      const done = await cliJson(s, ['sync', '--all'], cwd);
      expect(done.code).toBe(0);
      byId.push(s.platform.requests.byId['newsletter-subscriptions'] ?? 0);
      if (learnedOf(done).some((l) => l.startsWith('list pages of newsletter-subscriptions lack consents'))) return { found: done, run, byId };
    }
    throw new Error(`the lists were not found partial in ${runs} runs`);
  }

  it('consents on 16 of 24 subscriptions by id, none in the lists: one sample a run finds it within a few runs, and the subscriptions taken from the lists are read again', async () => {
    stack = await startStack({ site: SITE, behaviour: { listOmit: { 'newsletter-subscriptions': ['consents'] } } });
    cwd = tempCwd('sparse-key');
    // A third of the subscriptions have no consent (the middle one among them); the others do.
    stack.platform.site.newsletter_subscription.forEach((n, i) => {
      if (i % 3 === 0) delete (n as { consents?: unknown }).consents;
    });
    const { found, run, byId } = await untilFound(stack, 3);
    // The first run's sample (the middle record) has no consent: the run says what is not settled.
    expect(run).toBe(2);
    expect(byId[0]).toBe(1);
    expect(learnedOf(found)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^list pages of newsletter-subscriptions lack consents \(the by-id records have them\): each record of newsletter-subscriptions is fetched by id.*; the newsletter-subscriptions taken from list pages since \S+ are read again by id and written right$/,
        ),
        expect.stringMatching(/^read again by id: all 24 newsletter-subscriptions \(their list pages, read since \S+, lack consents\)/),
      ]),
    );
    const withConsent = stack.platform.site.newsletter_subscription.filter((n) => n.consents !== undefined);
    expect(withConsent).toHaveLength(16);
    for (const n of withConsent) expect(stack.salesforce.get('Svc_NewsletterSubscription__c', `NewsletterSubscription_${n.id}`)?.ConsentURL__c).toEqual(expect.any(String));
    expect(await driftAgainstFullLists(stack, cwd)).toEqual([]);
  }, 90_000);

  it('consents on 1 subscription in 10, none in the lists: found within the runs the docs state (one a run, every record of a one-page list at worst), then exact', async () => {
    stack = await startStack({ site: SITE, behaviour: { listOmit: { 'newsletter-subscriptions': ['consents'] } } });
    cwd = tempCwd('rare-key');
    stack.platform.site.newsletter_subscription.forEach((n, i) => {
      if (i % 10 !== 4) delete (n as { consents?: unknown }).consents;
    });
    const { found, run, byId } = await untilFound(stack, 24);
    expect(run).toBeLessThanOrEqual(24);
    // One by-id sample a run until then (a one-page list: never more than its pages), then all 24.
    expect(byId.slice(0, -1).every((n) => n === 1)).toBe(true);
    expect(learnedOf(found)).toEqual(expect.arrayContaining([expect.stringMatching(/^read again by id: all 24 newsletter-subscriptions/)]));
    expect(await driftAgainstFullLists(stack, cwd)).toEqual([]);
  }, 120_000);

  it('a key no record carries at all: one record by id a run, the evidence kept (past a day too) with the risk said, until every record of a small list is read', async () => {
    stack = await startStack({ site: SITE });
    cwd = tempCwd('absent-key');
    for (const n of stack.platform.site.newsletter_subscription) delete (n as { consents?: unknown }).consents;
    const args = ['sync', '--all', '--types', 'newsletter_subscriptions'];
    const first = await cliJson(stack, args, cwd);
    expect(first.code).toBe(0);
    expect(learnedOf(first)).toEqual([
      expect.stringMatching(
        /^list pages of newsletter-subscriptions carry no consents, nor do 1 of their records read by id so far \(a key on 1 record in 10 would have shown 10 times in 100\): records are taken from the lists meanwhile; the next runs read a few more by id until all 24 have none/,
      ),
    ]);
    expect(stack.platform.requests.byId['newsletter-subscriptions']).toBe(1);
    // A day later the profile is learned again, but not the evidence.
    const file = path.join(cwd, '.svc-sync', 'platform-profile.json');
    const old = JSON.parse(fs.readFileSync(file, 'utf8')) as { learnedAt: string };
    fs.writeFileSync(file, JSON.stringify({ ...old, learnedAt: '2020-01-01T00:00:00Z' }));
    const sampledAfter: Array<number | undefined> = [];
    for (let run = 2; run <= 24; run++) {
      stack.platform.resetCounts();
      const done = await cliJson(stack, args, cwd);
      expect(done.code).toBe(0);
      expect(stack.platform.requests.byId['newsletter-subscriptions']).toBe(1);
      const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { collections: Record<string, { list?: string; sampled?: number[] }> };
      sampledAfter.push(profile.collections['newsletter-subscriptions']?.sampled?.length);
      if (run === 24) {
        expect(learnedOf(done)).toEqual([expect.stringMatching(/^list pages of newsletter-subscriptions carry no consents, nor does any of their 24 records by id: the list pages are complete$/)]);
        expect(profile.collections['newsletter-subscriptions']?.list).toBe('complete');
      }
    }
    expect(sampledAfter.slice(0, 3)).toEqual([2, 3, 4]);
    // The next run relies on it, confirmed within the day: nothing by id.
    stack.platform.resetCounts();
    expect((await cliJson(stack, args, cwd)).code).toBe(0);
    expect(stack.platform.requests.byId['newsletter-subscriptions']).toBeUndefined();
  }, 180_000);

  it('doctor states the risk left on lists not settled yet, and keeps the evidence runs gathered', async () => {
    stack = await startStack({ site: SITE });
    cwd = tempCwd('doctor-risk');
    for (const n of stack.platform.site.newsletter_subscription) delete (n as { consents?: unknown }).consents;
    expect((await cliJson(stack, ['sync', '--all', '--types', 'newsletter_subscriptions'], cwd)).code).toBe(0);
    const file = path.join(cwd, '.svc-sync', 'platform-profile.json');
    const sampled = (): number[] | undefined => (JSON.parse(fs.readFileSync(file, 'utf8')) as { collections: Record<string, { sampled?: number[] }> }).collections['newsletter-subscriptions']?.sampled;
    expect(sampled()).toHaveLength(1);
    const doctor = await cli(stack, ['doctor'], cwd);
    expect(doctor.code).toBe(0);
    const text = doctor.stdout.replace(/\n {4}/g, ' ');
    expect(text).toMatch(/ {2}newsletter-subscriptions: not settled: no consents in its lists nor in 2 read by id; a key on 1 record in 10 would have shown 19 times in 100 \(more each run\)/);
    for (const line of doctor.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(sampled()).toHaveLength(2);
  }, 90_000);
});
