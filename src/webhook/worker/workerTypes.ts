/**
 * The worker's contract: what a batch processor takes and gives, the worker's options, and what it
 * reports (batches, health, the status page's snapshot).
 */
import type { LogSink } from '../../config/log.js';
import type { ObjectRef, SyncableType } from '../../model/objects.js';
import type { OwnedActions, OwnerPair } from '../../model/outcomes.js';
import type { BatchCost, BatchStats } from './batchCost.js';
import type { BudgetLeft } from './batchPolicy.js';
import type { WorkerHealth } from './queueFaults.js';
import type { BackoffPolicy } from '../queue/store.js';
import type { QueueStore } from '../queue/store.js';

export type ProcessOutcome = { ref: ObjectRef; status: 'done' | 'skipped' | 'failed'; reason?: string };

export interface ProcessResult {
  /** One outcome per ref given; a ref without one is treated as failed and retried. */
  outcomes: ProcessOutcome[];
  /** action -> owner pairs seen while syncing, so a later users.update can find the actions. */
  owners?: OwnerPair[] | undefined;
  /** Platform requests the batch spent (for the log line, /healthz and the budget policy). */
  requests?: number | undefined;
  /** For BatchHints.ownersToFind: the actions found in Salesforce under each user's email (synced in the batch), or why not. */
  ownersFound?: OwnedActions | undefined;
}

export interface BatchHints {
  changedSince?: string;
  /** Narrower, per type with events in the batch: each type's records changed after its own oldest event (less the margin). */
  changedSinceByType?: Partial<Record<SyncableType, string>>;
  /** Users with a users.update in the batch (their actions are among the refs): read again, never kept from the mirror. */
  changedUsers?: readonly number[];
  /** Users with a users.update whose actions the owners table lacks: the processor finds them in Salesforce by the user's email. */
  ownersToFind?: readonly number[];
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
  budget?(): BudgetLeft | undefined;
  /** Records an admin asked to retry in the org (RetryRequested__c on Open sync errors); none when the log is off or missing. */
  retryRequested?(): Promise<ObjectRef[]>;
  /**
   * Why the last batch could do nothing at all (the org refused the login, the platform the key,
   * another connection holds the org): its events wait with the queue's backoff. undefined once a
   * batch gets through.
   */
  paused?(): string | undefined;
}

export interface WorkerOptions {
  queue: QueueStore;
  processor: BatchProcessor;
  /** Distinct refs claimed per batch (users.update may expand to more actions). */
  batchSize?: number | undefined;
  /** After waking on new events, wait this long so a burst lands in one batch. */
  gatherMs?: number | undefined;
  /** Longest idle sleep: failed events become due on their own and must be picked up. */
  pollMs?: number | undefined;
  log?: LogSink | undefined;
  /** false: no background loop, the caller drives runOnce() (tests, a one-shot drain). */
  loop?: boolean | undefined;
  /** Wait after a queue (database) error: doubles with each further error, up to maxMs. */
  backoff?: Partial<BackoffPolicy> | undefined;
  /**
   * Gather events this long after the first pending one, then start when the platform budget
   * allows (batchPolicy.ts). 0 (the default here; `serve` defaults to 30 s): claim at once.
   */
  settleMs?: number | undefined;
  /** After each batch whose outcome was recorded (metrics). */
  onBatch?: ((report: BatchReport) => void) | undefined;
  /** Longest wait after the first pending event (default ten settle windows). */
  maxWaitMs?: number | undefined;
  /** Injectable clock for the policy (tests). */
  now?: (() => number) | undefined;
}

/** A batch's events and outcomes. */
interface BatchCounts {
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

/** A finished batch as the status page lists it. */
export type RecentBatch = BatchReport & { finishedAt: string; outcome: 'ok' | 'some failed' | 'not recorded' };

/** A read-only view of the worker for the status page: what it does now and why, its last batches. */
export interface WorkerSnapshot {
  state: 'idle' | 'processing' | 'settling' | 'widening' | 'backing-off' | 'paused';
  why?: string;
  /** Newest first, at most RECENT_BATCHES. */
  recent: RecentBatch[];
  /** The end of the last batch recorded with no failed event. */
  lastSuccessAt?: string;
}

/** Batches the status page lists. */
export const RECENT_BATCHES = 10;

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
  snapshot(): WorkerSnapshot;
}

/** Distinct refs one webhook batch claims, and the records of one type the engine takes together in it. */
export const WEBHOOK_BATCH_SIZE = 500;
export const DEFAULT_GATHER_MS = 250;
export const DEFAULT_POLL_MS = 1_000;
/** Shortest idle nap: a queue that says "due now" without a batch to claim must not make the loop spin. */
