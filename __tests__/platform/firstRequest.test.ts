/**
 * A client's first request goes out through Node's own HTTP client while got loads (it would
 * otherwise wait for got's modules before anything is sent); every later one through got. The two
 * must be indistinguishable to the platform and to the caller: the same URL and headers, and the
 * same answer for every failure. (Retries of a failed first request are covered by
 * resilience.test.ts, whose cases each start with a fresh client.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import dc from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { PlatformClient } from '../../src/platform/client.js';
import type { FaultKind, FakePlatform } from '../../fixtures/platform/server.js';
import type { Site } from '../../fixtures/platform/site.js';
import { API_KEY, FAST_RETRY, settingsFor, startWith } from './helpers.js';

let fake: FakePlatform;
let site: Site;

beforeAll(async () => {
  ({ fake, site } = await startWith({ seed: 8, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 12, newsletterSubscriptions: 2 }));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.faults.clear();
  fake.resetCounts();
});

interface Sent {
  path: string;
  headers: Record<string, unknown>;
}

/** The requests this process sends to the fake while `work` runs, as Node's HTTP layer sees them. */
async function sentDuring(work: () => Promise<unknown>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const onStart = (message: unknown): void => {
    const request = (message as { request: ClientRequest }).request;
    if (request.path.startsWith('/v1/')) sent.push({ path: request.path, headers: request.getHeaders() });
  };
  dc.subscribe('http.client.request.start', onStart);
  try {
    await work();
  } finally {
    dc.unsubscribe('http.client.request.start', onStart);
  }
  return sent;
}

describe("a client's first request", () => {
  it('goes out through Node’s own client, the next through got: the same path and platform headers', async () => {
    const client = new PlatformClient(settingsFor(fake), { retry: FAST_RETRY });
    const [a, b] = [site.donation[0]!.id, site.donation[1]!.id];
    const sent = await sentDuring(async () => {
      expect((await client.getById('donation', a)).id).toBe(a);
      expect((await client.listPage('donation', 1, 5)).records).toHaveLength(5);
      expect((await client.getById('donation', b)).id).toBe(b);
    });
    expect(sent.map((s) => s.path)).toEqual([`/v1/donations/${a}`, '/v1/donations?page=1&per_page=5', `/v1/donations/${b}`]);
    for (const s of sent) expect(s.headers).toMatchObject({ 'x-api-key': API_KEY, accept: 'application/json', 'user-agent': 'svc-sync' });
    // got asks for compressed bodies (and decompresses them); Node's own client sends no such header.
    expect(sent.map((s) => s.headers['accept-encoding'] !== undefined)).toEqual([false, true, true]);
    expect(client.counts()).toMatchObject({ total: 3, byId: 2, list: 1, retries: 0 });
  });

  it.each([
    ['a proxy page answering 404 in HTML', 'html404'],
    ['a 500 with an HTML body', 'html500'],
    ['a 502', '502'],
    ['a dropped connection', 'drop'],
  ] as const)('meets %s with the same error as a later request', async (_label, kind: FaultKind) => {
    // No retry: the error is that of the one attempt, sent by Node's client (first) or by got (later).
    const retries = 0;
    const id = site.donation[2]!.id;
    const failure = async (warm: boolean): Promise<unknown> => {
      const client = new PlatformClient(settingsFor(fake), { retry: { ...FAST_RETRY, retries } });
      if (warm) await client.getById('donation', site.donation[3]!.id);
      fake.faults.next(1, kind, { path: `/donations/${id}` });
      return client.getById('donation', id).catch((e: unknown) => e);
    };
    const first = await failure(false);
    const later = await failure(true);
    expect(first).toMatchObject({ kind: (later as { kind: string }).kind, status: (later as { status: number }).status, apiMessage: (later as { apiMessage: string }).apiMessage });
  });

  it('with a refused API key fails as a later request does, and nothing more is sent', async () => {
    const wrongKey = settingsFor(fake, { apiKey: 'sk_live_0000000000000000000000000000wrong' });
    const first = new PlatformClient(wrongKey, { retry: FAST_RETRY });
    const error = await first.getById('donation', site.donation[4]!.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect((error as Error).message).not.toContain('wrong');
    await expect(first.getById('donation', site.donation[5]!.id)).rejects.toMatchObject({ kind: 'auth', status: 401 });
    expect(fake.requests.total).toBe(1);
  });
});
