/**
 * Drains the queue in the receiver's process: claims due events by ref (all events of one ref in
 * one claim, so ten donations.update for a donation cost one fetch), hands the distinct refs of a
 * batch to the engine, and records each event's outcome. The engine is injected (BatchProcessor)
 * so this file holds no sync logic.
 */
import { messageOf } from '../model/errors.js';
import type { ObjectRef } from '../model/objects.js';
import { keyFor } from '../model/refs.js';
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
}

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
function engineRefsOf(batch: ClaimedBatch, queue: WebhookQueue): { refs: Map<string, ObjectRef>; actionsOf: Map<number, number[]> } {
  const refs = new Map<string, ObjectRef>();
  const actionsOf = new Map<number, number[]>();
  for (const claimed of batch.refs) {
    if (claimed.refType === 'user') {
      const actions = queue.actionsOwnedBy(claimed.refId);
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

class QueueWorker implements Worker {
  private readonly batchSize: number;
  private readonly gatherMs: number;
  private readonly pollMs: number;
  private readonly log: (line: string) => void;
  private readonly nap = new Nap();
  private stopping = false;
  private woken = false;
  private gathering = false;
  private inFlight: Promise<BatchReport | undefined> | undefined;
  /** Claims whose outcome could not be recorded, handed back as soon as the database allows. */
  private readonly unreleased: string[] = [];
  private readonly running: Promise<void>;

  constructor(private readonly opts: WorkerOptions) {
    this.batchSize = opts.batchSize ?? WEBHOOK_BATCH_SIZE;
    this.gatherMs = opts.gatherMs ?? DEFAULT_GATHER_MS;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.log = opts.log ?? (() => undefined);
    const recovered = opts.queue.recoverInterrupted();
    if (recovered > 0) this.log(`webhook worker: ${recovered} events interrupted by an earlier stop are due again`);
    this.running = opts.loop === false ? Promise.resolve() : this.loop();
  }

  wake(): void {
    this.woken = true;
    if (!this.gathering) this.nap.cut();
  }

  async runOnce(): Promise<BatchReport | undefined> {
    // One batch at a time: a second caller waits for the first instead of claiming in parallel.
    while (this.inFlight !== undefined) await this.inFlight;
    const run = (async () => {
      try {
        this.releaseClaims();
        const batch = this.opts.queue.claimBatch(this.batchSize);
        return batch === undefined ? undefined : await this.processBatch(batch);
      } catch (error) {
        // Claimed rows stay 'processing' and come back on the next start (recoverInterrupted).
        this.log(`webhook worker error: ${messageOf(error)}`);
        return undefined;
      }
    })();
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

  private releaseClaims(): void {
    while (this.unreleased.length > 0) {
      try {
        this.opts.queue.releaseClaim(this.unreleased[0] as string, 'the outcome could not be recorded; processing again');
        this.unreleased.shift();
      } catch (error) {
        this.log(`webhook worker: could not release a claim yet: ${messageOf(error)}`);
        return;
      }
    }
  }

  /** The events' outcomes from the processor's per-ref outcomes; the whole batch fails if the processor throws. */
  private async outcomesOf(batch: ClaimedBatch, refs: Map<string, ObjectRef>, actionsOf: Map<number, number[]>): Promise<{ outcomes: EventOutcome[]; owners: OwnerPair[] }> {
    try {
      const byKey = new Map<string, ProcessOutcome>();
      let owners: OwnerPair[] = [];
      if (refs.size > 0) {
        const result = await this.opts.processor.process([...refs.values()], { changedSince: new Date(batch.oldestReceivedAt - CHANGE_MARGIN_MS).toISOString() });
        for (const o of result.outcomes) byKey.set(refKey(o.ref), worse(byKey.get(refKey(o.ref)), o));
        owners = result.owners ?? [];
      }
      return { outcomes: batch.refs.map((claimed) => outcomeForRef(claimed, byKey, actionsOf)), owners };
    } catch (error) {
      // The whole batch failed (engine threw): every event stays queued and is retried.
      const message = messageOf(error);
      return { outcomes: batch.refs.map((claimed) => ({ eventIds: claimed.eventIds, status: 'failed', error: message })), owners: [] };
    }
  }

  private async processBatch(batch: ClaimedBatch): Promise<BatchReport> {
    const started = performance.now();
    const { refs, actionsOf } = engineRefsOf(batch, this.opts.queue);
    const { outcomes, owners } = await this.outcomesOf(batch, refs, actionsOf);
    try {
      this.opts.queue.complete(batch.token, outcomes, owners);
    } catch (error) {
      // The outcome could not be stored: hand the events back (now, or at the next turn).
      this.log(`webhook worker: could not record the batch outcome: ${messageOf(error)}`);
      this.unreleased.push(batch.token);
      this.releaseClaims();
    }
    const report: BatchReport = { events: batch.eventCount, refs: batch.refs.length, processed: refs.size, done: 0, skipped: 0, failed: 0, durationMs: 0 };
    for (const o of outcomes) report[o.status] += o.eventIds.length;
    report.durationMs = Math.round(performance.now() - started);
    this.log(
      `webhook batch: ${report.events} events, ${report.refs} refs, ${report.processed} processed: ` +
        `${report.done} done, ${report.skipped} skipped, ${report.failed} failed in ${report.durationMs} ms`,
    );
    return report;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const report = await this.runOnce();
      if (this.stopping) break;
      if (report !== undefined) continue;
      let wait = this.pollMs;
      try {
        const next = this.opts.queue.nextDueAt();
        if (next !== undefined) wait = Math.min(this.pollMs, Math.max(0, next - Date.now()));
      } catch {
        // The queue is closing; stop() follows.
      }
      this.woken = false;
      await this.nap.for(wait);
      if (this.woken && !this.stopping && this.gatherMs > 0) {
        // Further wakes must not cut the gather short: the point is to let the burst land.
        this.gathering = true;
        await this.nap.for(this.gatherMs);
        this.gathering = false;
      }
    }
  }
}

export function startWorker(opts: WorkerOptions): Worker {
  return new QueueWorker(opts);
}
