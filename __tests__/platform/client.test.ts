import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkPlatform, PlatformClient } from '../../src/platform/client.js';
import { PlatformError } from '../../src/model/errors.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { startFakePlatform, type FakePlatform } from '../../fixtures/platform/server.js';
import { PLATFORM_RETRY } from '../../src/platform/http.js';
import { generateSite, isoSeconds, type Site } from '../../fixtures/platform/site.js';
import { API_KEY, FAST_RETRY, settingsFor, startWith } from './helpers.js';

let fake: FakePlatform;
let site: Site;

beforeAll(async () => {
  ({ fake, site } = await startWith({ seed: 7, segments: 2, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 250, newsletterSubscriptions: 6 }));
});
afterAll(() => fake.close());

describe('envelopes', () => {
  it('unwraps {"donation": {...}} into the record, as generated', async () => {
    const client = new PlatformClient(settingsFor(fake));
    const donation = site.donation[3];
    const got = await client.getById('donation', donation.id);
    expect(got).toEqual(donation);
    expect(typeof got.total_amount).toBe('string');
    expect(client.counts()).toMatchObject({ total: 1, byId: 1, list: 0 });
  });

  it('reaches every collection, including newsletter-subscriptions and users', async () => {
    const client = new PlatformClient(settingsFor(fake));
    const sub = await client.getById('newsletter_subscription', site.newsletter_subscription[0].id);
    expect(sub.email).toBe(site.newsletter_subscription[0].email);
    const action = site.action[0];
    const owner = await client.getById('user', action.owner?.id as number);
    expect(owner.email).toBe(action.owner?.email);
    const segment = await client.getById('segment', site.segment[1].id);
    expect(segment.name).toBe(site.segment[1].name);
  });

  it('parses the list envelope and pages to the last page', async () => {
    const client = new PlatformClient(settingsFor(fake));
    const first = await client.listPage('donation', 1);
    expect(first).toMatchObject({ totalEntries: 250, totalPages: 3, perPage: 100, currentPage: 1 });
    expect(first.records).toHaveLength(100);
    const last = await client.listPage('donation', 3);
    expect(last.currentPage).toBe(3);
    expect(last.records).toHaveLength(50);
    expect(last.records[49]).toEqual(site.donation[249]);
  });

  it('scans a collection page by page to the end, each page once', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const seen: number[] = [];
    for await (const page of source.scan('donation', {})) seen.push(...page.records.map((d) => d.id));
    expect(seen).toEqual(site.donation.map((d) => d.id));
    expect(fake.requests.list.donations).toBe(3);
    expect(fake.requests.log.map((e) => e.url).sort()).toEqual([1, 2, 3].map((p) => `/v1/donations?page=${p}&per_page=100`));
    expect(source.requests()).toMatchObject({ total: 3, list: 3, byId: 0, retries: 0 });
  });
});

describe('filters', () => {
  it('narrows a scan with updated_after', async () => {
    const before = isoSeconds(Date.now() - 5_000);
    const [a, b] = [site.donation[10].id, site.donation[200].id];
    fake.update('donation', a, { payment_status: 'refunded' });
    fake.update('donation', b, { message: 'changed' });
    const source = createPlatformSource(settingsFor(fake));
    const found: number[] = [];
    for await (const page of source.scan('donation', { updatedAfter: before })) found.push(...page.records.map((d) => d.id));
    expect(found.sort()).toEqual([a, b].sort());
  });

  it('narrows with created_after, as the data says', async () => {
    const cut = site.donation[179].created_at as string;
    const client = new PlatformClient(settingsFor(fake));
    const page = await client.listPage('donation', 1, 100, { createdAfter: cut });
    const expected = site.donation.filter((d) => Date.parse(d.created_at as string) > Date.parse(cut)).map((d) => d.id);
    expect(page.totalEntries).toBe(expected.length);
    expect(page.records.map((d) => d.id)).toEqual(expected);
  });

  it('turns a 400 for an unparsable date into a bad_request with the API message', async () => {
    const client = new PlatformClient(settingsFor(fake));
    const error = await client.listPage('donation', 1, 100, { createdAfter: 'last tuesday' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, apiMessage: 'Invalid syntax for parameter created_after (expected ISO 8601 string).' });
    expect((error as PlatformError).fatal).toBe(false);
  });
});

describe('errors', () => {
  it('treats a 404 as a skip: notFound, not a failure and not a throw', async () => {
    const gone = site.donation[5].id;
    const source = createPlatformSource(settingsFor(fake));
    const result = await source.fetch('donation', [gone, 99_999_999]);
    // Before removal the first one exists; the unknown id is a skip.
    expect(result.records.has(gone)).toBe(true);
    expect(result.notFound).toEqual([99_999_999]);
    expect(result.failed.size).toBe(0);

    fake.remove('donation', gone);
    const fresh = createPlatformSource(settingsFor(fake));
    const after = await fresh.fetch('donation', [gone]);
    expect(after.notFound).toEqual([gone]);
    expect(after.records.size).toBe(0);
    const direct = await new PlatformClient(settingsFor(fake)).getById('donation', gone).catch((e: unknown) => e);
    expect(direct).toMatchObject({ kind: 'not_found', status: 404, apiMessage: 'Requested resource was not found.' });
  });

  it('treats a 401 as fatal, and neither message nor JSON carry the key', async () => {
    const wrongKey = 'sk_live_WRONG_0000000000000000000000000';
    const source = createPlatformSource(settingsFor(fake, { apiKey: wrongKey }), {}, FAST_RETRY);
    fake.resetCounts();
    const error = await source.fetch('donation', [site.donation[0].id]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    const pe = error as PlatformError;
    expect(pe.kind).toBe('auth');
    expect(pe.fatal).toBe(true);
    expect(pe.status).toBe(401);
    expect(pe.message).toContain('Invalid API key provided.');
    for (const text of [pe.message, JSON.stringify(pe), String(pe.stack), JSON.stringify(Object.entries(pe))]) {
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain(API_KEY);
    }
    expect(Object.keys(pe.toJSON()).sort()).toEqual(['kind', 'message', 'method', 'path', 'status']);
    // Not retried: a wrong key stays wrong.
    expect(fake.requests.total).toBe(1);
    // Later requests of the run are refused without reaching the API.
    await expect(source.fetch('segment', [site.segment[0].id])).rejects.toMatchObject({ kind: 'auth' });
    expect(fake.requests.total).toBe(1);
  });

  it('checkPlatform makes exactly one request and reports the outcome', async () => {
    fake.resetCounts();
    const good = await checkPlatform(settingsFor(fake));
    expect(good.ok).toBe(true);
    expect(fake.requests.total).toBe(1);
    const bad = await checkPlatform(settingsFor(fake, { apiKey: 'nope' }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.kind).toBe('auth');
    expect(fake.requests.total).toBe(2);
  });

  it('fake answers unknown paths 404 and non-GET 405', async () => {
    const headers = { 'x-api-key': API_KEY };
    const unknown = await fetch(`${fake.url}/v1/unicorns/1`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: 'Requested resource was not found.' });
    const post = await fetch(`${fake.url}/v1/donations`, { method: 'POST', headers, body: '{}' });
    expect(post.status).toBe(405);
    const noKey = await fetch(`${fake.url}/v1/donations`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ message: 'Invalid API key provided.' });
  });
});

describe('resumed scans', () => {
  it('starts at fromPage and yields each remaining page with its number and the list totals', async () => {
    fake.resetCounts();
    const source = createPlatformSource(settingsFor(fake));
    const pages: number[][] = [];
    const meta: Array<{ page: number; totalPages: number; totalEntries: number }> = [];
    for await (const page of source.scan('donation', { fromPage: 2 })) {
      pages.push(page.records.map((d) => d.id));
      meta.push({ page: page.page, totalPages: page.totalPages, totalEntries: page.totalEntries });
    }
    // fake.site: the served data, one donation shorter since the 404 test removed one.
    const served = fake.site.donation.map((d) => d.id).sort((a, b) => a - b);
    expect(pages.flat()).toEqual(served.slice(100));
    expect(pages.map((p) => p.length)).toEqual([100, served.length - 200]);
    expect(meta).toEqual([
      { page: 2, totalPages: 3, totalEntries: served.length },
      { page: 3, totalPages: 3, totalEntries: served.length },
    ]);
    expect(fake.requests.list.donations).toBe(2);
  });
});

describe('a 404 is "gone" only in the platform\'s own shape', () => {
  it.each(['html', 'empty', 'json'] as const)('a %s 404 from something else is a not_platform failure, retried, naming the URL', async (answer) => {
    const otherSite = generateSite({ seed: 3, segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 2, newsletterSubscriptions: 0 });
    const other = { site: otherSite, fake: await startFakePlatform({ site: otherSite, apiKey: API_KEY, unknownPaths: answer }) };
    try {
      const settings = { ...settingsFor(other.fake), apiUrl: `${other.fake.url}/typo` };
      const source = createPlatformSource(settings, {}, FAST_RETRY);
      const id = other.site.donation[0].id;
      const result = await source.fetch('donation', [id]);
      expect(result.notFound).toEqual([]);
      const error = result.failed.get(id);
      expect(error).toMatchObject({ kind: 'not_platform', status: 404 });
      expect(error?.apiMessage).toContain(`${other.fake.url}/typo/v1/donations/${id}`);
      expect(other.fake.requests.total).toBe(1 + PLATFORM_RETRY.retries);
      const check = await checkPlatform(settings);
      expect(check).toMatchObject({ ok: false, notPlatform: true });
    } finally {
      await other.fake.close();
    }
  });
});
