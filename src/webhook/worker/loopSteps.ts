/**
 * The worker loop's decisions, as pure functions of what a round left behind: the loop in
 * worker.ts only performs them (a round, a nap), so every state can be tested without a timer.
 */

/** What the loop is doing. `stopping` is final. */
export type LoopState = 'idle' | 'processing' | 'gathering' | 'holding' | 'backing-off' | 'stopping';

/** A round that finished: what it left for the loop to decide on. */
interface RoundEnd {
  stopping: boolean;
  /** A batch was processed: there may be more due, so the next round starts at once. */
  batchDone: boolean;
  /** The queue failed: the time (ms since the epoch) before which it is not tried again. */
  retryAt?: number | undefined;
  /** The batch policy held back (settling, widening): this long. */
  holdMs?: number | undefined;
  now: number;
}

type Step = { state: 'stopping' } | { state: 'processing' } | { state: 'idle' } | { state: 'backing-off' | 'holding'; waitMs: number };

/**
 * After a round: stop; a failing queue is waited out whatever arrives (the database that failed
 * is the same); a processed batch is followed by another round at once; a hold is slept through
 * (new events join it, they do not start it); otherwise the loop goes idle.
 */
export function afterRound(r: RoundEnd): Step {
  if (r.stopping) return { state: 'stopping' };
  if (r.retryAt !== undefined) return { state: 'backing-off', waitMs: Math.max(0, r.retryAt - r.now) };
  if (r.batchDone) return { state: 'processing' };
  if (r.holdMs !== undefined) return { state: 'holding', waitMs: Math.max(0, r.holdMs) };
  return { state: 'idle' };
}

/** The shortest idle nap: "due now" right after a round that found nothing to do would spin. */
export const MIN_NAP_MS = 100;

/** How long to nap when idle: until the next event is due, at most pollMs, at least MIN_NAP_MS. */
export function idleWait(pollMs: number, nextDueAt: number | undefined, now: number): number {
  return nextDueAt === undefined ? pollMs : Math.min(pollMs, Math.max(MIN_NAP_MS, nextDueAt - now));
}

/**
 * After an idle nap: an event that woke it starts a short gather, so the rest of a burst lands in
 * the same batch. Not with a settle window (the batch policy gathers then) and not when stopping.
 */
export function gatherAfterIdle(o: { woken: boolean; stopping: boolean; gatherMs: number; settleMs: number }): number | undefined {
  return o.woken && !o.stopping && o.gatherMs > 0 && o.settleMs === 0 ? o.gatherMs : undefined;
}

/** Whether wake() cuts the current nap short: only an idle nap or a nap between rounds; a gather, a hold or a backoff runs its course. */
export const wakeCutsNap = (state: LoopState): boolean => state === 'idle' || state === 'processing';
