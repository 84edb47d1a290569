/** Statements of the PostgreSQL queue used inside its transactions (`s`: the quoted schema). */
import type pg from 'pg';
import type { OwnerPair } from '../../model/outcomes.js';
import type { EnqueueInput, EnqueueRejected, EnqueueResult, EventRow } from './store.js';

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
  const refs = new Map<string, { type: string; id: number }>();
  for (const r of rows) if (r.ref !== undefined && r.status === 'pending') refs.set(`${r.ref.type}:${r.ref.id}`, r.ref);
  // Sorted, so concurrent receivers lock refs rows in one order and cannot deadlock.
  const sortedRefs = [...refs.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id - b.id));
  if (sortedRefs.length > 0) {
    // DO UPDATE (not NOTHING) locks the row until commit, so a concurrent prune skips it.
    await c.query(
      `INSERT INTO ${s}.refs (ref_type, ref_id)
         SELECT * FROM unnest($1::text[], $2::bigint[])
       ON CONFLICT (ref_type, ref_id) DO UPDATE SET ref_type = EXCLUDED.ref_type`,
      [sortedRefs.map((r) => r.type), sortedRefs.map((r) => r.id)],
    );
  }
  const res = await c.query<{ id: string }>(
    `INSERT INTO ${s}.events (received_at, raw, object_type, object_id, event_type, application, site_id,
       ref_type, ref_id, status, reason, next_attempt_at, finished_at)
     SELECT $1, u.raw, u.ot, u.oid, u.et, u.app, u.site, u.rt, u.rid, u.st, u.reason, $1, CASE WHEN u.st = 'ignored' THEN $1::bigint END
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::text[], $11::text[])
            WITH ORDINALITY AS u(raw, ot, oid, et, app, site, rt, rid, st, reason, ord)
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
    ],
  );
  // Ids come from one sequence in input order: sorted ids line up with the inputs.
  return res.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Ends a claim: its records may be claimed again (rows locked in key order: no deadlock with enqueue). */
export async function releaseRefs(c: pg.PoolClient, s: string, token: string): Promise<void> {
  await c.query(
    `UPDATE ${s}.refs SET claim_token = NULL, lease_until = NULL
      WHERE (ref_type, ref_id) IN (SELECT ref_type, ref_id FROM ${s}.refs WHERE claim_token = $1 ORDER BY ref_type, ref_id FOR UPDATE)`,
    [token],
  );
}

/** The owners the engine saw (users.update finds an owner's actions by them). */
export async function upsertOwners(c: pg.PoolClient, s: string, owners: readonly OwnerPair[], now: number): Promise<void> {
  if (owners.length === 0) return;
  // One row per action (a statement may not update a row twice): the last pair wins, as in SQLite.
  const byAction = new Map<number, number>();
  for (const p of owners) byAction.set(p.actionId, p.userId);
  const actions = [...byAction.keys()].sort((a, b) => a - b);
  await c.query(
    `INSERT INTO ${s}.action_owners (action_id, user_id, updated_at)
       SELECT a, u, $3 FROM unnest($1::bigint[], $2::bigint[]) AS x(a, u)
     ON CONFLICT (action_id) DO UPDATE SET user_id = EXCLUDED.user_id, updated_at = EXCLUDED.updated_at`,
    [actions, actions.map((a) => byAction.get(a)), now],
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
