/**
 * The pacer's waits are bounded whatever the platform's headers say: a reset of 30 days or 1e12,
 * a Retry-After of 2,000,000 s, a count at zero with no reset, and no rate-limit headers at all.
 * A virtual clock: sleep() advances it, so the test sees every wait the pacer takes.
 */
import { describe, expect, it } from '@jest/globals';
import type { IncomingHttpHeaders } from 'node:http';
import { DOCUMENTED_LIMITS, MAX_WAIT_MS, RatePacer } from '../../src/platform/rateLimit.js';

function pacerOnClock(start: number): { pacer: RatePacer; sleeps: number[]; now: () => number } {
  let now = start;
  const sleeps: number[] = [];
  const pacer = new RatePacer({
    concurrency: 1,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  return { pacer, sleeps, now: () => now };
}

/** One request through the pacer, answered with `headers`. */
async function request(pacer: RatePacer, headers: IncomingHttpHeaders): Promise<void> {
  const ticket = await pacer.acquire();
  pacer.settle(ticket, headers);
}

const exhausted = (reset?: string): IncomingHttpHeaders => ({
  'x-ratelimit-limit-minute': '100',
  'x-ratelimit-remaining-minute': '0',
  'x-ratelimit-limit-hour': '500',
  'x-ratelimit-remaining-hour': '400',
  ...(reset === undefined ? {} : { 'ratelimit-reset': reset }),
});

describe('waits taken from headers', () => {
  it.each(['2592000', '1e12', '2000000'])('a reset of %s s waits at most 15 minutes, then looks again', async (reset) => {
    const { pacer, sleeps } = pacerOnClock(Date.UTC(2026, 10, 24, 10, 0, 30));
    await request(pacer, exhausted(reset));
    await request(pacer, exhausted(reset));
    await request(pacer, { 'x-ratelimit-remaining-minute': '50', 'x-ratelimit-remaining-hour': '400' });
    expect(sleeps.length).toBeGreaterThan(0);
    for (const ms of sleeps) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(MAX_WAIT_MS);
    }
  });

  it('a Retry-After of 2,000,000 s blocks for at most 15 minutes', async () => {
    const { pacer, sleeps } = pacerOnClock(Date.UTC(2026, 10, 24, 10, 0, 0));
    pacer.block(2_000_000_000);
    await pacer.acquire();
    expect(sleeps).toEqual([MAX_WAIT_MS]);
  });

  it('a count at zero with no reset waits for the next minute boundary, not a whole window', async () => {
    const { pacer, sleeps } = pacerOnClock(Date.UTC(2026, 10, 24, 10, 0, 45));
    await request(pacer, exhausted());
    await pacer.acquire();
    expect(sleeps).toEqual([15_000]);
  });

  it('the hour at zero with no reset waits for the top of the hour', async () => {
    const { pacer, sleeps } = pacerOnClock(Date.UTC(2026, 10, 24, 10, 50, 0));
    await request(pacer, { 'x-ratelimit-remaining-minute': '40', 'x-ratelimit-remaining-hour': '0' });
    await pacer.acquire();
    expect(sleeps).toEqual([10 * 60_000]);
  });
});

describe('a platform that reports no limits', () => {
  it(`is paced at the documented ${DOCUMENTED_LIMITS.minute} a minute and ${DOCUMENTED_LIMITS.hour} an hour`, async () => {
    const start = Date.UTC(2026, 10, 24, 10, 0, 0);
    const { pacer, sleeps, now } = pacerOnClock(start);
    for (let i = 0; i < DOCUMENTED_LIMITS.minute; i++) await request(pacer, {});
    expect(sleeps).toEqual([]);
    expect(pacer.limitsReported).toBe(false);
    // The 101st waits for the next minute.
    await request(pacer, {});
    expect(sleeps).toEqual([60_000]);
    // 500 in the hour, then the next waits for the top of the hour.
    for (let i = 0; i < DOCUMENTED_LIMITS.hour - DOCUMENTED_LIMITS.minute - 1; i++) await request(pacer, {});
    const before = now();
    await request(pacer, {});
    expect(now() - start).toBeGreaterThanOrEqual(3_600_000);
    expect(now()).toBe(start + 3_600_000);
    expect(before).toBeLessThan(start + 3_600_000);
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(MAX_WAIT_MS);
  });

  it('headers seen once: the platform reports its limits, and local counting stays out of the way', async () => {
    const { pacer, sleeps } = pacerOnClock(Date.UTC(2026, 10, 24, 10, 0, 0));
    for (let i = 0; i < 150; i++) await request(pacer, { 'x-ratelimit-remaining-minute': '1000', 'x-ratelimit-remaining-hour': '10000' });
    expect(pacer.limitsReported).toBe(true);
    expect(sleeps).toEqual([]);
  });
});
