import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PlatformClient } from '../../src/platform/client.js';
import { PlatformError } from '../../src/model/errors.js';
import type { RequestInfo } from '../../src/platform/http.js';
import type { WaitInfo } from '../../src/platform/rateLimit.js';
import { createPlatformSource } from '../../src/platform/source.js';
import type { FakePlatform } from '../../fixtures/platform/server.js';
import type { Site } from '../../fixtures/platform/site.js';
import { API_KEY, FAST_RETRY, settingsFor, startWith } from './helpers.js';

let fake: FakePlatform;
let site: Site;

beforeAll(async () => {
  ({ fake, site } = await startWith({ seed: 3, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 40, newsletterSubscriptions: 2 }));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.faults.clear();
  fake.resetCounts();
});

describe('retries', () => {
  it.each([
    ['a 500 with an HTML body', 'html500'],
    ['a 502', '502'],
    ['a dropped connection', 'drop'],
  ] as const)('retries %s and returns the record', async (_label, kind) => {
    const requests: RequestInfo[] = [];
    const client = new PlatformClient(settingsFor(fake), { retry: FAST_RETRY, hooks: { onRequest: (r) => requests.push(r) } });
    fake.faults.next(2, kind);
    const donation = await client.getById('donation', site.donation[0].id);
    expect(donation.id).toBe(site.donation[0].id);
    expect(fake.requests.faults).toBe(2);
    expect(fake.requests.total).toBe(3);
    expect(client.counts()).toMatchObject({ total: 3, byId: 3, retries: 2 });
    expect(requests.map((r) => r.willRetry)).toEqual([true, true, false]);
  });

  it('retries a timeout (the response is slower than timeoutMs)', async () => {
    // The retry must answer within timeoutMs (2 s: a loaded machine's reply, not a quiet one's
    // 250 ms); the slow reply is held far longer (the fake drops it when the client gives up).
    const client = new PlatformClient(settingsFor(fake, { timeoutMs: 2_000 }), { retry: FAST_RETRY });
    fake.faults.next(1, 'slow', { delayMs: 30_000 });
    const donation = await client.getById('donation', site.donation[1].id);
    expect(donation.id).toBe(site.donation[1].id);
    expect(client.counts()).toMatchObject({ total: 2, retries: 1 });
  });

  it('after the retries, fails that record only, with a clear error and no JSON.parse crash', async () => {
    const bad = site.donation[2].id;
    const good = site.donation[3].id;
    fake.faults.next(10, 'html500', { path: `/donations/${bad}` });
    const source = createPlatformSource(settingsFor(fake), {}, { ...FAST_RETRY, retries: 2 });
    const result = await source.fetch('donation', [bad, good]);
    expect(result.records.has(good)).toBe(true);
    expect(result.records.has(bad)).toBe(false);
    const error = result.failed.get(bad);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'server', status: 500, path: `/v1/donations/${bad}` });
    expect(error?.apiMessage).toContain('non-JSON body (text/html)');
    expect(error?.message).not.toContain(API_KEY);
    expect(fake.requests.log.filter((e) => e.url === `/v1/donations/${bad}`)).toHaveLength(3);
  });

  it('reports a timeout that persists as kind timeout', async () => {
    const client = new PlatformClient(settingsFor(fake, { timeoutMs: 150 }), { retry: { ...FAST_RETRY, retries: 1 } });
    fake.faults.next(2, 'slow', { delayMs: 30_000 });
    const error = await client.getById('donation', site.donation[4].id).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout', status: undefined });
    expect((error as PlatformError).apiMessage).toBe('no response within 150 ms');
  });
});

describe('429', () => {
  it('honours Retry-After, tells the caller, then succeeds', async () => {
    const waits: WaitInfo[] = [];
    const client = new PlatformClient(settingsFor(fake), { retry: FAST_RETRY, hooks: { onWait: (w) => waits.push(w) } });
    fake.faults.next(1, '429', { retryAfter: 1 });
    const started = Date.now();
    const donation = await client.getById('donation', site.donation[5].id);
    const waited = Date.now() - started;
    expect(donation.id).toBe(site.donation[5].id);
    expect(waits).toEqual([{ seconds: 1, reason: 'rate_limited', message: 'waiting 1 s: platform rate limited (429)' }]);
    expect(client.counts()).toMatchObject({ total: 2, retries: 1, rateLimitWaits: 1 });
    // The retry came after the announced second, not before (an outcome, not a speed limit).
    expect(waited).toBeGreaterThanOrEqual(950);
  });

  // Issue 28 row 11: a long Retry-After is waited in stretches of at most maxRetryAfterMs (15
  // minutes; here 150 ms), looking again after each, never a failure at once.
  it.each([[1000], [99_999_999]])('waits out a Retry-After of %i s in bounded stretches, says so, then succeeds', async (retryAfter) => {
    const waits: WaitInfo[] = [];
    const client = new PlatformClient(settingsFor(fake), { retry: { ...FAST_RETRY, maxRetryAfterMs: 150 }, hooks: { onWait: (w) => waits.push(w) } });
    fake.faults.next(2, '429', { retryAfter });
    const donation = await client.getById('donation', site.donation[6].id);
    expect(donation.id).toBe(site.donation[6].id);
    const told = { seconds: 1, reason: 'rate_limited', askedSeconds: retryAfter, message: `waiting 1 s: platform rate limited (429), asked ${retryAfter} s; looks again then` };
    expect(waits).toEqual([told, told]);
    expect(fake.requests.total).toBe(3);
    expect(client.counts()).toMatchObject({ total: 3, retries: 2, rateLimitWaits: 2 });
  });

  it('a run that meets more 429s than rateLimitRetries keeps waiting while within its patience: it finishes later', async () => {
    const client = new PlatformClient(settingsFor(fake), { retry: { ...FAST_RETRY, maxRetryAfterMs: 20, rateLimitRetries: 2, rateLimitPatienceMs: 60_000 } });
    fake.faults.next(8, '429', { retryAfter: 3600 });
    const donation = await client.getById('donation', site.donation[7].id);
    expect(donation.id).toBe(site.donation[7].id);
    expect(fake.requests.total).toBe(9);
  });

  it('a platform that keeps answering 429 past the patience fails the request as rate_limited, saying how long it waited', async () => {
    const client = new PlatformClient(settingsFor(fake), { retry: { ...FAST_RETRY, maxRetryAfterMs: 50, rateLimitRetries: 2, rateLimitPatienceMs: 200 } });
    fake.faults.next(50, '429', { retryAfter: 3600 });
    const error = await client.getById('donation', site.donation[8].id).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429 });
    // Four waits of 50 ms reach the 200 ms patience: the fifth 429 ends it.
    expect((error as PlatformError).apiMessage).toBe('API rate limit exceeded (5 answers 429 in a row, 0 s waited)');
    expect(fake.requests.total).toBe(5);
  });

  it('a check that must not wait (rateLimitRetries 0) fails at the first 429', async () => {
    const client = new PlatformClient(settingsFor(fake), { retry: { ...FAST_RETRY, rateLimitRetries: 0 } });
    fake.faults.next(1, '429', { retryAfter: 1000 });
    const error = await client.getById('donation', site.donation[9].id).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, apiMessage: 'API rate limit exceeded' });
    expect(fake.requests.total).toBe(1);
  });
});

describe('pacing from the rate-limit headers', () => {
  it('makes 300 requests against 100 per window without a single 429', async () => {
    const { fake: limited, site: big } = await startWith(
      { seed: 11, segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 300, newsletterSubscriptions: 0 },
      // A four-second window: long enough that a loaded machine still uses up 100 requests inside one.
      { perMinute: 100, perHour: 10_000, windowMs: 4_000 },
    );
    try {
      const waits: WaitInfo[] = [];
      // listIdsOnly: every record by id, the most request-hungry plan.
      const source = createPlatformSource(settingsFor(limited, { listIdsOnly: true }), { onWait: (w) => waits.push(w) }, FAST_RETRY);
      const result = await source.fetch(
        'donation',
        big.donation.map((d) => d.id),
      );
      expect(result.records.size).toBe(300);
      expect(limited.requests.byIdTotal).toBe(300);
      expect(limited.requests.rateLimited).toBe(0);
      expect(limited.requests.status[429]).toBeUndefined();
      expect(source.requests()).toMatchObject({ total: 300, byId: 300, retries: 0 });
      // It had to pause for the window at least twice, and said so.
      expect(waits.length).toBeGreaterThanOrEqual(2);
      expect(waits.every((w) => w.reason === 'minute_limit' && w.seconds >= 1)).toBe(true);
      expect(source.requests().rateLimitWaits).toBe(waits.length);
      expect(source.rateLimit().limitMinute).toBe(100);
    } finally {
      await limited.close();
    }
  });
});
