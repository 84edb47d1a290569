/** Statements of the PostgreSQL queue used inside its transactions (`s`: the quoted schema). */
import type pg from 'pg';
import type { OwnerPair } from '../../model/outcomes.js';

/** The database refused a value of the event (data exception, integrity violation), not the storage. */
export function refusedValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
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
