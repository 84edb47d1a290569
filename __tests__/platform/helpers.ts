/** Shared set-up for the platform tests: a fake API on 127.0.0.1 and settings pointing at it. */
import type { PlatformSettings } from '../../src/config/settings.js';
import type { RetryTuning } from '../../src/platform/http.js';
import { startFakePlatform, type FakePlatform, type FakeRateLimit } from '../../fixtures/platform/server.js';
import { generateSite, type Site, type SiteOptions } from '../../fixtures/platform/site.js';

/** Looks like a real key, so a leak would be visible in any output. */
export const API_KEY = 'sk_live_5f3c9a1e7b2d4c6e8f0a1b2c3d4e5f60';

/** Short backoff so retries do not slow the suite; the policy is the same. */
export const FAST_RETRY: Partial<RetryTuning> = { retryBaseMs: 20, retryMaxMs: 100 };

/**
 * The request timeout is a last guard here: a reply from the fake on 127.0.0.1 takes milliseconds,
 * but seconds on a loaded machine, and a timeout there would be a retry the test did not ask for.
 * The tests of timeouts set their own, against a fault that holds the reply far longer.
 */
export function settingsFor(fake: FakePlatform, overrides: Partial<PlatformSettings> = {}): PlatformSettings {
  return { apiUrl: fake.url, apiKey: API_KEY, concurrency: 4, timeoutMs: 10_000, listIdsOnly: false, ...overrides };
}

export async function startWith(siteOptions: SiteOptions, rateLimit?: FakeRateLimit): Promise<{ fake: FakePlatform; site: Site }> {
  const site = generateSite(siteOptions);
  const fake = await startFakePlatform({ site, apiKey: API_KEY, rateLimit });
  return { fake, site };
}

/** How many times each by-id path was requested, for duplicate checks. */
export function byIdHits(fake: FakePlatform): Map<string, number> {
  const hits = new Map<string, number>();
  for (const entry of fake.requests.log) if (entry.kind === 'byId') hits.set(entry.url, (hits.get(entry.url) ?? 0) + 1);
  return hits;
}
