/** The status line: phase, counts against totals, elapsed time and ETA; and one rate-limit pause, one announcement. */
import { describe, expect, it } from '@jest/globals';
import { clock, statusLine } from '../../src/cli/render/progress.js';
import { fit } from '../../src/cli/render/text.js';
import { RatePacer, type WaitInfo } from '../../src/platform/rateLimit.js';

describe('statusLine', () => {
  it("names the phase and type, counts against the total, elapsed time and the ETA at the type's pace", () => {
    const line = statusLine({ type: 'donation', phase: 'write', done: 25_000, total: 100_000 }, 0, 60_000, 60_000, '140 API + 55 SF requests', '');
    expect(line).toBe('write donation 25,000/100,000 · 1:00 · ETA 3:00 · 140 API + 55 SF requests');
  });

  it('has no ETA without a total, and a countdown note fits in 80 columns with the rest', () => {
    const line = statusLine({ type: 'action', phase: 'fetch', done: 12 }, 0, 3_723_000, 0, '9 API + 3 SF requests', 'waiting 42 s: platform minute limit');
    expect(line).not.toContain('ETA');
    expect(line).toContain('1:02:03');
    expect([...fit(line, 78)].length).toBeLessThanOrEqual(78);
  });

  it('clock reads minutes and hours', () => {
    expect([clock(0), clock(65_000), clock(3_600_000)]).toEqual(['0:00', '1:05', '1:00:00']);
  });
});

describe('rate-limit pauses', () => {
  it('four concurrent requests refused together are one pause: one announcement, its time counted once', () => {
    let now = 1_000_000;
    const waits: WaitInfo[] = [];
    const pacer = new RatePacer({ concurrency: 4, onWait: (w) => waits.push(w), now: () => now, sleep: async () => undefined });
    for (let i = 0; i < 4; i++) {
      pacer.block(56_000);
      now += 5;
    }
    expect(waits).toHaveLength(1);
    expect(pacer.waits).toBe(1);
    expect(pacer.waitedMs).toBe(56_015);
    // A later, separate pause is announced again.
    now += 60_000;
    pacer.block(10_000);
    expect(waits).toHaveLength(2);
  });
});
