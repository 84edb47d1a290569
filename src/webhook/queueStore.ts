/**
 * The one webhook-queue interface the receiver, the worker and the `queue` commands use. Two
 * implementations: the SQLite file (queue.ts, synchronous, the embedded default) and PostgreSQL
 * (pgQueue.ts, asynchronous, shared by several receivers). Every method may answer directly or
 * with a promise, so the SQLite queue fits unchanged and callers simply await.
 */
import type { SharedBudget } from '../model/budget.js';
import type { OwnerPair } from '../model/outcomes.js';
import type { ClaimedBatch, DueSummary, EnqueueInput, EnqueueRejected, EnqueueResult, EventOutcome, FailedEvent, QueueCounts } from './queue.js';

export type Awaitable<T> = T | Promise<T>;

export interface QueueStore {
  /** Where the queue lives, fit for output: a file path, or a database URL without its password. */
  readonly location: string;
  /** Stores events in one transaction; resolves only after the commit is durable. */
  enqueueMany(inputs: readonly EnqueueInput[], now?: number): Awaitable<EnqueueResult[]>;
  /**
   * A group commit in which an event the database refuses (a value it cannot store) is reported
   * in its slot and the others are stored; only a failure of the storage itself rejects.
   */
  enqueueEach(inputs: readonly EnqueueInput[], now?: number): Awaitable<Array<EnqueueResult | EnqueueRejected>>;
  /** Claims up to `maxRefs` refs with a due event, each with all its open events. */
  claimBatch(maxRefs: number, now?: number): Awaitable<ClaimedBatch | undefined>;
  /**
   * Records a claimed batch's outcomes and the owners the engine saw; returns the events recorded,
   * fewer than given when another receiver took the claim over (its lease expired meanwhile).
   */
  complete(token: string, outcomes: readonly EventOutcome[], owners?: readonly OwnerPair[], now?: number): Awaitable<number>;
  /** Hands a claimed batch back to pending (its outcome could not be recorded). */
  releaseClaim(token: string, reason: string, now?: number): Awaitable<number>;
  /** Returns events of claims whose process stopped before recording an outcome. */
  recoverInterrupted(now?: number): Awaitable<number>;
  actionsOwnedBy(userId: number): Awaitable<number[]>;
  counts(): Awaitable<QueueCounts>;
  failedEvents(limit?: number): Awaitable<FailedEvent[]>;
  retryFailed(now?: number): Awaitable<number>;
  /** When the next claimable open event becomes due, or undefined when none is. */
  nextDueAt(): Awaitable<number | undefined>;
  /** Due open events and their distinct records, for the worker's settle policy. */
  dueSummary(now?: number): Awaitable<DueSummary | undefined>;
  prune(keepDays: number, now?: number): Awaitable<number>;
  close(): Awaitable<void>;

  // Capabilities one backend has and the other not, declared here so callers never ask which class it is.
  /** A file only one receiver may serve from at a time (SQLite): `serve` locks it before its worker starts. */
  readonly receiverLockPath?: string;
  /** Creates or upgrades the tables when the database is reachable (PostgreSQL); a file queue does it on open. */
  migrate?(): Promise<unknown>;
  /** Platform budget pacing shared with every receiver on this database, for one API key (hashed by the caller). */
  sharedBudget?(key: string): SharedBudget;
}
