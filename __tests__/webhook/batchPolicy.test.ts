/** The worker's batch policy: when a pending set is worth a batch, from the settle window and the budget. */
import { describe, expect, it } from '@jest/globals';
import { decideBatch, spendable, type PolicyOptions } from '../../src/webhook/worker/batchPolicy.js';

const T0 = 1_000_000;
const opts: PolicyOptions = { settleMs: 30_000, batchSize: 500 };

describe('decideBatch', () => {
  it('settle 0 starts at once, whatever is pending (the behaviour before settling existed)', () => {
    expect(decideBatch({ events: 1, refs: 1, firstDueAt: T0 }, {}, {}, { ...opts, settleMs: 0 }, T0)).toEqual({ start: true, why: 'no settle window' });
  });

  it('waits out the settle window after the first pending event, then starts when the budget is unknown', () => {
    expect(decideBatch({ events: 3, refs: 2, firstDueAt: T0 }, {}, {}, opts, T0 + 10_000)).toEqual({ start: false, waitMs: 20_000, why: 'settling' });
    expect(decideBatch({ events: 9, refs: 7, firstDueAt: T0 }, {}, {}, opts, T0 + 30_000)).toEqual({ start: true, why: 'budget unknown' });
  });

  it('a full batch starts without settling: waiting cannot make it any cheaper', () => {
    expect(decideBatch({ events: 800, refs: 500, firstDueAt: T0 }, { remainingHour: 0 }, {}, opts, T0 + 1)).toEqual({ start: true, why: 'batch full' });
  });

  it('starts after settling when the budget it may spend covers every pending ref by id', () => {
    // First batch of the run: all that is left of the hour may be spent.
    expect(decideBatch({ events: 40, refs: 30, firstDueAt: T0 }, { remainingHour: 400 }, {}, opts, T0 + 30_000).start).toBe(true);
    // 400 left over the rest of the hour, a whole hour since the last batch: 400 may be spent.
    expect(decideBatch({ events: 40, refs: 30, firstDueAt: T0 }, { remainingHour: 400 }, { lastStartAt: T0 - 3_600_000 }, opts, T0 + 30_000)).toEqual({ start: true, why: 'budget covers by-id' });
  });

  it('widens the batch while the budget cannot cover by-id fetches, and never past the longest wait', () => {
    const budget = { remainingHour: 480, limitHour: 500 };
    // 30 s after the last batch 480 * 30/3600 = 4 requests may be spent; 25 refs by id would take 25.
    const memory = { lastStartAt: T0 };
    const widening = decideBatch({ events: 25, refs: 25, firstDueAt: T0 }, budget, memory, opts, T0 + 30_000);
    expect(widening).toEqual({ start: false, waitMs: 30_000, why: 'widening: budget cannot cover by-id' });
    // Ten settle windows after the first event it starts, so list scans carry what gathered.
    expect(decideBatch({ events: 250, refs: 230, firstDueAt: T0 }, budget, memory, opts, T0 + 300_000)).toEqual({ start: true, why: 'longest wait reached' });
    // The last look before the deadline waits only up to it.
    expect(decideBatch({ events: 240, refs: 220, firstDueAt: T0 }, budget, memory, opts, T0 + 290_000)).toEqual({ start: false, waitMs: 10_000, why: 'widening: budget cannot cover by-id' });
    expect(decideBatch({ events: 1, refs: 1, firstDueAt: T0 }, budget, memory, { ...opts, maxWaitMs: 60_000 }, T0 + 60_000).why).toBe('longest wait reached');
  });

  it('an empty hour budget never starts a by-id batch before the longest wait', () => {
    const d = decideBatch({ events: 2, refs: 1, firstDueAt: T0 }, { remainingHour: 0, remainingMinute: 0 }, {}, opts, T0 + 30_000);
    expect(d.start).toBe(false);
  });
});

describe('spendable', () => {
  it("spreads the hour's remaining budget over the rest of the hour, using the reported reset when known", () => {
    expect(spendable({}, {}, T0)).toBeUndefined();
    expect(spendable({ remainingHour: 360 }, { lastStartAt: T0 }, T0 + 60_000)).toBe(6);
    // 100 left, the hour renews in 10 minutes, 5 minutes since the last batch: half of it.
    expect(spendable({ remainingHour: 100, hourResetInMs: 600_000 }, { lastStartAt: T0 }, T0 + 300_000)).toBe(50);
    expect(spendable({ remainingHour: 100, hourResetInMs: 600_000 }, { lastStartAt: T0 }, T0 + 900_000)).toBe(100);
  });
});
