/**
 * The webhook queue in PostgreSQL, shared by any number of `serve` processes.
 * - Durable 200s: every connection runs with synchronous_commit = on, and the receiver answers
 *   only after its insert transaction has committed.
 * - One claim per record across receivers: a `refs` row per record with open events is the unit
 *   of claim (FOR UPDATE SKIP LOCKED, then a claim token and a lease). While a receiver holds a
 *   record, events arriving for it wait, so two receivers never sync one record at once.
 * - Leases, renewed every third of their time: a dead receiver's records are claimed again after.
 * - Database unreachable: every method rejects (503, /healthz says so); the pool reconnects itself.
 * - Times: the caller's milliseconds (as in SQLite); leases use the database clock (no skew).
 */
import type { LogSink } from '../../config/log.js';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { maskQueueUrl } from '../../config/queueUrl.js';
import { PgDatabase } from './pgDatabase.js';
import { ClaimLeases } from './pgLeases.js';
import { claimRefs, enqueueIsolating, INTERRUPTED, insertEvents, releaseRefs, upsertOwners } from './pgStatements.js';
import { PgBudget } from './pgBudget.js';
import { DEFAULT_LEASE_MS, DEFAULT_QUEUE_SCHEMA } from '../../config/webhookSettings.js';
import { migrate, queueExists, type MigrationResult } from './pgSchema.js';
import { permanentQueueFailure, QueueMissingError } from './errors.js';
import { QueueError } from '../../model/errors.js';
import { countsOf, eventRowOf, failedColumns, failedEventOf, ignoredReasonOf, ignoredSql, QUEUE_BACKOFF } from './store.js';
import type { BackoffPolicy, ClaimedBatch, ConnectionColumn, ConnectionCounts, ConnectionScope, DueSummary, EnqueueInput, EnqueueRejected, EnqueueResult } from './store.js';
import type { EventOutcome, EventStatus, FailedEvent, FailedRow, IgnoredReason, IgnoredRow, OpenOptions, QueueCounts, QueueStore } from './store.js';
import type { OwnerPair } from '../../model/outcomes.js';

interface PgQueueOptions {
  url: string;
  /** SVC_QUEUE_SCHEMA (default svc_sync). */
  schema?: string;
  /** SVC_QUEUE_LEASE_S in ms: how long a claim outlives a receiver that stopped renewing it. */
  leaseMs?: number;
  retry?: Partial<BackoffPolicy> | undefined;
  /** Connections per process (default 10). */
  poolSize?: number | undefined;
  log?: LogSink | undefined;
}

const DAY_MS = 86_400_000;

export class PgQueue implements QueueStore {
  readonly location: string;
  readonly schema: string;
  readonly leaseMs: number;
  /** The connections, their transactions and the error wrapping (the password never passes). */
  private readonly db: PgDatabase;
  private readonly retry: BackoffPolicy;
  private readonly log: LogSink;
  private readonly s: string;
  private ready: Promise<MigrationResult> | undefined;
  /** Claims of this process being renewed. */
  private readonly leases: ClaimLeases;
  private closed = false;
  /** Set on a view (scoped()): the connections whose events it sees; null (every event) otherwise. */
  private readonly scope: ConnectionScope | undefined;
  private readonly opts: PgQueueOptions;
  /** A view's queue: it migrates (once, for all views). */
  private readonly base: PgQueue | undefined;
  private ownCol: ConnectionColumn = 'connection';

  constructor(opts: PgQueueOptions, view?: { of: PgQueue; scope: ConnectionScope }) {
    this.opts = opts;
    this.location = maskQueueUrl(opts.url);
    this.schema = opts.schema ?? DEFAULT_QUEUE_SCHEMA;
    this.s = `"${this.schema}"`;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.retry = { ...QUEUE_BACKOFF, ...opts.retry };
    this.log = opts.log ?? (() => undefined);
    this.scope = view?.scope;
    if (view !== undefined) {
      // A view shares its queue's connections, migration and leases, and never closes them.
      this.db = view.of.db;
      this.leases = view.of.leases;
      this.base = view.of;
      this.closed = true;
      return;
    }
    this.db = new PgDatabase(opts.url, this.location, opts.poolSize ?? 10, this.log);
    this.leases = new ClaimLeases(
      async (token) => (await this.run(`UPDATE ${this.s}.refs SET lease_until = now() + $2 * interval '1 millisecond' WHERE claim_token = $1`, [token, this.leaseMs])).rowCount ?? 0,
      this.leaseMs,
      this.log,
      (error) => this.db.messageOf(error),
    );
  }

  /**
   * Makes the queue usable. With `create`, the tables are created or upgraded now; a database
   * that is not reachable yet is no reason to stop (every later call tries again), one that
   * refuses for good (login, missing database, foreign schema) is. Without `create`, a schema
   * holding no queue is a QueueMissingError and nothing is created.
   */
  async open({ create }: OpenOptions): Promise<void> {
    if (!create) {
      const exists = await this.db
        .withClient((c) => queueExists(c, this.schema))
        .catch((error: unknown) => {
          const permanent = permanentQueueFailure(error);
          throw permanent === undefined ? this.db.wrap(error) : new QueueError(`${permanent} (${this.db.messageOf(error)})`, (error as { code?: string }).code);
        });
      if (!exists) throw new QueueMissingError(this.location, `schema ${this.schema} holds no svc-sync queue (svc-sync serve creates it; check SVC_QUEUE_URL and SVC_QUEUE_SCHEMA)`);
      const column = await this.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' AND column_name = 'connection'`, [
        this.schema,
      ]);
      if (column.rows[0]?.n === 0) this.ownCol = "''";
      // `queue` and `queue retry` use the tables as they are: only `serve` creates or migrates them.
      this.ready = Promise.resolve({ applied: 0, version: 0 });
      return;
    }
    try {
      await this.migrate();
    } catch (error) {
      const permanent = permanentQueueFailure(error);
      if (permanent === undefined) {
        this.log(`webhook queue: database unavailable at start, retrying on use: ${this.db.messageOf(error)}`, 'warn');
        return;
      }
      // No retry changes a refused login or a missing database: stop now rather than answer 503 for a day.
      throw new QueueError(`${permanent} (${this.db.messageOf(error)})`, (error as { code?: string }).code);
    }
  }

  scoped(scope: ConnectionScope): QueueStore {
    return new PgQueue(this.opts, { of: this, scope });
  }

  /** The scope as a query parameter (the connections' keys, null for every event), its home, and the connection column ('' on a queue of an earlier release only read). */
  private get keys(): string[] | null {
    return this.scope === undefined ? null : [...this.scope.keys];
  }
  private get home(): string {
    return this.scope?.home ?? '';
  }
  private get col(): ConnectionColumn {
    return this.base === undefined ? this.ownCol : this.base.col;
  }

  async countsByConnection(): Promise<ConnectionCounts[]> {
    const res = await this.run<{ connection: string; status: EventStatus; outcome: string | null; n: number }>(
      `SELECT ${this.col} AS connection, status, outcome, COUNT(*)::int AS n FROM ${this.s}.events WHERE ($1::text[] IS NULL OR ${this.col} = ANY($1::text[])) GROUP BY 1, status, outcome ORDER BY 1`,
      [this.keys],
    );
    return [...new Set(res.rows.map((r) => r.connection))].map((connection) => ({ connection, counts: countsOf(res.rows.filter((r) => r.connection === connection)) }));
  }

  /** Creates or migrates the tables (once per process; again after a failed attempt). */
  migrate(): Promise<MigrationResult> {
    if (this.base !== undefined) return this.base.migrate();
    this.ready ??= this.db
      .withClient((c) => migrate(c, this.schema))
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    return this.ready;
  }

  /** Budget pacing shared with every receiver on this database, for one API key (hashed by the caller). */
  sharedBudget(key: string): PgBudget {
    return new PgBudget(
      async (sql, params) => {
        await this.migrate();
        return (await this.db.query(sql, params)).rows;
      },
      this.s,
      key,
    );
  }

  async enqueueMany(inputs: readonly EnqueueInput[], now: number = Date.now()): Promise<EnqueueResult[]> {
    if (inputs.length === 0) return [];
    // Stored through a connection's view: the event is that connection's.
    const rows = inputs.map((input) => eventRowOf(input.connection === undefined ? { ...input, connection: this.home } : input));
    const ids = await this.tx((c) => insertEvents(c, this.s, rows, now));
    return rows.map((r, i) => ({ id: ids[i] as number, status: r.status }));
  }

  /** The group in one transaction, or each event alone when the database refuses a value (pgStatements.ts). */
  enqueueEach(inputs: readonly EnqueueInput[], now: number = Date.now()): Promise<Array<EnqueueResult | EnqueueRejected>> {
    return enqueueIsolating((group) => this.enqueueMany(group, now), inputs);
  }

  async claimBatch(maxRefs: number, now: number = Date.now()): Promise<ClaimedBatch | undefined> {
    const token = randomUUID();
    const batch = await this.tx((c) => claimRefs(c, this.s, { token, now, maxRefs, leaseMs: this.leaseMs, keys: this.keys }));
    if (batch !== undefined) this.leases.hold(token);
    return batch;
  }

  async complete(token: string, outcomes: readonly EventOutcome[], owners: readonly OwnerPair[] = [], now: number = Date.now()): Promise<number> {
    const done: Array<{ id: number; outcome: string; reason: string | null }> = [];
    const failed: Array<{ id: number; error: string }> = [];
    for (const o of outcomes) {
      for (const id of o.eventIds) {
        if (o.status === 'failed') failed.push({ id, error: o.error.slice(0, 2000) });
        else done.push({ id, outcome: o.status, reason: o.reason ?? null });
      }
    }
    const recorded = await this.tx(async (c) => {
      let n = 0;
      if (done.length > 0) {
        const res = await c.query(
          `UPDATE ${this.s}.events e SET status = 'done', outcome = u.outcome, reason = u.reason, last_error = NULL, finished_at = $2, claim_token = NULL
             FROM unnest($3::bigint[], $4::text[], $5::text[]) AS u(id, outcome, reason)
            WHERE e.id = u.id AND e.claim_token = $1`,
          [token, now, done.map((d) => d.id), done.map((d) => d.outcome), done.map((d) => d.reason)],
        );
        n += res.rowCount ?? 0;
      }
      if (failed.length > 0) {
        // Delay = base * 2^(failures so far), capped: the SQLite queue's rule.
        const res = await c.query(
          `UPDATE ${this.s}.events e SET status = 'failed', attempts = e.attempts + 1, last_error = u.err,
              next_attempt_at = $2 + LEAST($3::bigint, $4::bigint << LEAST(e.attempts, 30)), claim_token = NULL
             FROM unnest($5::bigint[], $6::text[]) AS u(id, err)
            WHERE e.id = u.id AND e.claim_token = $1`,
          [token, now, this.retry.maxMs, this.retry.baseMs, failed.map((f) => f.id), failed.map((f) => f.error)],
        );
        n += res.rowCount ?? 0;
      }
      await upsertOwners(c, this.s, owners, now, this.home);
      await releaseRefs(c, this.s, token);
      return n;
    });
    this.leases.drop(token);
    return recorded;
  }

  async releaseClaim(token: string, reason: string, now: number = Date.now()): Promise<number> {
    const n = await this.tx(async (c) => {
      const res = await c.query(
        `UPDATE ${this.s}.events SET status = 'pending', claim_token = NULL, last_error = $2, next_attempt_at = $3
          WHERE claim_token = $1 AND status = 'processing'`,
        [token, reason.slice(0, 2000), now],
      );
      await releaseRefs(c, this.s, token);
      return res.rowCount ?? 0;
    });
    this.leases.drop(token);
    return n;
  }

  /**
   * Other receivers may be working: only claims whose lease ran out are returned to pending
   * (a crashed receiver's), never a live receiver's batch.
   */
  async recoverInterrupted(now: number = Date.now()): Promise<number> {
    const res = await this.tx((c) =>
      c.query<{ n: string }>(
        `WITH expired AS (
           SELECT connection, ref_type, ref_id, claim_token FROM ${this.s}.refs
            WHERE claim_token IS NOT NULL AND lease_until < now() AND ($3::text[] IS NULL OR connection = ANY($3::text[]))
            ORDER BY connection, ref_type, ref_id FOR UPDATE SKIP LOCKED),
         ev AS (
           UPDATE ${this.s}.events e SET status = 'pending', claim_token = NULL, attempts = e.attempts + 1,
                  last_error = $2, next_attempt_at = LEAST(e.next_attempt_at, $1)
             FROM expired x WHERE e.claim_token = x.claim_token AND e.status = 'processing'
           RETURNING e.id),
         rf AS (
           UPDATE ${this.s}.refs r SET claim_token = NULL, lease_until = NULL
             FROM expired x WHERE r.connection = x.connection AND r.ref_type = x.ref_type AND r.ref_id = x.ref_id)
         SELECT COUNT(*) AS n FROM ev`,
        [now, INTERRUPTED, this.keys],
      ),
    );
    return Number(res.rows[0]?.n ?? 0);
  }

  async actionsOwnedBy(userId: number): Promise<number[]> {
    const res = await this.run<{ action_id: string }>(`SELECT action_id FROM ${this.s}.action_owners WHERE user_id = $1 AND connection = $2 ORDER BY action_id`, [userId, this.home]);
    return res.rows.map((r) => Number(r.action_id));
  }

  async counts(): Promise<QueueCounts> {
    const res = await this.run<{ status: EventStatus; outcome: string | null; n: number }>(
      `SELECT status, outcome, COUNT(*)::int AS n FROM ${this.s}.events WHERE ($1::text[] IS NULL OR ${this.col} = ANY($1::text[])) GROUP BY status, outcome`,
      [this.keys],
    );
    return countsOf(res.rows);
  }

  async failedEvents(limit = 100): Promise<FailedEvent[]> {
    const res = await this.run<FailedRow>(
      `SELECT ${failedColumns(this.col)} FROM ${this.s}.events WHERE status = 'failed' AND ($2::text[] IS NULL OR ${this.col} = ANY($2::text[])) ORDER BY id LIMIT $1`,
      [limit, this.keys],
    );
    return res.rows.map(failedEventOf);
  }

  async ignoredReasons(limit = 20): Promise<IgnoredReason[]> {
    const scope = ` AND ($2::text[] IS NULL OR ${this.col} = ANY($2::text[]))`;
    return (await this.run<IgnoredRow>(ignoredSql(`${this.s}.events`, this.col, scope, '$1'), [limit, this.keys])).rows.map(ignoredReasonOf);
  }

  async retryFailed(now: number = Date.now()): Promise<number> {
    const res = await this.run(`UPDATE ${this.s}.events SET status = 'pending', next_attempt_at = $1 WHERE status = 'failed' AND ($2::text[] IS NULL OR ${this.col} = ANY($2::text[]))`, [
      now,
      this.keys,
    ]);
    return res.rowCount ?? 0;
  }

  /** Due open events of records no live claim holds: what a batch here could take. */
  async dueSummary(now: number = Date.now()): Promise<DueSummary | undefined> {
    // Events of a claim whose lease ran out count too (due since the lease ended): a receiver that
    // died mid-batch must be taken over, and the worker must not spin on "due now" with nothing due.
    const res = await this.run<{ events: number; refs: number; first: string | null; expired: boolean | null }>(
      `SELECT COUNT(*)::int AS events, COUNT(DISTINCT (e.ref_type, e.ref_id))::int AS refs,
              MIN(CASE WHEN e.status = 'processing' THEN (EXTRACT(EPOCH FROM r.lease_until) * 1000)::bigint ELSE e.next_attempt_at END) AS first,
              BOOL_OR(e.status = 'processing') AS expired
         FROM ${this.s}.events e JOIN ${this.s}.refs r ON r.connection = e.connection AND r.ref_type = e.ref_type AND r.ref_id = e.ref_id
        WHERE ($2::text[] IS NULL OR e.connection = ANY($2::text[]))
          AND ((e.status IN ('pending','failed') AND e.next_attempt_at <= $1 AND (r.claim_token IS NULL OR r.lease_until < now()))
           OR (e.status = 'processing' AND r.claim_token IS NOT NULL AND r.lease_until < now()))`,
      [now, this.keys],
    );
    const row = res.rows[0];
    if (row === undefined || row.first === null) return undefined;
    return { events: row.events, refs: row.refs, firstDueAt: Number(row.first), ...(row.expired ? { expiredClaims: true } : {}) };
  }

  /** Open events of records another receiver holds are not "due" here: their claim ends first. */
  async nextDueAt(): Promise<number | undefined> {
    const res = await this.run<{ t: string | null; expired: boolean }>(
      `SELECT (SELECT MIN(e.next_attempt_at) FROM ${this.s}.events e JOIN ${this.s}.refs r ON r.connection = e.connection AND r.ref_type = e.ref_type AND r.ref_id = e.ref_id
                WHERE e.status IN ('pending','failed') AND (r.claim_token IS NULL OR r.lease_until < now()) AND ($1::text[] IS NULL OR e.connection = ANY($1::text[]))) AS t,
              EXISTS (SELECT 1 FROM ${this.s}.refs WHERE claim_token IS NOT NULL AND lease_until < now() AND ($1::text[] IS NULL OR connection = ANY($1::text[]))) AS expired`,
      [this.keys],
    );
    const row = res.rows[0];
    if (row?.expired) return Date.now();
    return row?.t === null || row?.t === undefined ? undefined : Number(row.t);
  }

  async prune(keepDays: number, now: number = Date.now()): Promise<number> {
    return this.tx(async (c) => {
      const res = await c.query(`DELETE FROM ${this.s}.events WHERE status IN ('done','ignored') AND finished_at < $1`, [now - keepDays * DAY_MS]);
      // Records with no open event lose their claim row; rows an enqueue holds are skipped.
      await c.query(
        `DELETE FROM ${this.s}.refs WHERE (connection, ref_type, ref_id) IN (
           SELECT r.connection, r.ref_type, r.ref_id FROM ${this.s}.refs r
            WHERE r.claim_token IS NULL
              AND NOT EXISTS (SELECT 1 FROM ${this.s}.events e WHERE e.connection = r.connection AND e.ref_type = r.ref_type AND e.ref_id = r.ref_id AND e.status IN ('pending','failed','processing'))
            FOR UPDATE SKIP LOCKED)`,
      );
      return res.rowCount ?? 0;
    });
  }

  /** What the durability promise rests on, as the server reports it (tests, doctor). */
  durability(): Promise<{ synchronousCommit: string; fsync: string }> {
    return this.db.durability();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leases.dropAll();
    await this.db.close();
  }

  private async run<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    await this.migrate().catch((error: unknown) => {
      throw this.db.wrap(error);
    });
    return this.db.query<R>(sql, params);
  }

  /** One transaction, once the tables are there. */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.migrate().catch((error: unknown) => {
      throw this.db.wrap(error);
    });
    return this.db.tx(fn);
  }
}
