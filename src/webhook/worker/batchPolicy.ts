/**
 * When the webhook worker starts a batch, from the platform budget: pure, so it is tested without
 * timers. The platform delivers webhooks one POST at a time; a worker that starts as soon as one
 * event is pending fetches each record by id (one request per event) and a campaign evening's
 * 3,000 events an hour overrun a 500-an-hour budget. So the worker:
 *
 * 1. settles: waits `settleMs` after the first pending event, so a trickle lands in one batch
 *    (0 starts at once, the behaviour before settling existed);
 * 2. then starts when the budget it may spend now covers the pending set fetched by id (the
 *    dearest plan the engine can choose; it takes a narrowed list scan when that is cheaper);
 * 3. otherwise waits on, so the batch widens until list scans carry it: what it may spend grows
 *    with time (the hour's remaining budget spread over the rest of the hour), while a scan's
 *    cost grows only by one request per 100 changed records. It never waits longer than
 *    `maxWaitMs` after the first pending event: the lag stays bounded whatever the budget says
 *    (the platform client's pacer still never sends past a window's limit).
 */

/** The platform's last reported figures (X-RateLimit-*), and when the hour renews if known. */
export interface BudgetLeft {
  limitHour?: number | undefined;
  remainingHour?: number | undefined;
  limitMinute?: number | undefined;
  remainingMinute?: number | undefined;
  /** Milliseconds until the hour window renews; unknown: assume a whole hour (the cautious guess). */
  hourResetInMs?: number | undefined;
}

interface PendingSet {
  /** Due events and the distinct refs they name (a ref fetched by id costs one request). */
  events: number;
  refs: number;
  /** When the first of them became due (ms since the epoch). */
  firstDueAt: number;
}

export interface PolicyOptions {
  settleMs: number;
  /** Most refs one batch claims: a full batch gains nothing by waiting. */
  batchSize: number;
  /** Longest wait after the first pending event, budget or not (default MAX_WAIT_SETTLES settle windows). */
  maxWaitMs?: number;
}

/** What the worker remembers between batches. */
export interface PolicyMemory {
  /** When the last batch started (undefined: none since the worker started). */
  lastStartAt?: number;
}

type BatchDecision =
  | { start: true; why: 'no settle window' | 'batch full' | 'budget unknown' | 'budget covers by-id' | 'longest wait reached' }
  | { start: false; waitMs: number; why: 'settling' | 'widening: budget cannot cover by-id' };

/**
 * The longest wait is this many settle windows (5 minutes at the default 30 s): at 3,000 events an
 * hour a narrowed list scan then costs well under 0.1 requests an event.
 */
const MAX_WAIT_SETTLES = 10;
const HOUR_MS = 3_600_000;

/**
 * Requests the worker may spend now without outrunning the hour: the hour's remaining budget,
 * spread evenly over the rest of the hour, accrued since the last batch started (all of it after
 * an idle stretch as long as the rest of the hour). The minute window is the pacer's business: a
 * batch over it only waits a minute inside the client.
 */
export function spendable(budget: BudgetLeft, memory: PolicyMemory, now: number): number | undefined {
  const remaining = budget.remainingHour;
  if (remaining === undefined) return undefined;
  if (memory.lastStartAt === undefined) return remaining;
  const rest = Math.max(1, budget.hourResetInMs ?? HOUR_MS);
  const share = Math.min(1, Math.max(0, now - memory.lastStartAt) / rest);
  return Math.floor(remaining * share);
}

export function decideBatch(pending: PendingSet, budget: BudgetLeft, memory: PolicyMemory, opts: PolicyOptions, now: number): BatchDecision {
  if (opts.settleMs <= 0) return { start: true, why: 'no settle window' };
  if (pending.refs >= opts.batchSize) return { start: true, why: 'batch full' };
  const settled = pending.firstDueAt + opts.settleMs;
  if (now < settled) return { start: false, waitMs: settled - now, why: 'settling' };
  const deadline = pending.firstDueAt + Math.max(opts.settleMs, opts.maxWaitMs ?? opts.settleMs * MAX_WAIT_SETTLES);
  if (now >= deadline) return { start: true, why: 'longest wait reached' };
  const may = spendable(budget, memory, now);
  if (may === undefined) return { start: true, why: 'budget unknown' };
  if (pending.refs <= may) return { start: true, why: 'budget covers by-id' };
  // Look again after another settle window (events keep arriving), never past the deadline.
  return { start: false, waitMs: Math.min(opts.settleMs, deadline - now), why: 'widening: budget cannot cover by-id' };
}
