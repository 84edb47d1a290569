/**
 * Drains the queue in the receiver's process: claims due events by ref (all events of one ref in
 * one claim, so ten donations.update for a donation cost one fetch), hands the distinct refs of a
 * batch to the engine, and records each event's outcome. The engine is injected (BatchProcessor)
 * so this file holds no sync logic.
 */
import type { ObjectRef } from '../model/objects.js';
import type { ClaimedBatch, ClaimedRef, EventOutcome, WebhookQueue } from './queue.js';
import type { OwnerPair } from '../model/outcomes.js';

export type ProcessOutcome = { ref: ObjectRef; status: 'done' | 'skipped' | 'failed'; reason?: string };

export interface ProcessResult {
  /** One outcome per ref given; a ref without one is treated as failed and retried. */
  outcomes: ProcessOutcome[];
  /** action -> owner pairs seen while syncing, so a later users.update can find the actions. */
  owners?: OwnerPair[];
}

export interface BatchHints {
  changedSince?: string;
}

/** The platform stamps updated_at before it sends the webhook; this covers clock skew and slow delivery. */
export const CHANGE_MARGIN_MS = 10 * 60 * 1000;

export interface BatchProcessor {
  /**
   * `hints.changedSince`: every object of the batch changed after this time, give or take clock
   * skew (the oldest event's arrival, less a margin), so a list scan may be narrowed to it.
   */
  process(refs: ObjectRef[], hints?: BatchHints): Promise<ProcessResult>;
}

export interface WorkerOptions {
  queue: WebhookQueue;
  processor: BatchProcessor;
  /** Distinct refs claimed per batch (users.update may expand to more actions). */
  batchSize?: number;
  /** After waking on new events, wait this long so a burst lands in one batch. */
  gatherMs?: number;
  /** Longest idle sleep: failed events become due on their own and must be picked up. */
  pollMs?: number;
  log?: (line: string) => void;
  /** false: no background loop, the caller drives runOnce() (tests, a one-shot drain). */
  loop?: boolean;
  /** Wait after a queue (database) error: doubles with each further error, up to maxMs. */
  backoff?: Partial<BackoffPolicy>;
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000 };

/** What /healthz shows of the worker. */
export type WorkerHealth =
  | { state: 'ok' }
  | {
      state: 'backing-off';
      /** Queue errors in a row (one per attempt). */
      failures: number;
      since: string;
      lastError: string;
      retryInMs: number;
    };

export interface BatchReport {
  events: number;
  /** Refs claimed (coalesced), users included. */
  refs: number;
  /** Refs handed to the processor after users were expanded to their actions. */
  processed: number;
  done: number;
  skipped: number;
  failed: number;
  durationMs: number;
}

export interface Worker {
  /** New events were stored: claim soon (after the gather delay). */
  wake(): void;
  /** Claims and processes one batch; undefined when nothing is due. Never rejects. */
  runOnce(): Promise<BatchReport | undefined>;
  /** Finishes the batch in flight, then resolves; no new batch is claimed after the call. */
  stop(): Promise<void>;
  health(): WorkerHealth;
}

export const DEFAULT_BATCH_SIZE = 500;
export const DEFAULT_GATHER_MS = 250;
export const DEFAULT_POLL_MS = 1_000;

const keyOf = (ref: ObjectRef): string => `${ref.type}:${ref.id}`;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** failed > done > skipped: if the engine reports a ref twice, the worse outcome counts. */
function worse(a: ProcessOutcome | undefined, b: ProcessOutcome): ProcessOutcome {
  if (a === undefined) return b;
  const rank = { failed: 2, done: 1, skipped: 0 } as const;
  return rank[b.status] > rank[a.status] ? b : a;
}

function outcomeForRef(claimed: ClaimedRef, outcomes: Map<string, ProcessOutcome>, actionsOf: Map<number, number[]>): EventOutcome {
  const eventIds = claimed.eventIds;
  if (claimed.refType === 'user') {
    const actions = actionsOf.get(claimed.refId) ?? [];
    if (actions.length === 0) return { eventIds, status: 'skipped', reason: `no known actions owned by user ${claimed.refId}` };
    const failures: string[] = [];
    for (const id of actions) {
      const o = outcomes.get(`action:${id}`);
      if (o === undefined) failures.push(`action ${id}: no outcome returned`);
      else if (o.status === 'failed') failures.push(`action ${id}: ${o.reason ?? 'failed'}`);
    }
    if (failures.length > 0) return { eventIds, status: 'failed', error: failures.join('; ') };
    return { eventIds, status: 'done', reason: `re-synced actions ${actions.join(', ')}` };
  }
  const o = outcomes.get(`${claimed.refType}:${claimed.refId}`);
  if (o === undefined) return { eventIds, status: 'failed', error: 'the processor returned no outcome for this ref' };
  if (o.status === 'failed') return { eventIds, status: 'failed', error: o.reason ?? 'failed without a reason' };
  return o.reason === undefined ? { eventIds, status: o.status } : { eventIds, status: o.status, reason: o.reason };
}

export function startWorker(opts: WorkerOptions): Worker {
  const { queue, processor } = opts;
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  const gatherMs = opts.gatherMs ?? DEFAULT_GATHER_MS;
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  const log = opts.log ?? (() => undefined);

  let stopping = false;
  let woken = false;
  let gathering = false;
  let backingOff = false;
  let interrupt: (() => void) | undefined;
  let inFlight: Promise<BatchReport | undefined> | undefined;

  /** Sleeps up to `ms`; wake() and stop() cut it short. */
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      }
      interrupt = done;
    });

  /**
   * Queue errors (a full disk, a locked or broken file): the worker waits before it tries again,
   * doubling the wait, and logs once when the errors start (or change), once when they end.
   */
  const backoff: BackoffPolicy = { ...DEFAULT_BACKOFF, ...opts.backoff };
  let fault: { failures: number; since: number; lastError: string; retryAt: number } | undefined;
  let faultThisRound = false;
  function queueFault(what: string, error: unknown): void {
    if (faultThisRound) return;
    faultThisRound = true;
    const text = `${what}: ${errorText(error)}`;
    const failures = (fault?.failures ?? 0) + 1;
    const delay = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(failures - 1, 30));
    if (fault === undefined || fault.lastError !== text) {
      log(`webhook worker: queue ${queue.path} failing (${failures} ${failures === 1 ? 'error' : 'errors in a row'}): ${text}; retrying with a doubling wait up to ${Math.round(backoff.maxMs / 1000)} s`);
    }
    fault = { failures, since: fault?.since ?? Date.now(), lastError: text, retryAt: Date.now() + delay };
  }
  function queueRecovered(): void {
    if (fault === undefined) return;
    log(`webhook worker: queue ${queue.path} usable again after ${fault.failures} failed ${fault.failures === 1 ? 'attempt' : 'attempts'} over ${Math.round((Date.now() - fault.since) / 1000)} s`);
    fault = undefined;
  }

  /** Claims whose outcome could not be recorded, handed back as soon as the database allows. */
  const unreleased: string[] = [];
  function releaseClaims(): boolean {
    while (unreleased.length > 0) {
      try {
        queue.releaseClaim(unreleased[0] as string, 'the outcome could not be recorded; processing again');
        unreleased.shift();
      } catch (error) {
        queueFault('could not hand a claimed batch back', error);
        return false;
      }
    }
    return true;
  }

  async function processBatch(batch: ClaimedBatch): Promise<BatchReport> {
    const started = performance.now();
    const engineRefs = new Map<string, ObjectRef>();
    const actionsOf = new Map<number, number[]>();
    for (const claimed of batch.refs) {
      if (claimed.refType === 'user') {
        const actions = queue.actionsOwnedBy(claimed.refId);
        actionsOf.set(claimed.refId, actions);
        for (const id of actions) engineRefs.set(`action:${id}`, { type: 'action', id });
      } else {
        const ref: ObjectRef = { type: claimed.refType, id: claimed.refId };
        engineRefs.set(keyOf(ref), ref);
      }
    }

    let outcomes: EventOutcome[];
    let owners: OwnerPair[] = [];
    try {
      const byKey = new Map<string, ProcessOutcome>();
      if (engineRefs.size > 0) {
        const result = await processor.process([...engineRefs.values()], { changedSince: new Date(batch.oldestReceivedAt - CHANGE_MARGIN_MS).toISOString() });
        for (const o of result.outcomes) byKey.set(keyOf(o.ref), worse(byKey.get(keyOf(o.ref)), o));
        owners = result.owners ?? [];
      }
      outcomes = batch.refs.map((claimed) => outcomeForRef(claimed, byKey, actionsOf));
    } catch (error) {
      // The whole batch failed (engine threw): every event stays queued and is retried.
      const message = errorText(error);
      outcomes = batch.refs.map((claimed) => ({ eventIds: claimed.eventIds, status: 'failed', error: message }));
    }

    try {
      queue.complete(batch.token, outcomes, owners);
    } catch (error) {
      // The outcome could not be stored: hand the events back (now, or at the next turn).
      queueFault('could not record the batch outcome', error);
      unreleased.push(batch.token);
      releaseClaims();
    }
    const report: BatchReport = { events: batch.eventCount, refs: batch.refs.length, processed: engineRefs.size, done: 0, skipped: 0, failed: 0, durationMs: 0 };
    for (const o of outcomes) report[o.status] += o.eventIds.length;
    report.durationMs = Math.round(performance.now() - started);
    log(
      `webhook batch: ${report.events} events, ${report.refs} refs, ${report.processed} processed: ` +
        `${report.done} done, ${report.skipped} skipped, ${report.failed} failed in ${report.durationMs} ms`,
    );
    return report;
  }

  async function runOnce(): Promise<BatchReport | undefined> {
    // One batch at a time: a second caller waits for the first instead of claiming in parallel.
    while (inFlight !== undefined) await inFlight;
    const run = (async () => {
      faultThisRound = false;
      try {
        if (!releaseClaims()) return undefined;
        const batch = queue.claimBatch(batchSize);
        let report: BatchReport | undefined;
        if (batch !== undefined) {
          try {
            report = await processBatch(batch);
          } catch (error) {
            // Only the queue throws out of processBatch (the processor's errors are outcomes).
            queueFault('could not process a claimed batch', error);
            unreleased.push(batch.token);
            releaseClaims();
            return undefined;
          }
        }
        if (!faultThisRound) queueRecovered();
        return report;
      } catch (error) {
        // Claimed rows stay 'processing' and come back on the next start (recoverInterrupted).
        queueFault('could not claim events', error);
        return undefined;
      }
    })();
    inFlight = run;
    try {
      return await run;
    } finally {
      inFlight = undefined;
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const report = await runOnce();
      if (stopping) break;
      if (fault !== undefined) {
        // New events must not cut the wait short: the database that failed is the same.
        backingOff = true;
        await sleep(fault.retryAt - Date.now());
        backingOff = false;
        continue;
      }
      if (report !== undefined) continue;
      let wait = pollMs;
      try {
        const next = queue.nextDueAt();
        if (next !== undefined) wait = Math.min(pollMs, Math.max(0, next - Date.now()));
      } catch {
        // The queue is closing; stop() follows.
      }
      woken = false;
      await sleep(wait);
      if (woken && !stopping && gatherMs > 0) {
        // Further wakes must not cut the gather short: the point is to let the burst land.
        gathering = true;
        await sleep(gatherMs);
        gathering = false;
      }
    }
  }

  const recovered = queue.recoverInterrupted();
  if (recovered > 0) log(`webhook worker: ${recovered} events interrupted by an earlier stop are due again`);
  const running = opts.loop === false ? Promise.resolve() : loop();

  return {
    wake() {
      woken = true;
      if (!gathering && !backingOff) interrupt?.();
    },
    runOnce,
    async stop() {
      stopping = true;
      interrupt?.();
      await running;
      while (inFlight !== undefined) await inFlight;
    },
    health(): WorkerHealth {
      if (fault === undefined) return { state: 'ok' };
      return { state: 'backing-off', failures: fault.failures, since: new Date(fault.since).toISOString(), lastError: fault.lastError, retryInMs: Math.max(0, fault.retryAt - Date.now()) };
    },
  };
}
