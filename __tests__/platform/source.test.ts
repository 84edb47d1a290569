import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chooseFetchPlan, shouldProbe } from '../../src/platform/planner.js';
import { createPlatformSource } from '../../src/platform/source.js';
import type { FakePlatform } from '../../fixtures/platform/server.js';
import { isoSeconds, type Site } from '../../fixtures/platform/site.js';
import { byIdHits, settingsFor, startWith } from './helpers.js';

describe('planner (pure)', () => {
  it('scans when the pages cost fewer requests than the ids', () => {
    expect(chooseFetchPlan({ needed: 2_900, totalEntries: 3_500, perPage: 100, pagesRead: 1, listIdsOnly: false })).toEqual({ kind: 'scan', requests: 34, byIdRequests: 2_900 });
    expect(chooseFetchPlan({ needed: 20, totalEntries: 3_500, perPage: 100, pagesRead: 1, listIdsOnly: false })).toEqual({ kind: 'byId', requests: 20, scanRequests: 34 });
    // A tie goes to by id: same cost, and no records fetched that nobody asked for.
    expect(chooseFetchPlan({ needed: 34, totalEntries: 3_500, perPage: 100, pagesRead: 1, listIdsOnly: false }).kind).toBe('byId');
    expect(chooseFetchPlan({ needed: 0, totalEntries: 3_500, perPage: 100, pagesRead: 1, listIdsOnly: false }).kind).toBe('byId');
    // Partial lists cannot replace by-id fetches.
    expect(chooseFetchPlan({ needed: 2_900, totalEntries: 3_500, perPage: 100, pagesRead: 1, listIdsOnly: true }).kind).toBe('byId');
  });

  it('probes the first page only when it can pay off', () => {
    expect(shouldProbe(1, false, false)).toBe(false);
    expect(shouldProbe(2, false, false)).toBe(false);
    expect(shouldProbe(3, false, false)).toBe(true);
    expect(shouldProbe(500, true, false)).toBe(false);
    expect(shouldProbe(500, false, true)).toBe(false);
  });
});

describe('PlatformSource over the fake', () => {
  let fake: FakePlatform;
  let site: Site;
  beforeAll(async () => {
    ({ fake, site } = await startWith({ seed: 5, segments: 3, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 350, newsletterSubscriptions: 10 }));
  });
  afterAll(() => fake.close());

  it('fetches every record at most once per run: parents, owners, repeats and concurrent asks', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const actions = site.action.slice(0, 2);
    const ownerIds = actions.map((a) => a.owner?.id as number);
    // Two ids are below the probe threshold: by id. The same ids asked concurrently share requests.
    const [a, b] = await Promise.all([
      source.fetch(
        'action',
        actions.map((x) => x.id),
      ),
      source.fetch(
        'action',
        actions.map((x) => x.id),
      ),
    ]);
    expect(a.records.size).toBe(2);
    expect(b.records.size).toBe(2);
    await source.fetch('user', [...ownerIds, ...ownerIds]);
    await source.fetch('user', ownerIds);
    // Parents of many donations: the same project asked for over and over.
    const projectIds = site.donation
      .slice(0, 60)
      .map((d) => d.project_id)
      .filter((id): id is number => typeof id === 'number');
    const projects = await source.fetch('project', projectIds);
    expect(projects.records.size).toBe(new Set(projectIds).size);
    await source.fetch('project', projectIds);
    await source.fetch(
      'action',
      actions.map((x) => x.id),
    );
    // A 404 is remembered too.
    await source.fetch('team', [424_242]);
    await source.fetch('team', [424_242]);

    const hits = byIdHits(fake);
    expect([...hits.values()].every((n) => n === 1)).toBe(true);
    expect(fake.requests.byId.actions).toBe(2);
    expect(fake.requests.byId.teams).toBe(1);
    expect(source.requests().total).toBe(fake.requests.total);
  });

  it('reads parents in one list page when the collection is small', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const projectIds = site.project.map((p) => p.id);
    const result = await source.fetch('project', projectIds);
    expect(result.records.size).toBe(projectIds.length);
    expect(fake.requests.total).toBe(1);
    expect(fake.requests.listTotal).toBe(1);
  });

  it('scans when the ids are most of the collection', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const ids = site.donation.slice(20, 320).map((d) => d.id);
    const result = await source.fetch('donation', ids);
    expect(result.records.size).toBe(300);
    expect(fake.requests.byIdTotal).toBe(0);
    expect(fake.requests.listTotal).toBe(4);
    expect(source.plans()).toEqual([{ type: 'donation', requested: 300, uncached: 300, probed: true, plan: { kind: 'scan', requests: 3, byIdRequests: 220 } }]);
    // The asked records are cached: a second ask costs nothing.
    await source.fetch('donation', ids);
    expect(fake.requests.total).toBe(4);
    // Donations no record points at: those of the pages not asked for were not kept (a serve
    // batch's changed-since list holds the whole backlog), so the first and last pages (20 and
    // 30 left out) are read again for them; the two pages kept whole are not.
    const all = await source.fetch(
      'donation',
      site.donation.map((d) => d.id),
    );
    expect(all.records.size).toBe(350);
    expect(fake.requests.total).toBe(6);
    expect(fake.requests.byIdTotal).toBe(0);
  });

  it('keeps the donations a batch named for its later fetches, not the rest of the list', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const ids = site.donation.slice(0, 300).map((d) => d.id);
    source.named('donation', ids);
    await source.fetch('donation', ids.slice(0, 200));
    expect(fake.requests.listTotal).toBe(4);
    // Named before the first fetch: kept from the pages it read, no request for them.
    expect((await source.fetch('donation', ids.slice(200))).records.size).toBe(100);
    expect(fake.requests.total).toBe(4);
  });

  it('narrows the scan with updated_after when told the ids changed since then', async () => {
    const since = isoSeconds(Date.now() - 2_000);
    const changed = site.donation.slice(100, 250).map((d) => d.id);
    for (const id of changed) fake.update('donation', id, { payment_status: 'refunded' });
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const result = await source.fetch('donation', changed, { updatedAfter: since });
    expect(result.records.size).toBe(150);
    expect([...result.records.values()].every((d) => d.payment_status === 'refunded')).toBe(true);
    // 150 changed records: two pages of the narrowed list instead of four of the whole one.
    expect(fake.requests.listTotal).toBe(2);
    expect(fake.requests.byIdTotal).toBe(0);
    expect(fake.requests.log.every((e) => e.url.includes('updated_after='))).toBe(true);
  });

  it('with listIdsOnly, uses lists to find ids and fetches each record by id', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake, { listIdsOnly: true }));
    const all: number[] = [];
    for await (const page of source.scan('newsletter_subscription', {})) all.push(...page.records.map((r) => r.id));
    expect(all).toEqual(site.newsletter_subscription.map((r) => r.id));
    expect(fake.requests.list['newsletter-subscriptions']).toBe(1);
    expect(fake.requests.byId['newsletter-subscriptions']).toBe(10);
    // And fetch never scans in that mode.
    fake.resetCounts();
    await source.fetch(
      'segment',
      site.segment.map((s) => s.id),
    );
    expect(fake.requests.listTotal).toBe(0);
    expect(fake.requests.byIdTotal).toBe(site.segment.length);
  });
});

describe('the issue figure: a 3,500-donation site', () => {
  let fake: FakePlatform;
  let site: Site;
  beforeAll(async () => {
    ({ fake, site } = await startWith({ seed: 21, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 3, donations: 3_500, newsletterSubscriptions: 0 }));
  });
  afterAll(() => fake.close());

  it('3,000 of the donations cost 35 requests, not 3,000', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const ids = site.donation
      .filter((_, i) => i % 7 !== 0)
      .slice(0, 3_000)
      .map((d) => d.id);
    const result = await source.fetch('donation', ids);
    expect(result.records.size).toBe(3_000);
    expect(source.requests()).toMatchObject({ total: 35, list: 35, byId: 0 });
    expect(fake.requests.total).toBe(35);
  });

  it('20 of them are fetched by id after one probe page', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const ids = site.donation.slice(-20).map((d) => d.id);
    const result = await source.fetch('donation', ids);
    expect(result.records.size).toBe(20);
    expect(fake.requests.listTotal).toBe(1);
    expect(fake.requests.byIdTotal).toBe(20);
    expect(source.plans()[0].plan).toEqual({ kind: 'byId', requests: 20, scanRequests: 34 });
    // The collection's size is now known: the next few ids need no second probe.
    await source.fetch(
      'donation',
      site.donation.slice(1_000, 1_004).map((d) => d.id),
    );
    expect(fake.requests.listTotal).toBe(1);
    expect(fake.requests.byIdTotal).toBe(24);
  });

  it('byId asks for ids a complete scan shows absent (an audit confirms its orphans with a 404)', async () => {
    const source = createPlatformSource(settingsFor(fake));
    for await (const page of source.scan('segment', {})) void page;
    fake.resetCounts();
    const gone = 999_999;
    const kept = site.segment[0].id;
    // Without byId the scan is proof enough: no request.
    expect((await source.fetch('segment', [gone])).notFound).toEqual([gone]);
    expect(fake.requests.total).toBe(0);
    // With it, one GET by id each, and a 404 makes it not found.
    const res = await source.fetch('segment', [gone, kept], { byId: true });
    expect(res.notFound).toEqual([gone]);
    expect(res.records.get(kept)?.id).toBe(kept);
    expect(res.absentFromScan?.size ?? 0).toBe(0);
    expect(fake.requests.byIdTotal).toBe(2);
    expect(fake.requests.listTotal).toBe(0);
  });
});

describe('a narrowing filter the profile knows is ignored', () => {
  let fake: FakePlatform;
  let site: Site;
  beforeAll(async () => {
    ({ fake, site } = await startWith({ seed: 6, segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 400, newsletterSubscriptions: 0 }));
    fake.behaviour.ignoreFilters = ['updated_after'];
  });
  afterAll(() => fake.close());

  it('prices the scan from the known size: a few records by id without a probe of the list', async () => {
    const ids = site.donation.slice(0, 3).map((d) => d.id);
    const hint = { updatedAfter: '2026-01-01T00:00:00Z' };
    // Not known yet: one probe page (which shows the filter ignored and the collection's size), then by id.
    fake.resetCounts();
    const first = createPlatformSource(settingsFor(fake), {}, undefined, { keysRead: () => [] });
    expect((await first.fetch('donation', ids, hint)).records.size).toBe(3);
    expect(fake.requests.list.donations ?? 0).toBe(1);
    const profile = first.profile();
    expect(profile.collections.donations).toMatchObject({ updatedAfter: 'ignored', records: 400 });
    // Known: by id at once.
    fake.resetCounts();
    const next = createPlatformSource(settingsFor(fake), {}, undefined, { keysRead: () => [], profile });
    expect((await next.fetch('donation', ids, hint)).records.size).toBe(3);
    expect({ list: fake.requests.list.donations ?? 0, byId: fake.requests.byId.donations ?? 0 }).toEqual({ list: 0, byId: 3 });
  });
});

describe('a collection whose size is known (a resumed run, the saved profile)', () => {
  let fake: FakePlatform;
  let site: Site;
  beforeAll(async () => {
    ({ fake, site } = await startWith({ seed: 8, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 3, donations: 300, newsletterSubscriptions: 0 }));
  });
  afterAll(() => fake.close());

  it('plans without a probe page: by id for a few, a scan for many, and ids past a grown size still by id', async () => {
    // A first run lists the whole collection and learns its size.
    const first = createPlatformSource(settingsFor(fake), {}, undefined, { keysRead: () => [] });
    for await (const page of first.scan('donation', {})) void page;
    const profile = first.profile();
    expect(profile.collections.donations?.records).toBe(300);

    // A few: by id at once, no page of the list read to price them.
    fake.resetCounts();
    const few = site.donation.slice(0, 3).map((d) => d.id);
    const next = createPlatformSource(settingsFor(fake), {}, undefined, { keysRead: () => [], profile });
    expect((await next.fetch('donation', few)).records.size).toBe(3);
    expect({ list: fake.requests.list.donations ?? 0, byId: fake.requests.byId.donations ?? 0 }).toEqual({ list: 0, byId: 3 });

    // Many, with a record added since the size was learned (on a fourth page): the three known pages, then it by id.
    const added = { ...site.donation[0], id: 199_999 };
    fake.add('donation', added);
    fake.resetCounts();
    const many = [...site.donation.slice(10, 200).map((d) => d.id), added.id];
    const later = createPlatformSource(settingsFor(fake), {}, undefined, { keysRead: () => [], profile });
    const res = await later.fetch('donation', many);
    expect(res.records.size).toBe(many.length);
    expect(res.notFound).toEqual([]);
    expect(fake.requests.list.donations).toBe(3);
    expect(fake.requests.byIdTotal).toBe(1);
  });
});
