/**
 * The list-shape check on the run's budget (src/platform/listShape.ts): a tenth of the list pages
 * the run reads, shared by the collections that need samples, one sample each at least. The real
 * client against the fake platform; a run is a source scanning collections in the engine's order.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { keysRead } from '../../src/mapping/keysRead.js';
import { createPlatformSource, type PlatformSource } from '../../src/platform/source.js';
import type { ResourceType } from '../../src/model/apiRecords.js';
import type { PlatformProfile } from '../../src/model/platformProfile.js';
import { startFakePlatform, type FakePlatform, type FakePlatformBehaviour } from '../../fixtures/platform/server.js';
import { generateSite, type Site, type SiteOptions } from '../../fixtures/platform/site.js';
import { API_KEY, FAST_RETRY, settingsFor } from './helpers.js';

/** 3 segments on one list page, 3,000 donations on 30: a run of 31 list pages and more. */
const LARGE: SiteOptions = { seed: 38, segments: 3, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 3_000, newsletterSubscriptions: 5 };

interface Run {
  source: PlatformSource;
  learned: string[];
  segmentsById: number;
  donationsById: number;
}

/** One run: segments, then donations, each scanned whole, from what the last run learned. */
async function run(fake: FakePlatform, profile?: PlatformProfile): Promise<Run> {
  fake.resetCounts();
  const learned: string[] = [];
  const source = createPlatformSource(settingsFor(fake), {}, FAST_RETRY, { keysRead, ...(profile ? { profile } : {}), onLearn: (t) => learned.push(t) });
  for (const type of ['segment', 'donation'] as const satisfies readonly ResourceType[]) for await (const page of source.scan(type, {})) expect(page.failed.size).toBe(0);
  return { source, learned, segmentsById: fake.requests.byId.segments ?? 0, donationsById: fake.requests.byId.donations ?? 0 };
}

describe("the list-shape check on the run's budget", () => {
  let fake: FakePlatform | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function start(options: SiteOptions, behaviour?: FakePlatformBehaviour, edit?: (site: Site) => void): Promise<FakePlatform> {
    const site = generateSite(options);
    edit?.(site);
    fake = await startFakePlatform({ site, apiKey: API_KEY, ...(behaviour ? { behaviour } : {}) });
    return fake;
  }

  it('a one-page collection no list record of which carries a key is read whole in the first run, within its pool; the second run reads nothing by id', async () => {
    const platform = await start({ ...LARGE, vendorShape: true });
    const first = await run(platform);
    // 31 list pages: a pool of 3, all of it on the 3 segments (donations' lists carry every key).
    expect(first.segmentsById).toBe(3);
    expect(first.donationsById).toBe(0);
    expect(first.learned).toEqual(
      expect.arrayContaining([expect.stringMatching(/^list pages of segments carry no end_date\b.*, nor does any of their 3 records by id: the list pages are complete$/)]),
    );
    expect(first.source.profile().collections.segments?.list).toBe('complete');
    const second = await run(platform, first.source.profile());
    expect(second.segmentsById).toBe(0);
    expect(second.donationsById).toBe(0);
  }, 60_000);

  it('a small run still reads one record by id of each collection that needs it: a partial donation list is found at once', async () => {
    const platform = await start({ ...LARGE, donations: 40, vendorShape: true }, { listOmit: { donations: ['donation_amount'] } });
    const first = await run(platform);
    // 2 list pages: a pool of 1, spent on the segments; the donations' one sample goes out regardless.
    expect(first.segmentsById).toBe(1);
    expect(first.learned).toEqual(expect.arrayContaining([expect.stringMatching(/^list pages of donations lack donation_amount \(the by-id records have them\)/)]));
    // The donations are read by id (40), the sample among them.
    expect(first.donationsById).toBe(40);
  }, 60_000);

  it('samples taken later in the run that find the lists partial say so, and the next run reads the collection again by id', async () => {
    // Only the first segment has an end date by id; the lists leave it out. The first sample (the
    // middle segment) lacks it; the rest, read once the donations' pages grow the pool, has it.
    const platform = await start(LARGE, { listOmit: { segments: ['end_date'] } }, (site) => {
      site.segment.forEach((s, i) => {
        if (i === 0) s.end_date = '2027-01-01T00:00:00Z';
        else delete s.end_date;
      });
    });
    const first = await run(platform);
    expect(first.segmentsById).toBe(3);
    expect(first.learned).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^list pages of segments carry no end_date\b.*, nor do 1 of their records read by id so far/),
        expect.stringMatching(
          /^list pages of segments lack end_date \(the by-id records have them\): .*; the segments taken from list pages since \S+ are read again by id and written right by the next sync$/,
        ),
      ]),
    );
    const second = await run(platform, first.source.profile());
    expect(second.segmentsById).toBe(3);
    expect(second.learned).toEqual(expect.arrayContaining([expect.stringMatching(/^read again by id: all 3 segments \(their list pages, read since \S+, lack end_date\)/)]));
  }, 60_000);
});
