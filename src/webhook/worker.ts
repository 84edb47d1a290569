/**
 * Drains the queue in the receiver's process: claims due events by ref (all events of one ref in
 * one claim, so ten donations.update for a donation cost one fetch), hands the distinct refs of a
 * batch to the engine, and records each event's outcome. The engine is injected (BatchProcessor)
 * so this file holds no sync logic.
 */
import { messageOf } from '../model/errors.js';
import type { ObjectRef } from '../model/objects.js';
import type { OwnerPair } from '../model/outcomes.js';
import { keyFor } from '../model/refs.js';
import type { BackoffPolicy, ClaimedBatch, ClaimedRef, EventOutcome } from './queue.js';
import { failureReasons } from './failureReasons.js';
import type { QueueStore } from './queueStore.js';
import { BatchLedger, type BatchCost, type BatchStats } from './batchCost.js';
import { decideBatch, type BudgetReading, type PolicyMemory } from './batchPolicy.js';

export type ProcessOutcome = { ref: ObjectRef; status: 'done' | 'skipped' | 'failed'; reason?: string };

export interface ProcessResult {
  /** One outcome per ref given; a ref without one is treated as failed and retried. */
  outcomes: ProcessOutcome[];
  /** action -> owner pairs seen while syncing, so a later users.update can find the actions. */
  owners?: OwnerPair[];
  /** Platform requests the batch spent (for the log line, /healthz and the budget policy). */
  requests?: number;
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
  /** The platform's last reported rate-limit figures; undefined before the first response. */
  budget?(): BudgetReading | undefined;
}

export interface WorkerOptions {
  queue: QueueStore;
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
  /**
   * Gather events this long after the first pending one, then start when the platform budget
   * allows (batchPolicy.ts). 0 (the default here; `serve` defaults to 30 s): claim at once.
   */
  settleMs?: number;
  /** After each batch whose outcome was recorded (metrics). */
  onBatch?: (report: BatchReport) => void;
  /** Longest wait after the first pending event (default ten settle windows). */
  maxWaitMs?: number;
  /** Injectable clock for the policy (tests). */
  now?: () => number;
}

/** The worker's wait after queue errors: 1 s, doubling, up to a minute. */
export const WORKER_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000 };

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

/** A batch's events and outcomes. */
export interface BatchCounts {
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

/** A batch's report with what it cost: requests, per event, the budget left after it. */
export type BatchReport = BatchCounts & BatchCost;
export type WorkerStats = BatchStats<BatchReport>;

export interface Worker {
  /** New events were stored: claim soon (after the gather delay). */
  wake(): void;
  /** Claims and processes one batch; undefined when nothing is due. Never rejects. */
  runOnce(): Promise<BatchReport | undefined>;
  /** Finishes the batch in flight, then resolves; no new batch is claimed after the call. */
  stop(): Promise<void>;
  health(): WorkerHealth;
  /** The batches' cost so far and why the worker holds back, if it does (/healthz). */
  stats(): WorkerStats;
}

/** Distinct refs one webhook batch claims, and the records of one type the engine takes together in it. */
export const WEBHOOK_BATCH_SIZE = 500;
export const DEFAULT_GATHER_MS = 250;
export const DEFAULT_POLL_MS = 1_000;

const refKey = (ref: ObjectRef): string => keyFor(ref.type, ref.id);

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
      const o = outcomes.get(keyFor('action', id));
      if (o === undefined) failures.push(`action ${id}: no outcome returned`);
      else if (o.status === 'failed') failures.push(`action ${id}: ${o.reason ?? 'failed'}`);
    }
    if (failures.length > 0) return { eventIds, status: 'failed', error: failures.join('; ') };
    return { eventIds, status: 'done', reason: `re-synced actions ${actions.join(', ')}` };
  }
  const o = outcomes.get(keyFor(claimed.refType, claimed.refId));
  if (o === undefined) return { eventIds, status: 'failed', error: 'the processor returned no outcome for this ref' };
  if (o.status === 'failed') return { eventIds, status: 'failed', error: o.reason ?? 'failed without a reason' };
  return o.reason === undefined ? { eventIds, status: o.status } : { eventIds, status: o.status, reason: o.reason };
}

/** The engine's refs of a claimed batch: a users.update stands for the actions that user owns. */
async function engineRefsOf(batch: ClaimedBatch, queue: QueueStore): Promise<{ refs: Map<string, ObjectRef>; actionsOf: Map<number, number[]> }> {
  const refs = new Map<string, ObjectRef>();
  const actionsOf = new Map<number, number[]>();
  for (const claimed of batch.refs) {
    if (claimed.refType === 'user') {
      const actions = await queue.actionsOwnedBy(claimed.refId);
      actionsOf.set(claimed.refId, actions);
      for (const id of actions) refs.set(keyFor('action', id), { type: 'action', id });
    } else {
      const ref: ObjectRef = { type: claimed.refType, id: claimed.refId };
      refs.set(refKey(ref), ref);
    }
  }
  return { refs, actionsOf };
}

/** An idle wait that wake() and stop() can cut short. */
class Nap {
  private interrupt: (() => void) | undefined;

  /** Sleeps up to `ms`; resolves early on cut(). */
  for(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.interrupt = done;
    });
  }

  cut(): void {
    this.interrupt?.();
  }
}

/**
 * Queue errors (a full disk, a locked or broken file): the worker waits before it tries again,
 * doubling the wait, and logs once when the errors start (or change), once when they end.
 */
class QueueFaults {
  private fault: { failures: number; since: number; lastError: string; retryAt: number } | undefined;
  /** One fault counted per round (a claim, a process, a hand-back), however many steps failed in it. */
  private faultThisRound = false;

  constructor(
    private readonly queuePath: string,
    private readonly backoff: BackoffPolicy,
    private readonly log: (line: string) => void,
  ) {}

  newRound(): void {
    this.faultThisRound = false;
  }

  get failedThisRound(): boolean {
    return this.faultThisRound;
  }

  /** When the next attempt is due, while the queue is failing. */
  get retryAt(): number | undefined {
    return this.fault?.retryAt;
  }

  failed(what: string, error: unknown): void {
    if (this.faultThisRound) return;
    this.faultThisRound = true;
    const text = `${what}: ${messageOf(error)}`;
    const failures = (this.fault?.failures ?? 0) + 1;
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** Math.min(failures - 1, 30));
    if (this.fault === undefined || this.fault.lastError !== text) {
      this.log(
        `webhook worker: queue ${this.queuePath} failing (${failures} ${failures === 1 ? 'error' : 'errors in a row'}): ${text}; retrying with a doubling wait up to ${Math.round(this.backoff.maxMs / 1000)} s`,
      );
    }
    this.fault = { failures, since: this.fault?.since ?? Date.now(), lastError: text, retryAt: Date.now() + delay };
  }

  recovered(): void {
    if (this.fault === undefined) return;
    this.log(`webhook worker: queue ${this.queuePath} usable again after ${this.fault.failures} failed ${this.fault.failures === 1 ? 'attempt' : 'attempts'} over ${Math.round((Date.now() - this.fault.since) / 1000)} s`);
    this.fault = undefined;
  }

  health(): WorkerHealth {
    const f = this.fault;
    if (f === undefined) return { state: 'ok' };
    return { state: 'backing-off', failures: f.failures, since: new Date(f.since).toISOString(), lastError: f.lastError, retryInMs: Math.max(0, f.retryAt - Date.now()) };
  }
}

class QueueWorker implements Worker {
  private readonly queue: QueueStore;
  private readonly batchSize: number;
  private readonly gatherMs: number;
  private readonly pollMs: number;
  private readonly log: (line: string) => void;
  private readonly faults: QueueFaults;
  private readonly nap = new Nap();
  private stopping = false;
  private woken = false;
  private gathering = false;
  private backingOff = false;
  private inFlight: Promise<BatchReport | undefined> | undefined;
  /** Claims whose outcome could not be recorded, handed back as soon as the database allows. */
  private readonly unreleased: string[] = [];
  private readonly running: Promise<void>;
  /** Resolves once interrupted claims of an earlier stop are recovered (at once for SQLite). */
  private readonly recovery: Promise<void>;
  private readonly settleMs: number;
  private readonly now: () => number;
  private readonly memory: PolicyMemory = {};
  private readonly ledger: BatchLedger<BatchReport>;
  /** Set when the policy said wait: the loop sleeps this long (new events do not cut it short). */
  private holdMs: number | undefined;

  constructor(private readonly opts: WorkerOptions) {
    this.queue = opts.queue;
    this.batchSize = opts.batchSize ?? WEBHOOK_BATCH_SIZE;
    this.gatherMs = opts.gatherMs ?? DEFAULT_GATHER_MS;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.log = opts.log ?? (() => undefined);
    this.settleMs = Math.max(0, opts.settleMs ?? 0);
    this.now = opts.now ?? Date.now;
    this.ledger = new BatchLedger(this.settleMs);
    this.faults = new QueueFaults(this.queue.location, { ...WORKER_BACKOFF, ...opts.backoff }, this.log);
    const announce = (recovered: number): void => {
      if (recovered > 0) this.log(`webhook worker: ${recovered} events interrupted by an earlier stop are due again`);
    };
    // The SQLite queue answers at once (before any request is taken); PostgreSQL when it can.
    const recovered = this.queue.recoverInterrupted();
    this.recovery =
      typeof recovered === 'number'
        ? Promise.resolve(announce(recovered))
        : recovered.then(announce, (error: unknown) => this.log(`webhook worker: could not recover interrupted events yet: ${messageOf(error)}`));
    this.running = opts.loop === false ? Promise.resolve() : this.loop();
  }

  wake(): void {
    this.woken = true;
    if (!this.gathering && !this.backingOff) this.nap.cut();
  }

  async runOnce(): Promise<BatchReport | undefined> {
    // One batch at a time: a second caller waits for the first instead of claiming in parallel.
    while (this.inFlight !== undefined) await this.inFlight;
    const run = this.claimAndProcess();
    this.inFlight = run;
    try {
      return await run;
    } finally {
      this.inFlight = undefined;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.nap.cut();
    await this.running;
    while (this.inFlight !== undefined) await this.inFlight;
  }

  health(): WorkerHealth {
    return this.faults.health();
  }

  stats(): WorkerStats {
    return this.ledger.stats();
  }

  /** Whether the pending set is worth a batch now (batchPolicy.ts); when not, how long to hold. */
  private async ready(): Promise<boolean> {
    if (this.settleMs === 0) return true;
    const due = await this.queue.dueSummary(this.now());
    if (due === undefined) return false;
    const policy = { settleMs: this.settleMs, batchSize: this.batchSize, ...(this.opts.maxWaitMs === undefined ? {} : { maxWaitMs: this.opts.maxWaitMs }) };
    const decision = decideBatch(due, this.opts.processor.budget?.() ?? {}, this.memory, policy, this.now());
    if (!decision.start) {
      this.holdMs = decision.waitMs;
      this.ledger.waiting = `${decision.why} (${due.events} events, ${due.refs} refs pending)`;
      return false;
    }
    this.ledger.waiting = undefined;
    this.memory.lastStartAt = this.now();
    return true;
  }

  private async claimAndProcess(): Promise<BatchReport | undefined> {
    this.faults.newRound();
    try {
      await this.recovery;
      if (!(await this.releaseClaims())) return undefined;
      if (!(await this.ready())) return undefined;
      const batch = await this.queue.claimBatch(this.batchSize);
      let report: BatchReport | undefined;
      if (batch !== undefined) {
        try {
          report = await this.processBatch(batch);
        } catch (error) {
          // Only the queue throws out of processBatch (the processor's errors are outcomes).
          this.faults.failed('could not process a claimed batch', error);
          this.unreleased.push(batch.token);
          await this.releaseClaims();
          return undefined;
        }
      }
      if (!this.faults.failedThisRound) this.faults.recovered();
      return report;
    } catch (error) {
      // Claimed rows stay 'processing' and come back on the next start (recoverInterrupted).
      this.faults.failed('could not claim events', error);
      return undefined;
    }
  }

  private async releaseClaims(): Promise<boolean> {
    while (this.unreleased.length > 0) {
      try {
        await this.queue.releaseClaim(this.unreleased[0] as string, 'the outcome could not be recorded; processing again');
        this.unreleased.shift();
      } catch (error) {
        this.faults.failed('could not hand a claimed batch back', error);
        return false;
      }
    }
    return true;
  }

  /** The events' outcomes from the processor's per-ref outcomes; the whole batch fails if the processor throws. */
  private async outcomesOf(batch: ClaimedBatch, refs: Map<string, ObjectRef>, actionsOf: Map<number, number[]>): Promise<{ outcomes: EventOutcome[]; owners: OwnerPair[]; requests?: number }> {
    try {
      const byKey = new Map<string, ProcessOutcome>();
      let owners: OwnerPair[] = [];
      let requests: number | undefined;
      if (refs.size > 0) {
        const result = await this.opts.processor.process([...refs.values()], { changedSince: new Date(batch.oldestReceivedAt - CHANGE_MARGIN_MS).toISOString() });
        for (const o of result.outcomes) byKey.set(refKey(o.ref), worse(byKey.get(refKey(o.ref)), o));
        owners = result.owners ?? [];
        requests = result.requests;
      }
      return { outcomes: batch.refs.map((claimed) => outcomeForRef(claimed, byKey, actionsOf)), owners, ...(requests === undefined ? {} : { requests }) };
    } catch (error) {
      // The whole batch failed (engine threw): every event stays queued and is retried.
      const message = messageOf(error);
      return { outcomes: batch.refs.map((claimed) => ({ eventIds: claimed.eventIds, status: 'failed', error: message })), owners: [] };
    }
  }

  private async processBatch(batch: ClaimedBatch): Promise<BatchReport> {
    const started = performance.now();
    const { refs, actionsOf } = await engineRefsOf(batch, this.queue);
    const { outcomes, owners, requests } = await this.outcomesOf(batch, refs, actionsOf);
    let recorded = true;
    try {
      await this.queue.complete(batch.token, outcomes, owners);
    } catch (error) {
      // The outcome could not be stored: hand the events back (now, or at the next turn).
      recorded = false;
      this.faults.failed('could not record the batch outcome', error);
      this.unreleased.push(batch.token);
      await this.releaseClaims();
    }
    const report: BatchReport = { events: batch.eventCount, refs: batch.refs.length, processed: refs.size, done: 0, skipped: 0, failed: 0, durationMs: 0 };
    for (const o of outcomes) report[o.status] += o.eventIds.length;
    report.durationMs = Math.round(performance.now() - started);
    const cost = this.ledger.note(report, requests, this.opts.processor.budget?.());
    this.log(
      `webhook batch: ${report.events} events, ${report.refs} refs, ${report.processed} processed: ` +
        `${report.done} done, ${report.skipped} skipped, ${report.failed} failed in ${report.durationMs} ms${cost}${failureReasons(outcomes)}`,
    );
    if (recorded) this.opts.onBatch?.(report);
    return report;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const report = await this.runOnce();
      if (this.stopping) break;
      const retryAt = this.faults.retryAt;
      if (retryAt !== undefined) {
        // New events must not cut the wait short: the database that failed is the same.
        this.backingOff = true;
        await this.nap.for(retryAt - Date.now());
        this.backingOff = false;
        continue;
      }
      if (report !== undefined) continue;
      if (this.holdMs !== undefined) {
        await this.hold(this.holdMs);
        continue;
      }
      await this.idle();
    }
  }

  /** Settling or widening (batchPolicy.ts): new events join the batch, they do not start it. */
  private async hold(ms: number): Promise<void> {
    this.holdMs = undefined;
    this.gathering = true;
    await this.nap.for(ms);
    this.gathering = false;
  }

  /** Nothing due: sleep until the next event is due (at most pollMs), then gather a burst that woke us. */
  private async idle(): Promise<void> {
    let wait = this.pollMs;
    try {
      const next = await this.queue.nextDueAt();
      if (next !== undefined) wait = Math.min(this.pollMs, Math.max(0, next - Date.now()));
    } catch {
      // The queue is closing; stop() follows.
    }
    this.woken = false;
    await this.nap.for(wait);
    if (this.woken && !this.stopping && this.gatherMs > 0 && this.settleMs === 0) {
      // Further wakes must not cut the gather short: the point is to let the burst land.
      this.gathering = true;
      await this.nap.for(this.gatherMs);
      this.gathering = false;
    }
  }
}

export function startWorker(opts: WorkerOptions): Worker {
  return new QueueWorker(opts);
}
