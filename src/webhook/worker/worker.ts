/**
 * Drains the queue in the receiver's process: claims due events by ref (all events of one ref in
 * one claim, so ten donations.update for a donation cost one fetch), hands the distinct refs of a
 * batch to the engine, and records each event's outcome. The engine is injected (BatchProcessor)
 * so this file holds no sync logic.
 */
import { counted } from '../../model/counted.js';
import type { LogSink } from '../../config/log.js';
import { messageOf } from '../../model/errors.js';
import type { ObjectRef } from '../../model/objects.js';
import type { OwnedActions, OwnerPair } from '../../model/outcomes.js';
import type { ClaimedBatch, EventOutcome } from '../queue/store.js';
import { failureReasons } from './failureReasons.js';
import type { QueueStore } from '../queue/store.js';
import { QueueFaults, WORKER_BACKOFF, type WorkerHealth } from './queueFaults.js';
import { BatchLedger } from './batchCost.js';
import { decideBatch, type PolicyMemory } from './batchPolicy.js';
import { changedSinceOf, engineRefsOf, outcomeForRef, refKey, worse } from './batchTranslation.js';
import { afterRound, gatherAfterIdle, idleWait, wakeCutsNap, type LoopState } from './loopSteps.js';
import {
  DEFAULT_GATHER_MS,
  DEFAULT_POLL_MS,
  RECENT_BATCHES,
  WEBHOOK_BATCH_SIZE,
  type BatchReport,
  type ProcessOutcome,
  type RecentBatch,
  type Worker,
  type WorkerOptions,
  type WorkerSnapshot,
  type WorkerStats,
} from './workerTypes.js';

export { WEBHOOK_BATCH_SIZE } from './workerTypes.js';
export type { BatchHints, BatchProcessor, BatchReport, ProcessOutcome, ProcessResult, Worker, WorkerSnapshot, WorkerStats } from './workerTypes.js';

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

class QueueWorker implements Worker {
  private readonly queue: QueueStore;
  private readonly batchSize: number;
  private readonly gatherMs: number;
  private readonly pollMs: number;
  private readonly log: LogSink;
  private readonly faults: QueueFaults;
  private readonly nap = new Nap();
  /**
   * What the loop is doing, one value: `gathering` and `holding` let new events join without
   * cutting the nap short, `backing-off` waits out a failing database whatever arrives, and
   * `stopping` is final. (`woken` below is a latch, not a state: an event arrived since the nap began.)
   */
  private state: LoopState = 'idle';
  private woken = false;
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
  /** Why the last policy decision held back (the status page); cleared when a batch starts or nothing is due. */
  private holding: { state: 'settling' | 'widening'; why: string } | undefined;
  private readonly recent: RecentBatch[] = [];
  private lastSuccessAt: string | undefined;

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
      if (recovered > 0) this.log(`webhook worker: ${counted(recovered, 'event')} interrupted by an earlier stop are due again`);
    };
    // Started now, before any request is taken (the SQLite queue runs it within this call).
    this.recovery = this.queue.recoverInterrupted().then(announce, (error: unknown) => this.log(`webhook worker: could not recover interrupted events yet: ${messageOf(error)}`, 'warn'));
    this.running = opts.loop === false ? Promise.resolve() : this.loop();
  }

  wake(): void {
    this.woken = true;
    if (wakeCutsNap(this.state)) this.nap.cut();
  }

  /** Moves the loop to `next`; nothing leaves `stopping`. */
  private enter(next: LoopState): void {
    if (this.state !== 'stopping') this.state = next;
  }

  private get stopping(): boolean {
    return this.state === 'stopping';
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
    this.state = 'stopping';
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

  snapshot(): WorkerSnapshot {
    const health = this.faults.health();
    const base = { recent: this.recent.map((b) => ({ ...b })), ...(this.lastSuccessAt === undefined ? {} : { lastSuccessAt: this.lastSuccessAt }) };
    if (health.state === 'backing-off') return { ...base, state: 'backing-off', why: `${health.failures} queue errors in a row since ${health.since}: ${health.lastError}` };
    const paused = this.opts.processor.paused?.();
    if (paused !== undefined && this.inFlight === undefined) return { ...base, state: 'paused', why: paused };
    if (this.inFlight !== undefined && this.holding === undefined) return { ...base, state: 'processing' };
    if (this.holding !== undefined) return { ...base, state: this.holding.state, why: this.holding.why };
    return { ...base, state: 'idle' };
  }

  /** Whether the pending set is worth a batch now (batchPolicy.ts); when not, how long to hold. */
  private async ready(): Promise<boolean> {
    if (this.settleMs === 0) return true;
    const due = await this.queue.dueSummary(this.now());
    this.holding = undefined;
    if (due === undefined) return false;
    if (due.expiredClaims) {
      // A receiver died holding a claim: its events have waited a lease already; take them over now.
      this.ledger.waiting = undefined;
      return true;
    }
    const policy = { settleMs: this.settleMs, batchSize: this.batchSize, ...(this.opts.maxWaitMs === undefined ? {} : { maxWaitMs: this.opts.maxWaitMs }) };
    const decision = decideBatch(due, this.opts.processor.budget?.() ?? {}, this.memory, policy, this.now());
    if (!decision.start) {
      this.holdMs = decision.waitMs;
      const why = `${decision.why} (${counted(due.events, 'event')}, ${counted(due.refs, 'ref')} pending)`;
      this.ledger.waiting = why;
      // The page shows the state beside the reason: the reason need not repeat it.
      const pending = `${counted(due.events, 'event')}, ${counted(due.refs, 'ref')} pending`;
      this.holding = decision.why === 'settling' ? { state: 'settling', why: pending } : { state: 'widening', why: `the budget cannot cover a fetch by id; ${pending}` };
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
      const ownersToFind = [...actionsOf].flatMap(([user, actions]) => (actions.length === 0 ? [user] : []));
      let ownersFound: OwnedActions | undefined;
      if (refs.size > 0 || ownersToFind.length > 0) {
        const hints = { ...changedSinceOf(batch), changedUsers: [...actionsOf.keys()], ...(ownersToFind.length > 0 ? { ownersToFind } : {}) };
        const result = await this.opts.processor.process([...refs.values()], hints);
        for (const o of result.outcomes) byKey.set(refKey(o.ref), worse(byKey.get(refKey(o.ref)), o));
        owners = result.owners ?? [];
        requests = result.requests;
        ownersFound = result.ownersFound;
      }
      return { outcomes: batch.refs.map((claimed) => outcomeForRef(claimed, byKey, actionsOf, ownersFound)), owners, ...(requests === undefined ? {} : { requests }) };
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
    if (this.stopping && outcomes.some((o) => o.status === 'failed')) return this.handBack(batch, started);
    let recorded = true;
    let lost = 0;
    try {
      const stored = await this.queue.complete(batch.token, outcomes, owners);
      lost = batch.eventCount - stored;
    } catch (error) {
      // The outcome could not be stored: hand the events back (now, or at the next turn).
      recorded = false;
      this.faults.failed('could not record the batch outcome', error);
      this.unreleased.push(batch.token);
      await this.releaseClaims();
    }
    const report: BatchReport = { events: batch.eventCount, refs: batch.refs.length, processed: refs.size, done: 0, skipped: 0, failed: 0, durationMs: 0 };
    report.durationMs = Math.round(performance.now() - started);
    if (recorded && lost >= batch.eventCount) {
      // Another receiver took the claim over (the lease ran out): nothing here was recorded, so
      // nothing is logged or counted as done; that receiver processes the events.
      this.log(`webhook batch: claim lost to another receiver after ${report.durationMs} ms (lease expired): ${counted(batch.eventCount, 'event')} not recorded here`, 'warn');
      return report;
    }
    for (const o of outcomes) report[o.status] += o.eventIds.length;
    const cost = this.ledger.note(report, requests, this.opts.processor.budget?.());
    this.log(
      // Events and records are different units: each number says which it counts.
      `webhook batch: ${counted(report.events, 'event')} (${report.done} done, ${report.skipped} skipped, ${report.failed} failed) ` +
        `for ${counted(report.refs, 'record')} (${report.processed} synced through the engine) in ${report.durationMs} ms${cost}` +
        (recorded && lost > 0 ? ` (${lost} of them not recorded: claim lost to another receiver)` : '') +
        failureReasons(outcomes),
      report.failed > 0 ? 'warn' : 'info',
    );
    if (recorded) this.opts.onBatch?.(report);
    this.remember(report, recorded);
    return report;
  }

  /**
   * Stopped mid-batch (SIGTERM ended a platform wait): the claim goes back to pending with no
   * attempt counted, and the events are processed on the next start (by this or another receiver).
   */
  private async handBack(batch: ClaimedBatch, started: number): Promise<BatchReport> {
    const report: BatchReport = { events: batch.eventCount, refs: batch.refs.length, processed: 0, done: 0, skipped: 0, failed: 0, durationMs: Math.round(performance.now() - started) };
    try {
      await this.queue.releaseClaim(batch.token, 'the receiver stopped before the batch finished; processing again');
      this.log(`webhook batch: stopped after ${report.durationMs} ms: ${counted(batch.eventCount, 'event')} handed back, processed on the next start`);
    } catch (error) {
      this.log(`webhook batch: stopped; could not hand ${counted(batch.eventCount, 'event')} back (${messageOf(error)}): they are recovered on the next start`, 'error');
    }
    return report;
  }

  private remember(report: BatchReport, recorded: boolean): void {
    const finishedAt = new Date().toISOString();
    const outcome = !recorded ? 'not recorded' : report.failed > 0 ? 'some failed' : 'ok';
    this.recent.unshift({ ...report, finishedAt, outcome });
    this.recent.length = Math.min(this.recent.length, RECENT_BATCHES);
    if (outcome === 'ok') this.lastSuccessAt = finishedAt;
  }

  /** Performs what loopSteps.ts decides: a round, then a nap of the kind and length it says. */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.enter('processing');
      const report = await this.runOnce();
      const step = afterRound({ stopping: this.stopping, batchDone: report !== undefined, retryAt: this.faults.retryAt, holdMs: this.holdMs, now: Date.now() });
      if (step.state === 'stopping') break;
      if (step.state === 'processing') continue;
      if (step.state === 'idle') {
        await this.idle();
        continue;
      }
      if (step.state === 'holding') this.holdMs = undefined;
      this.enter(step.state);
      await this.nap.for(step.waitMs);
    }
  }

  /** Nothing due: sleep until the next event is due (at most pollMs), then gather a burst that woke us. */
  private async idle(): Promise<void> {
    let next: number | undefined;
    try {
      next = await this.queue.nextDueAt();
    } catch {
      // The queue is closing; stop() follows.
    }
    this.woken = false;
    this.enter('idle');
    await this.nap.for(idleWait(this.pollMs, next, Date.now()));
    const gather = gatherAfterIdle({ woken: this.woken, stopping: this.stopping, gatherMs: this.gatherMs, settleMs: this.settleMs });
    if (gather !== undefined) {
      // Further wakes must not cut the gather short: the point is to let the burst land.
      this.enter('gathering');
      await this.nap.for(gather);
    }
  }
}

export function startWorker(opts: WorkerOptions): Worker {
  return new QueueWorker(opts);
}
