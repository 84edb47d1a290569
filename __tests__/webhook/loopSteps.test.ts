import { describe, expect, it } from '@jest/globals';
import { afterRound, gatherAfterIdle, idleWait, MIN_NAP_MS, wakeCutsNap, type LoopState } from '../../src/webhook/worker/loopSteps.js';

// The worker loop's every state decided without a timer: the loop only performs these steps.
const NOW = 1_000_000;

describe('after a round', () => {
  it('stops when stopping, whatever else the round left', () => {
    expect(afterRound({ stopping: true, batchDone: true, retryAt: NOW + 5_000, holdMs: 300, now: NOW })).toEqual({ state: 'stopping' });
  });

  it('backs off until the retry time when the queue failed, even after a batch and with a hold decided', () => {
    expect(afterRound({ stopping: false, batchDone: true, retryAt: NOW + 4_000, holdMs: 300, now: NOW })).toEqual({ state: 'backing-off', waitMs: 4_000 });
    // A retry time already past: no wait, but still the backing-off state (then a round at once).
    expect(afterRound({ stopping: false, batchDone: false, retryAt: NOW - 10, now: NOW })).toEqual({ state: 'backing-off', waitMs: 0 });
  });

  it('starts the next round at once after a batch (more may be due)', () => {
    expect(afterRound({ stopping: false, batchDone: true, now: NOW })).toEqual({ state: 'processing' });
  });

  it('holds for the time the batch policy decided when it held back', () => {
    expect(afterRound({ stopping: false, batchDone: false, holdMs: 12_500, now: NOW })).toEqual({ state: 'holding', waitMs: 12_500 });
    expect(afterRound({ stopping: false, batchDone: false, holdMs: -5, now: NOW })).toEqual({ state: 'holding', waitMs: 0 });
  });

  it('goes idle when nothing was due and nothing holds', () => {
    expect(afterRound({ stopping: false, batchDone: false, now: NOW })).toEqual({ state: 'idle' });
  });
});

describe('idle', () => {
  it('naps until the next event is due, at most pollMs and at least the minimum nap', () => {
    expect(idleWait(1_000, undefined, NOW)).toBe(1_000);
    expect(idleWait(1_000, NOW + 400, NOW)).toBe(400);
    expect(idleWait(1_000, NOW + 60_000, NOW)).toBe(1_000);
    // Due now (or overdue) right after a round that found nothing: the minimum nap, never a spin.
    expect(idleWait(1_000, NOW, NOW)).toBe(MIN_NAP_MS);
    expect(idleWait(1_000, NOW - 5_000, NOW)).toBe(MIN_NAP_MS);
  });

  it('gathers a burst after a wake, unless stopping, a settle window does the gathering, or gathering is off', () => {
    const base = { woken: true, stopping: false, gatherMs: 50, settleMs: 0 };
    expect(gatherAfterIdle(base)).toBe(50);
    expect(gatherAfterIdle({ ...base, woken: false })).toBeUndefined();
    expect(gatherAfterIdle({ ...base, stopping: true })).toBeUndefined();
    expect(gatherAfterIdle({ ...base, settleMs: 30_000 })).toBeUndefined();
    expect(gatherAfterIdle({ ...base, gatherMs: 0 })).toBeUndefined();
  });
});

describe('wake', () => {
  it('cuts an idle nap or the pause between rounds short, never a gather, a hold, a backoff or a stop', () => {
    const cut = (['idle', 'processing', 'gathering', 'holding', 'backing-off', 'stopping'] as LoopState[]).filter(wakeCutsNap);
    expect(cut).toEqual(['idle', 'processing']);
  });
});
