/** Statements of the PostgreSQL queue used inside its transactions (`s`: the quoted schema). */
import type pg from 'pg';
import type { OwnerPair } from '../../model/outcomes.js';
import { noteOldest, type ClaimedBatch, type ClaimedRef, type EnqueueInput, type EnqueueRejected, type EnqueueResult, type EventRow, type QueueRefType } from './store.js';

/** The database refused a value of the event (data exception, integrity violation), not the storage. */
function refusedValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Stores received events (their refs' rows first, so a claim can lock them) and returns their ids
 * in input order.
 */
export async function insertEvents(c: pg.PoolClient, s: string, rows: readonly EventRow[], now: number): Promise<number[]> {
  const refs = new Map<string, { connection: string; type: string; id: number }>();
  for (const r of rows) if (r.ref !== undefined && r.status === 'pending') refs.set(`${r.connection}\n${r.ref.type}:${r.ref.id}`, { connection: r.connection, ...r.ref });
  // Sorted, so concurrent receivers lock refs rows in one order and cannot deadlock.
  const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const sortedRefs = [...refs.values()].sort((a, b) => order(a.connection, b.connection) || order(a.type, b.type) || a.id - b.id);
  if (sortedRefs.length > 0) {
    // DO UPDATE (not NOTHING) locks the row until commit, so a concurrent prune skips it.
    await c.query(
      `INSERT INTO ${s}.refs (connection, ref_type, ref_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
       ON CONFLICT (connection, ref_type, ref_id) DO UPDATE SET ref_type = EXCLUDED.ref_type`,
      [sortedRefs.map((r) => r.connection), sortedRefs.map((r) => r.type), sortedRefs.map((r) => r.id)],
    );
  }
  const res = await c.query<{ id: string }>(
    `INSERT INTO ${s}.events (received_at, raw, object_type, object_id, event_type, application, site_id,
       ref_type, ref_id, status, reason, next_attempt_at, finished_at, connection)
     SELECT $1, u.raw, u.ot, u.oid, u.et, u.app, u.site, u.rt, u.rid, u.st, u.reason, $1, CASE WHEN u.st = 'ignored' THEN $1::bigint END, u.conn
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[])
            WITH ORDINALITY AS u(raw, ot, oid, et, app, site, rt, rid, st, reason, conn, ord)
      ORDER BY u.ord
     RETURNING id`,
    [
      now,
      rows.map((r) => r.raw),
      rows.map((r) => r.message.objectType),
      rows.map((r) => r.message.objectId),
      rows.map((r) => r.message.eventType),
      rows.map((r) => r.message.application),
      rows.map((r) => r.message.siteId ?? null),
      rows.map((r) => r.ref?.type ?? null),
      rows.map((r) => r.ref?.id ?? null),
      rows.map((r) => r.status),
      rows.map((r) => r.reason),
      rows.map((r) => r.connection),
    ],
  );
  // Ids come from one sequence in input order: sorted ids line up with the inputs.
  return res.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Ends a claim: its records may be claimed again (rows locked in key order: no deadlock with enqueue). */
export async function releaseRefs(c: pg.PoolClient, s: string, token: string): Promise<void> {
  await c.query(
    `UPDATE ${s}.refs SET claim_token = NULL, lease_until = NULL
      WHERE (connection, ref_type, ref_id) IN (SELECT connection, ref_type, ref_id FROM ${s}.refs WHERE claim_token = $1 ORDER BY connection, ref_type, ref_id FOR UPDATE)`,
    [token],
  );
}

/** The owners the engine saw (users.update finds an owner's actions by them). */
export async function upsertOwners(c: pg.PoolClient, s: string, owners: readonly OwnerPair[], now: number, connection: string): Promise<void> {
  if (owners.length === 0) return;
  // One row per action (a statement may not update a row twice): the last pair wins, as in SQLite.
  const byAction = new Map<number, number>();
  for (const p of owners) byAction.set(p.actionId, p.userId);
  const actions = [...byAction.keys()].sort((a, b) => a - b);
  await c.query(
    `INSERT INTO ${s}.action_owners (connection, action_id, user_id, updated_at)
       SELECT $4, a, u, $3 FROM unnest($1::bigint[], $2::bigint[]) AS x(a, u)
     ON CONFLICT (connection, action_id) DO UPDATE SET user_id = EXCLUDED.user_id, updated_at = EXCLUDED.updated_at`,
    [actions, actions.map((a) => byAction.get(a)), now, connection],
  );
}

/**
 * The whole group in one transaction; when the database refuses a value (SQLSTATE class 22, data,
 * or 23, integrity: a NUL character, a number out of range), each event is stored in a transaction
 * of its own, so only the refused one is answered 400 and the others are kept.
 */
export async function enqueueIsolating(enqueue: (group: readonly EnqueueInput[]) => Promise<EnqueueResult[]>, inputs: readonly EnqueueInput[]): Promise<Array<EnqueueResult | EnqueueRejected>> {
  try {
    return await enqueue(inputs);
  } catch (error) {
    if (!refusedValue(error)) throw error;
  }
  const results: Array<EnqueueResult | EnqueueRejected> = [];
  for (const input of inputs) {
    try {
      const [stored] = await enqueue([input]);
      results.push(stored ?? { error: new Error('the queue returned no row') });
    } catch (error) {
      if (!refusedValue(error)) throw error;
      results.push({ error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
  return results;
}

/** What one claim takes: its token, the time, how many records, the lease, and the connections' keys (null: any). */
interface ClaimInput {
  token: string;
  now: number;
  maxRefs: number;
  leaseMs: number;
  keys: string[] | null;
}

/** Events still 'processing' of an expired claim are counted as an interrupted attempt. */
export const INTERRUPTED = 'interrupted: the process stopped before the outcome was recorded';

/** Claims up to maxRefs records with a due event (or events of a claim whose lease ran out), with all their open events. */
export async function claimRefs(c: pg.PoolClient, s: string, o: ClaimInput): Promise<ClaimedBatch | undefined> {
  // Candidates: records with a due event, or with events of a claim whose lease ran out.
  const picked = await c.query<{ connection: string; ref_type: QueueRefType; ref_id: string }>(
    `WITH cand AS (
       SELECT e.connection, e.ref_type, e.ref_id, MIN(e.id) AS first_id
         FROM ${s}.events e
        WHERE e.ref_type IS NOT NULL AND ($3::text[] IS NULL OR e.connection = ANY($3::text[]))
          AND (e.status = 'processing' OR (e.status IN ('pending','failed') AND e.next_attempt_at <= $1))
        GROUP BY e.connection, e.ref_type, e.ref_id)
     SELECT r.connection, r.ref_type, r.ref_id FROM ${s}.refs r
       JOIN cand ON cand.connection = r.connection AND cand.ref_type = r.ref_type AND cand.ref_id = r.ref_id
      WHERE r.claim_token IS NULL OR r.lease_until < now()
      ORDER BY cand.first_id
      LIMIT $2
      FOR UPDATE OF r SKIP LOCKED`,
    [o.now, o.maxRefs, o.keys],
  );
  if (picked.rows.length === 0) return undefined;
  const conns = picked.rows.map((r) => r.connection);
  const types = picked.rows.map((r) => r.ref_type);
  const ids = picked.rows.map((r) => r.ref_id);
  await c.query(
    `UPDATE ${s}.refs SET claim_token = $1, lease_until = now() + $2 * interval '1 millisecond'
      WHERE (connection, ref_type, ref_id) IN (SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[]))`,
    [o.token, o.leaseMs, conns, types, ids],
  );
  // Events still 'processing' belong to an expired claim: counted as an interrupted attempt.
  const claimed = await c.query<{ id: string; connection: string; ref_type: QueueRefType; ref_id: string; received_at: string }>(
    `UPDATE ${s}.events SET
        attempts = attempts + CASE WHEN status = 'processing' THEN 1 ELSE 0 END,
        last_error = CASE WHEN status = 'processing' THEN $2 ELSE last_error END,
        status = 'processing', claim_token = $1
      WHERE (connection, ref_type, ref_id) IN (SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[]))
        AND status IN ('pending','failed','processing')
      RETURNING id, connection, ref_type, ref_id, received_at`,
    [o.token, INTERRUPTED, conns, types, ids],
  );
  const byRef = new Map<string, number[]>();
  let oldestReceivedAt = o.now;
  const oldestByType: ClaimedBatch['oldestByType'] = {};
  for (const row of claimed.rows) {
    const key = `${row.connection}\n${row.ref_type}:${row.ref_id}`;
    const list = byRef.get(key) ?? [];
    list.push(Number(row.id));
    byRef.set(key, list);
    oldestReceivedAt = Math.min(oldestReceivedAt, Number(row.received_at));
    noteOldest(oldestByType, row.ref_type, Number(row.received_at));
  }
  const refs = picked.rows.map((r): ClaimedRef => ({
    refType: r.ref_type,
    refId: Number(r.ref_id),
    eventIds: (byRef.get(`${r.connection}\n${r.ref_type}:${r.ref_id}`) ?? []).sort((a, b) => a - b),
  }));
  return { token: o.token, refs, eventCount: claimed.rows.length, oldestReceivedAt, oldestByType };
}
