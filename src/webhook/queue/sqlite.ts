/**
 * The durable webhook queue: one SQLite file (node:sqlite), WAL journal, synchronous=FULL.
 *
 * Why FULL: in WAL mode synchronous=NORMAL only fsyncs the WAL at checkpoints, so a transaction
 * that has returned can still vanish on a power loss or OS crash; the receiver would then have
 * answered 200 for an event that no longer exists and the platform would never resend it. FULL
 * fsyncs the WAL on every commit, so "the insert returned" means "on disk". The receiver
 * amortises that fsync by committing all requests of one event-loop turn in one transaction.
 *
 * Claims are persisted (status 'processing' + a per-worker token) so `queue` can show work in
 * flight; a worker starting up returns every 'processing' row of an earlier process to 'pending'
 * (recoverInterrupted), which is what makes a crash mid-batch lose nothing.
 */
import { openDatabase, pragma, statement, transaction, type DatabaseSync, type StatementSync } from './sqliteDb.js';
import { inScope, notHeld } from './sqliteConditions.js';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { privateEmptyFile } from '../../model/privateFile.js';
import { ownerOnlyFolder } from '../../model/ownerOnly.js';
import path from 'node:path';
import type { OwnerPair } from '../../model/outcomes.js';
import { isRefusedValue, QueueMissingError, queueFileError } from './errors.js';
import { identify, identifyFile, identityError, migrateQueue } from './sqliteFile.js';
import { ConfigError } from '../../model/errors.js';
import { STEPS } from './sqliteSteps.js';
import {
  countsOf,
  QUEUE_BACKOFF,
  type EventStatus,
  type QueueRefType,
  type EnqueueInput,
  type EnqueueResult,
  type EnqueueRejected,
  type ClaimedRef,
  type ClaimedBatch,
  type DueSummary,
  type EventOutcome,
  type QueueCounts,
  type FailedEvent,
  type BackoffPolicy,
  type QueueStore,
  type OpenOptions,
  type ConnectionScope,
  type ConnectionCounts,
} from './store.js';
import { failedColumns, eventRowOf, failedEventOf, ignoredReasonOf, ignoredSql, noteOldest, type ConnectionColumn, type FailedRow, type IgnoredReason, type IgnoredRow } from './store.js';

/** The port's open options (`create` defaults to true here: tests and `serve` make the file). */
interface QueueOptions extends Partial<OpenOptions> {
  retry?: Partial<BackoffPolicy> | undefined;
}

interface DueRefRow {
  ref_type: QueueRefType;
  ref_id: number;
}

const DAY_MS = 86_400_000;

/** Where the path is set, for the lines that say a queue is not there. */
const CHECK_PATH = 'check --queue or SVC_QUEUE_PATH';

/** A file with no queue in it (0 bytes, or a database with no tables): not there, without `create`. */
function notYetAQueue(file: string): QueueMissingError {
  const what = statSync(file, { throwIfNoEntry: false })?.size === 0 ? 'an empty file (0 bytes)' : 'a SQLite database with no tables';
  return new QueueMissingError(file, `${what}, not an svc-sync queue (svc-sync serve makes it one; ${CHECK_PATH})`);
}

/**
 * The connection to a queue file, once it is known to be ours: a missing or empty file is created
 * only with `create` (else QueueMissingError, and nothing is written); another application's
 * database or a newer release's queue is refused before anything is written; `read` opens the
 * file read-only and changes nothing (no journal mode, no tables, no migration).
 */
function openQueueFile(file: string, create: boolean, access: 'read' | 'write'): DatabaseSync {
  const latest = STEPS.length;
  let db: DatabaseSync | undefined;
  try {
    const missing = !existsSync(file);
    if (missing && !create) throw new QueueMissingError(file, `no such file (svc-sync serve creates it; ${CHECK_PATH})`);
    const seen = identifyFile(file, latest);
    if (seen !== undefined) {
      const refused = identityError(file, seen, latest);
      if (refused !== undefined) throw refused;
      if (seen.kind === 'empty' && !create) throw notYetAQueue(file);
    }
    // Owner-only (folder 0700, file 0600: -wal and -shm get its mode), in a folder no one else can write (SQLite follows symlinks).
    if (create) ownerOnlyFolder(path.dirname(path.resolve(file)), 'queue folder', 'SVC_QUEUE_PATH');
    if (create) privateEmptyFile(file);
    const readOnly = access === 'read' && !create;
    db = openDatabase(file, { mustExist: !create, readOnly });
    // A CLI `queue` command may read while `serve` writes: wait for the lock instead of failing.
    pragma(db, 'busy_timeout = 5000');
    // What the connection sees is authoritative (a WAL file in use holds its latest pages in -wal).
    const identity = identify(db, latest);
    const refused = identityError(file, identity, latest);
    if (refused !== undefined) throw refused;
    if (identity.kind === 'empty' && !create) throw notYetAQueue(file);
    if (readOnly) return db;
    pragma(db, 'journal_mode = WAL');
    pragma(db, 'synchronous = FULL');
    // A write: a read-only file fails here, at start (exit 2), not at the first event's 503.
    migrateQueue(db, file, STEPS);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof ConfigError) throw error;
    throw queueFileError(file, error);
  }
}

export class SqliteQueue implements QueueStore {
  readonly path: string;
  /** One receiver per file: `serve` locks it (QueueStore.receiverLockPath). */
  get receiverLockPath(): string {
    return this.path;
  }
  private readonly db: DatabaseSync;
  private readonly retry: BackoffPolicy;
  private closed = false;
  /** Set on a view (scoped()): the connections whose events it sees. */
  private readonly scope: ConnectionScope | undefined;
  private readonly conn: ConnectionColumn;

  /** QueueStore's name for where the queue lives. */
  get location(): string {
    return this.path;
  }

  constructor(file: string, options: QueueOptions = {}, view?: { db: DatabaseSync; scope: ConnectionScope }) {
    this.path = file;
    this.retry = { ...QUEUE_BACKOFF, ...options.retry };
    this.db = view?.db ?? openQueueFile(file, options.create ?? true, options.access ?? 'write');
    this.scope = view?.scope;
    // A queue of an earlier release read by `svc-sync queue` is not migrated: its events are the implicit connection's.
    const columns = statement(this.db, 'SELECT name FROM pragma_table_info(?)').all('events') as Array<{ name: string }>;
    this.conn = columns.some((c) => c.name === 'connection') ? 'connection' : "''";
    // A view never closes the file its opener holds.
    if (view !== undefined) this.closed = true;
  }

  scoped(scope: ConnectionScope): QueueStore {
    return new SqliteQueue(this.path, { retry: this.retry }, { db: this.db, scope });
  }

  /** The scope's condition and its parameter ('' and none when unscoped). */
  private get inScope(): { sql: string; params: string[] } {
    return this.scope === undefined ? { sql: '', params: [] } : { sql: inScope(this.conn), params: [JSON.stringify(this.scope.keys)] };
  }

  async countsByConnection(): Promise<ConnectionCounts[]> {
    const { sql, params } = this.inScope;
    const rows = this.stmt(`SELECT ${this.conn} AS connection, status, outcome, COUNT(*) AS n FROM events WHERE 1 = 1${sql} GROUP BY 1, status, outcome ORDER BY 1`).all(...params) as Array<{
      connection: string;
      status: EventStatus;
      outcome: string | null;
      n: number;
    }>;
    return [...new Set(rows.map((r) => r.connection))].map((connection) => ({ connection, counts: countsOf(rows.filter((r) => r.connection === connection)) }));
  }

  /** Stores events in one transaction; returns only after the commit (and its fsync). Any failure fails all. */
  async enqueueMany(inputs: readonly EnqueueInput[], now: number = Date.now()): Promise<EnqueueResult[]> {
    return transaction(this.db, () => inputs.map((input) => this.insertEvent(input, now)));
  }

  /**
   * A group commit in which one event cannot fail the others: each event is inserted under its
   * own savepoint, so an event SQLite refuses (a value it cannot bind, a constraint) is rolled
   * back alone and reported in its slot, and the rest commit together, one fsync for all. Any
   * other failure (disk full, I/O error, a missing column) throws, and then nothing was stored.
   */
  async enqueueEach(inputs: readonly EnqueueInput[], now: number = Date.now()): Promise<Array<EnqueueResult | EnqueueRejected>> {
    return transaction(this.db, () =>
      inputs.map((input): EnqueueResult | EnqueueRejected => {
        try {
          return transaction(this.db, () => this.insertEvent(input, now));
        } catch (error) {
          // Only a refused value is this event's fault; anything else (the file, a table that is
          // not what this release expects) fails the whole commit: 503 to all, sent again later.
          if (!isRefusedValue(error)) throw error;
          return { error: error instanceof Error ? error : new Error(String(error)) };
        }
      }),
    );
  }

  private insertEvent(input: EnqueueInput, now: number): EnqueueResult {
    const insert = this.stmt(
      `INSERT INTO events (received_at, raw, object_type, object_id, event_type, application, site_id,
         ref_type, ref_id, status, reason, next_attempt_at, finished_at, connection)
       VALUES (@receivedAt, @raw, @objectType, @objectId, @eventType, @application, @siteId,
         @refType, @refId, @status, @reason, @receivedAt, @finishedAt, @connection)`,
    );
    const { message, raw, ref, status, reason } = eventRowOf(input);
    const info = insert.run({
      receivedAt: now,
      raw,
      objectType: message.objectType,
      objectId: message.objectId,
      eventType: message.eventType,
      application: message.application,
      siteId: message.siteId ?? null,
      refType: ref?.type ?? null,
      refId: ref?.id ?? null,
      status,
      reason,
      finishedAt: status === 'ignored' ? now : null,
      connection: input.connection ?? this.scope?.home ?? '',
    });
    return { id: Number(info.lastInsertRowid), status };
  }

  async enqueue(input: EnqueueInput, now: number = Date.now()): Promise<EnqueueResult> {
    const [result] = await this.enqueueMany([input], now);
    if (result === undefined) throw new Error('enqueue returned no row');
    return result;
  }

  /**
   * Claims up to `maxRefs` distinct refs that have a due event (oldest first), and with each ref
   * every open event for it (pending or failed, due or not): they all collapse into one fetch.
   */
  async claimBatch(maxRefs: number, now: number = Date.now()): Promise<ClaimedBatch | undefined> {
    const token = randomUUID();
    const { sql, params } = this.inScope;
    const due = this.stmt(
      `SELECT ref_type, ref_id FROM events
        WHERE status IN ('pending','failed') AND next_attempt_at <= ? AND ref_type IS NOT NULL${sql}${notHeld(this.conn)}
        GROUP BY ref_type, ref_id ORDER BY MIN(id) LIMIT ?`,
    );
    const claim = this.stmt(
      `UPDATE events SET status = 'processing', claim_token = ?
        WHERE ref_type = ? AND ref_id = ? AND status IN ('pending','failed')${sql} RETURNING id, received_at`,
    );
    return transaction(
      this.db,
      (): ClaimedBatch | undefined => {
        const rows = due.all(now, ...params, maxRefs) as unknown as DueRefRow[];
        if (rows.length === 0) return undefined;
        let eventCount = 0;
        const oldestByType: ClaimedBatch['oldestByType'] = {};
        const refs = rows.map((row): ClaimedRef => {
          const claimed = claim.all(token, row.ref_type, row.ref_id, ...params) as Array<{ id: number; received_at: number }>;
          for (const c of claimed) noteOldest(oldestByType, row.ref_type, c.received_at);
          const ids = claimed.map((r) => r.id).sort((a, b) => a - b);
          eventCount += ids.length;
          return { refType: row.ref_type, refId: row.ref_id, eventIds: ids };
        });
        return { token, refs, eventCount, oldestReceivedAt: Math.min(now, ...Object.values(oldestByType)), oldestByType };
      },
      'IMMEDIATE',
    );
  }

  /**
   * Records the outcome of a claimed batch and the owners the engine saw, in one transaction (an
   * action has one owner: a later pair for the same action replaces the earlier one).
   * Failed events go back to 'failed' with a doubled delay: they are never dropped.
   */
  async complete(token: string, outcomes: readonly EventOutcome[], owners: readonly OwnerPair[] = [], now: number = Date.now()): Promise<number> {
    const done = this.stmt(
      `UPDATE events SET status = 'done', outcome = ?, reason = ?, last_error = NULL, finished_at = ?, claim_token = NULL
        WHERE id = ? AND claim_token = ?`,
    );
    // Delay = base * 2^(failures so far), capped; attempts counts failed processing attempts.
    const failed = this.stmt(
      `UPDATE events SET status = 'failed', attempts = attempts + 1, last_error = ?,
         next_attempt_at = ? + MIN(?, ? * (1 << MIN(attempts, 30))), claim_token = NULL
        WHERE id = ? AND claim_token = ?`,
    );
    const owner = this.ownerUpsert();
    let recorded = 0;
    transaction(
      this.db,
      () => {
        for (const outcome of outcomes) {
          for (const id of outcome.eventIds) {
            if (outcome.status === 'failed') {
              recorded += Number(failed.run(outcome.error.slice(0, 2000), now, this.retry.maxMs, this.retry.baseMs, id, token).changes);
            } else {
              recorded += Number(done.run(outcome.status, outcome.reason ?? null, now, id, token).changes);
            }
          }
        }
        for (const pair of owners) owner.run(this.scope?.home ?? '', pair.actionId, pair.userId, now);
      },
      'IMMEDIATE',
    );
    return recorded;
  }

  /**
   * Hands a claimed batch back when its outcome could not be recorded (the database refused the
   * write): its events become pending again, so they are processed again, not left stuck.
   */
  async releaseClaim(token: string, reason: string, now: number = Date.now()): Promise<number> {
    const info = this.stmt(`UPDATE events SET status = 'pending', claim_token = NULL, last_error = ?, next_attempt_at = ? WHERE claim_token = ? AND status = 'processing'`).run(
      reason.slice(0, 2000),
      now,
      token,
    );
    return Number(info.changes);
  }

  /** Returns events claimed by a process that stopped before recording their outcome. */
  async recoverInterrupted(now: number = Date.now()): Promise<number> {
    const { sql, params } = this.inScope;
    const info = this.stmt(
      `UPDATE events SET status = 'pending', claim_token = NULL, attempts = attempts + 1,
           last_error = 'interrupted: the process stopped before the outcome was recorded',
           next_attempt_at = MIN(next_attempt_at, ?)
          WHERE status = 'processing'${sql}`,
    ).run(now, ...params);
    return Number(info.changes);
  }

  private ownerUpsert(): StatementSync {
    return this.stmt(
      `INSERT INTO action_owners (connection, action_id, user_id, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (connection, action_id) DO UPDATE SET user_id = excluded.user_id, updated_at = excluded.updated_at`,
    );
  }

  async actionsOwnedBy(userId: number): Promise<number[]> {
    const rows = this.stmt('SELECT action_id FROM action_owners WHERE user_id = ? AND connection = ? ORDER BY action_id').all(userId, this.scope?.home ?? '') as Array<{ action_id: number }>;
    return rows.map((r) => r.action_id);
  }

  async counts(): Promise<QueueCounts> {
    const { sql, params } = this.inScope;
    return countsOf(
      this.stmt(`SELECT status, outcome, COUNT(*) AS n FROM events WHERE 1 = 1${sql} GROUP BY status, outcome`).all(...params) as Array<{ status: EventStatus; outcome: string | null; n: number }>,
    );
  }

  async failedEvents(limit = 100): Promise<FailedEvent[]> {
    const { sql, params } = this.inScope;
    const rows = this.stmt(`SELECT ${failedColumns(this.conn)} FROM events WHERE status = 'failed'${sql} ORDER BY id LIMIT ?`).all(...params, limit) as unknown as FailedRow[];
    return rows.map(failedEventOf);
  }

  async ignoredReasons(limit = 20): Promise<IgnoredReason[]> {
    const { sql, params } = this.inScope;
    return (this.stmt(ignoredSql('events', this.conn, sql, '?')).all(...params, limit) as unknown as IgnoredRow[]).map(ignoredReasonOf);
  }

  /** Makes every failed event due now (attempt counts are kept for the record). */
  async retryFailed(now: number = Date.now()): Promise<number> {
    const { sql, params } = this.inScope;
    return Number(this.stmt(`UPDATE events SET status = 'pending', next_attempt_at = ? WHERE status = 'failed'${sql}`).run(now, ...params).changes);
  }

  /**
   * What a claim would take now: due events, the distinct refs they name, and when the first of
   * them became due (the worker's settle window starts there); undefined when nothing is due.
   */
  async dueSummary(now: number = Date.now()): Promise<DueSummary | undefined> {
    const { sql, params } = this.inScope;
    const row = this.stmt(
      `SELECT COUNT(*) AS events, COUNT(DISTINCT ref_type || ':' || ref_id) AS refs, MIN(next_attempt_at) AS first
         FROM events WHERE status IN ('pending','failed') AND next_attempt_at <= ? AND ref_type IS NOT NULL${sql}${notHeld(this.conn)}`,
    ).get(now, ...params) as { events: number; refs: number; first: number | null };
    return row.first === null ? undefined : { events: row.events, refs: row.refs, firstDueAt: row.first };
  }

  /** When the next open event of a record not in flight becomes due, or undefined when none is. */
  async nextDueAt(): Promise<number | undefined> {
    const { sql, params } = this.inScope;
    const row = this.stmt(`SELECT MIN(next_attempt_at) AS t FROM events WHERE status IN ('pending','failed') AND ref_type IS NOT NULL${sql}${notHeld(this.conn)}`).get(...params);
    return (row as { t: number | null }).t ?? undefined;
  }

  /** Deletes done and ignored events finished more than `keepDays` days ago; failures are kept. */
  async prune(keepDays: number, now: number = Date.now()): Promise<number> {
    return Number(this.stmt(`DELETE FROM events WHERE status IN ('done','ignored') AND finished_at < ?`).run(now - keepDays * DAY_MS).changes);
  }

  /** The settings the durability promise rests on, as SQLite reports them (for tests and doctor). */
  async durability(): Promise<{ journalMode: string; synchronous: 'off' | 'normal' | 'full' | 'extra' }> {
    const journalMode = String(pragma(this.db, 'journal_mode'));
    const level = Number(pragma(this.db, 'synchronous'));
    const synchronous = (['off', 'normal', 'full', 'extra'] as const)[level] ?? 'off';
    return { journalMode, synchronous };
  }

  /** Prepared statements are cached: the receiver's insert runs once per request. */
  private stmt(sql: string): StatementSync {
    return statement(this.db, sql);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
