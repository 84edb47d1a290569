/**
 * The one webhook-queue interface the receiver, the worker and the `queue` commands use, with all
 * its types and the rules both backends share (counts, backoff, row mapping). Two adapters: the
 * SQLite file (sqlite.ts, the embedded default) and PostgreSQL (postgres.ts, shared by several
 * receivers). Both are asynchronous; open.ts opens either, creating it or not.
 */
import type { SharedBudget } from '../../model/budget.js';
import type { OwnerPair } from '../../model/outcomes.js';
import type { SyncableType } from '../../model/objects.js';
import type { EventIntent } from '../../sync/input/webhookEvents.js';
import type { WebhookMessage } from '../../sync/input/webhookMessage.js';

export type EventStatus = 'pending' | 'processing' | 'done' | 'failed' | 'ignored';
/** What the worker hands the engine: a mirrored type, or a user whose actions are re-synced. */
export type QueueRefType = SyncableType | 'user';

export interface EnqueueInput {
  message: WebhookMessage;
  intent: EventIntent;
  /** The body as received, kept for diagnosis. */
  raw: string;
  /** The connection it was routed to ('' or absent: the one implicit connection, or none). */
  connection?: string | undefined;
}

export interface EnqueueResult {
  id: number;
  status: 'pending' | 'ignored';
}

/** One event of a group commit that could not be stored; the others of the commit were. */
export interface EnqueueRejected {
  error: Error;
}

/** All due events of one ref, claimed together: the worker processes the ref once. */
export interface ClaimedRef {
  refType: QueueRefType;
  refId: number;
  eventIds: number[];
}

export interface ClaimedBatch {
  token: string;
  refs: ClaimedRef[];
  eventCount: number;
  /** When the oldest claimed event arrived (ms): its object changed no earlier than shortly before. */
  oldestReceivedAt: number;
  /**
   * The same per ref type of the batch: a type's records changed no earlier than shortly before its
   * oldest event, so each type's list is read from there (a backlog's oldest donation event does
   * not widen the batch's subscription list).
   */
  oldestByType: Partial<Record<QueueRefType, number>>;
}

/** Keeps the earlier of a type's oldest receipt time and `at` (both backends' claims). */
export function noteOldest(oldest: Partial<Record<QueueRefType, number>>, type: QueueRefType, at: number): void {
  const known = oldest[type];
  if (known === undefined || at < known) oldest[type] = at;
}

export interface DueSummary {
  events: number;
  refs: number;
  firstDueAt: number;
  /** Some of them are claims whose lease ran out (a receiver died): taken over at once, whatever the settle window. */
  expiredClaims?: boolean;
}

export type EventOutcome = { eventIds: number[]; status: 'done' | 'skipped'; reason?: string } | { eventIds: number[]; status: 'failed'; error: string };

/** Events by state: disjoint, so they add up to the events held (a skipped event is not also done). */
export interface QueueCounts {
  pending: number;
  processing: number;
  failed: number;
  /** Synced (written or found unchanged). */
  done: number;
  /** Finished without a write by a rule of the spec (a pending donation, a record gone from the platform). */
  skipped: number;
  ignored: number;
}

/** The one rule both queues count by: a finished event is done or skipped by its outcome, never both. */
export function countsOf(rows: ReadonlyArray<{ status: EventStatus; outcome: string | null; n: number }>): QueueCounts {
  const counts: QueueCounts = { pending: 0, processing: 0, failed: 0, done: 0, skipped: 0, ignored: 0 };
  for (const row of rows) {
    if (row.status === 'done' && row.outcome === 'skipped') counts.skipped += Number(row.n);
    else counts[row.status] += Number(row.n);
  }
  return counts;
}

export interface FailedEvent {
  id: number;
  eventType: string;
  refType: QueueRefType;
  refId: number;
  attempts: number;
  lastError: string;
  receivedAt: string;
  nextAttemptAt: string;
  /** The connection it belongs to; absent for the implicit one (a config without "connections"). */
  connection?: string;
}

/** A doubling wait: the first delay, doubled after each further failure up to the cap. */
export interface BackoffPolicy {
  /** Delay after the first failure; doubles with each further failure. */
  baseMs: number;
  maxMs: number;
}

/** How failed events come back: after 5 s, then 10 s, 20 s ... up to an hour. */
export const QUEUE_BACKOFF: BackoffPolicy = { baseMs: 5_000, maxMs: 60 * 60_000 };

/** An event as both databases store it: the record it names (a user for users.update), open or ignored. */
export interface EventRow {
  message: WebhookMessage;
  raw: string;
  ref: { type: QueueRefType; id: number } | undefined;
  status: 'pending' | 'ignored';
  reason: string | null;
  connection: string;
}

/** The one mapping of a received event to its row, for both backends. */
export function eventRowOf(input: EnqueueInput): EventRow {
  const { message, intent, raw } = input;
  const ref = intent.kind === 'sync' ? { type: intent.ref.type, id: intent.ref.id } : intent.kind === 'owner' ? { type: 'user' as const, id: intent.userId } : undefined;
  return { message, raw, ref, status: intent.kind === 'ignored' ? 'ignored' : 'pending', reason: intent.kind === 'ignored' ? intent.reason : null, connection: input.connection ?? '' };
}

/** Events recorded ignored for one reason (of one connection), for `queue -v`: the platform does not send them again. */
export interface IgnoredReason {
  reason: string;
  /** The stored connection value ('' : the implicit connection, or none could be told). */
  connection: string;
  count: number;
  /** When the last of them arrived (ISO 8601). */
  lastAt: string;
}

/** The ignored-reasons query, the same in both databases: `scope` narrows it, `limit` is the LIMIT parameter. */
export const ignoredSql = (table: string, col: ConnectionColumn, scope: string, limit: string): string =>
  `SELECT ${col} AS connection, COALESCE(reason, '') AS reason, COUNT(*) AS n, MAX(received_at) AS last FROM ${table} WHERE status = 'ignored'${scope} GROUP BY 1, 2 ORDER BY n DESC, 2 LIMIT ${limit}`;

export interface IgnoredRow {
  connection: string;
  reason: string;
  n: number | string;
  last: number | string;
}

export const ignoredReasonOf = (r: IgnoredRow): IgnoredReason => ({
  reason: r.reason,
  connection: r.connection,
  count: Number(r.n),
  lastAt: new Date(Number(r.last)).toISOString(),
});

/** A failed event's row as both databases return it (PostgreSQL gives bigints as strings). */
export interface FailedRow {
  id: number | string;
  event_type: string;
  ref_type: QueueRefType;
  ref_id: number | string;
  attempts: number;
  last_error: string | null;
  received_at: number | string;
  next_attempt_at: number | string;
  connection: string;
}

/** The one mapping of a failed event's row, for both backends. */
export function failedEventOf(r: FailedRow): FailedEvent {
  return {
    id: Number(r.id),
    eventType: r.event_type,
    refType: r.ref_type,
    refId: Number(r.ref_id),
    attempts: r.attempts,
    lastError: r.last_error ?? '',
    receivedAt: new Date(Number(r.received_at)).toISOString(),
    nextAttemptAt: new Date(Number(r.next_attempt_at)).toISOString(),
    ...(r.connection === '' ? {} : { connection: r.connection }),
  };
}

/** The SELECT list of a failed event's row. */
export const failedColumns = (connection: ConnectionColumn): string => `id, event_type, ref_type, ref_id, attempts, last_error, received_at, next_attempt_at, ${connection} AS connection`;

/** The events' connection in SQL: the column, or '' on a queue of an earlier release only read (not migrated). */
export type ConnectionColumn = 'connection' | "''";

/**
 * The events one connection's worker sees (queue/connections.md in docs/webhooks.md): `keys` are
 * the stored connection values it claims ('' being the implicit connection's, and an older
 * queue's events), `home` the one its owner pairs are kept under.
 */
export interface ConnectionScope {
  home: string;
  keys: readonly string[];
}

/** One connection's counts ('' : the implicit connection, and events of a queue from before connections). */
export interface ConnectionCounts {
  connection: string;
  counts: QueueCounts;
}

/** How a queue is opened: `serve` creates it; `svc-sync queue` only reads what is there. */
export interface OpenOptions {
  /** Create the file or the tables when they are missing; otherwise a missing queue is a QueueMissingError. */
  create: boolean;
  /** `read`: status only, no write check (a read-only file still shows its counts). */
  access?: 'read' | 'write' | undefined;
}

export interface QueueStore {
  /** Where the queue lives, fit for output: a file path, or a database URL without its password. */
  readonly location: string;
  /** Stores events in one transaction; resolves only after the commit is durable. */
  enqueueMany(inputs: readonly EnqueueInput[], now?: number): Promise<EnqueueResult[]>;
  /**
   * A group commit in which an event the database refuses (a value it cannot store) is reported
   * in its slot and the others are stored; only a failure of the storage itself rejects.
   */
  enqueueEach(inputs: readonly EnqueueInput[], now?: number): Promise<Array<EnqueueResult | EnqueueRejected>>;
  /** Claims up to `maxRefs` refs with a due event, each with all its open events. */
  claimBatch(maxRefs: number, now?: number): Promise<ClaimedBatch | undefined>;
  /**
   * Records a claimed batch's outcomes and the owners the engine saw; returns the events recorded,
   * fewer than given when another receiver took the claim over (its lease expired meanwhile).
   */
  complete(token: string, outcomes: readonly EventOutcome[], owners?: readonly OwnerPair[], now?: number): Promise<number>;
  /** Hands a claimed batch back to pending (its outcome could not be recorded). */
  releaseClaim(token: string, reason: string, now?: number): Promise<number>;
  /** Returns events of claims whose process stopped before recording an outcome. */
  recoverInterrupted(now?: number): Promise<number>;
  actionsOwnedBy(userId: number): Promise<number[]>;
  counts(): Promise<QueueCounts>;
  failedEvents(limit?: number): Promise<FailedEvent[]>;
  retryFailed(now?: number): Promise<number>;
  /** When the next claimable open event becomes due, or undefined when none is. */
  nextDueAt(): Promise<number | undefined>;
  /** Due open events and their distinct records, for the worker's settle policy. */
  dueSummary(now?: number): Promise<DueSummary | undefined>;
  prune(keepDays: number, now?: number): Promise<number>;
  close(): Promise<void>;
  /**
   * A view of the same queue limited to some connections' events: claims, due times, recovery,
   * counts, failures, retries and owners; storing and the rest as the queue itself. Closing a
   * view does nothing (the queue is closed by its opener).
   */
  scoped(scope: ConnectionScope): QueueStore;
  /** Events by state per stored connection value. */
  countsByConnection(): Promise<ConnectionCounts[]>;
  /** Why events were ignored: per reason and connection, the most frequent first. */
  ignoredReasons(limit?: number): Promise<IgnoredReason[]>;

  // Capabilities one backend has and the other not, declared here so callers never ask which class it is.
  /** A file only one receiver may serve from at a time (SQLite): `serve` locks it before its worker starts. */
  readonly receiverLockPath?: string;
  /** Platform budget pacing shared with every receiver on this database, for one API key (hashed by the caller). */
  sharedBudget?(key: string): SharedBudget;
}
