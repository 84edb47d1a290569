/**
 * The PostgreSQL queue's tables, created and migrated at start. Several receivers may start at
 * once: the migrations run inside one transaction holding a transaction-level advisory lock, so
 * one process migrates and the others wait, then find every step applied and do nothing.
 */
import type pg from 'pg';
import { DEFAULT_QUEUE_SCHEMA } from '../../config/webhookSettings.js';

/** Lowercase identifiers only: the name is interpolated into SQL (quoted), so it is checked first. */
function checkSchemaName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`SVC_QUEUE_SCHEMA ${JSON.stringify(name)}: must be a lowercase PostgreSQL identifier (letters, digits, _; at most 63)`);
  }
  return name;
}

/** What marks a schema as the queue's own (a comment on the schema). */
const SCHEMA_MARK = 'svc-sync webhook queue';

/** The queue's tables: a schema holding any other was not made by it. */
const OWN_TABLES = new Set(['schema_migrations', 'events', 'refs', 'action_owners', 'rate_budget']);

/** The queue refuses a schema that holds tables it did not create (another application's): it would write into them. */
class ForeignSchemaError extends Error {
  override readonly name = 'ForeignSchemaError';
  /** Kept through the queue's error wrapping, so the start can tell it is permanent. */
  readonly code = FOREIGN_SCHEMA;
}

const FOREIGN_SCHEMA = 'SVC_FOREIGN_SCHEMA';

/**
 * A schema the queue may use: new (created and marked here), marked as the queue's, empty, or made
 * by an earlier release (our migrations table and our events table, recognised by their columns).
 * Anything else (public beside another application's `events`, a schema of a Rails app) is refused.
 */
async function claimSchema(client: pg.ClientBase, schema: string, s: string): Promise<void> {
  const ns = await client.query<{ mark: string | null }>(`SELECT obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname = $1`, [schema]);
  if (ns.rows.length > 0 && ns.rows[0]?.mark !== SCHEMA_MARK) {
    const tables = (await client.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [schema])).rows.map((r) => r.t);
    const foreign = tables.filter((t) => !OWN_TABLES.has(t));
    const cols = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name IN ('schema_migrations', 'events')`,
      [schema],
    );
    const has = (table: string, column: string): boolean => cols.rows.some((r) => r.table_name === table && r.column_name === column);
    const ours = tables.length === 0 || (foreign.length === 0 && has('schema_migrations', 'applied_at') && has('events', 'claim_token') && has('events', 'ref_type'));
    if (!ours) {
      const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ` and ${tables.length - 5} more` : '');
      throw new ForeignSchemaError(`SVC_QUEUE_SCHEMA ${schema}: holds tables svc-sync did not create (${shown}); give the queue a schema of its own (default ${DEFAULT_QUEUE_SCHEMA})`);
    }
  }
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  if (ns.rows[0]?.mark !== SCHEMA_MARK) await client.query(`COMMENT ON SCHEMA ${s} IS '${SCHEMA_MARK}'`);
}

/**
 * Each step runs once, in order, recorded in schema_migrations. A later release appends steps;
 * it never edits one that has shipped.
 */
function migrations(s: string): string[] {
  return [
    `CREATE TABLE ${s}.events (
       id              BIGSERIAL PRIMARY KEY,
       received_at     BIGINT NOT NULL,
       raw             TEXT NOT NULL,
       object_type     TEXT NOT NULL,
       object_id       BIGINT NOT NULL,
       event_type      TEXT NOT NULL,
       application     TEXT NOT NULL,
       site_id         BIGINT,
       ref_type        TEXT,
       ref_id          BIGINT,
       status          TEXT NOT NULL CHECK (status IN ('pending','processing','done','failed','ignored')),
       outcome         TEXT CHECK (outcome IN ('done','skipped')),
       reason          TEXT,
       attempts        INTEGER NOT NULL DEFAULT 0,
       last_error      TEXT,
       next_attempt_at BIGINT NOT NULL,
       claim_token     TEXT,
       finished_at     BIGINT
     );
     CREATE INDEX events_open ON ${s}.events (ref_type, ref_id) WHERE status IN ('pending','failed','processing');
     CREATE INDEX events_due ON ${s}.events (next_attempt_at) WHERE status IN ('pending','failed');
     CREATE INDEX events_claim ON ${s}.events (claim_token) WHERE claim_token IS NOT NULL;
     CREATE INDEX events_finished ON ${s}.events (finished_at) WHERE status IN ('done','ignored');
     -- One row per record with open events: the unit a receiver claims, so two receivers never
     -- sync the same record at once, and events arriving meanwhile wait for the claim to end.
     CREATE TABLE ${s}.refs (
       ref_type    TEXT NOT NULL,
       ref_id      BIGINT NOT NULL,
       claim_token TEXT,
       lease_until TIMESTAMPTZ,
       PRIMARY KEY (ref_type, ref_id)
     );
     CREATE INDEX refs_claim ON ${s}.refs (claim_token) WHERE claim_token IS NOT NULL;
     CREATE TABLE ${s}.action_owners (
       action_id  BIGINT PRIMARY KEY,
       user_id    BIGINT NOT NULL,
       updated_at BIGINT NOT NULL
     );
     CREATE INDEX action_owners_user ON ${s}.action_owners (user_id);
     -- The platform's rate-limit budget as last seen by any receiver, per API key (hashed).
     CREATE TABLE ${s}.rate_budget (
       key              TEXT PRIMARY KEY,
       remaining_minute INTEGER,
       minute_reset_at  BIGINT,
       remaining_hour   INTEGER,
       hour_reset_at    BIGINT,
       blocked_until    BIGINT NOT NULL DEFAULT 0,
       -- Requests granted so far: a reading is discounted by the grants made after its request.
       granted          BIGINT NOT NULL DEFAULT 0,
       updated_at       BIGINT NOT NULL DEFAULT 0
     );`,
    // 2: the connection each event was routed to ('' : the implicit one, and every earlier event).
    // Two sites' record and action ids may be the same numbers: claims and owners are per connection.
    `ALTER TABLE ${s}.events ADD COLUMN connection TEXT NOT NULL DEFAULT '';
     ALTER TABLE ${s}.refs ADD COLUMN connection TEXT NOT NULL DEFAULT '';
     ALTER TABLE ${s}.refs DROP CONSTRAINT refs_pkey;
     ALTER TABLE ${s}.refs ADD PRIMARY KEY (connection, ref_type, ref_id);
     ALTER TABLE ${s}.action_owners ADD COLUMN connection TEXT NOT NULL DEFAULT '';
     ALTER TABLE ${s}.action_owners DROP CONSTRAINT action_owners_pkey;
     ALTER TABLE ${s}.action_owners ADD PRIMARY KEY (connection, action_id);
     DROP INDEX ${s}.action_owners_user;
     CREATE INDEX action_owners_user ON ${s}.action_owners (connection, user_id);
     DROP INDEX ${s}.events_open;
     CREATE INDEX events_open ON ${s}.events (connection, ref_type, ref_id) WHERE status IN ('pending','failed','processing');`,
  ];
}

export interface MigrationResult {
  /** Steps this call applied (0 when another process had applied them all). */
  applied: number;
  version: number;
}

/** The schema version this release writes and reads (its number of migration steps). */
const LATEST = migrations('""').length;

/** A queue whose schema a later release migrated: this release would misread or miswrite it (a rolled-back deploy). */
class NewerSchemaError extends Error {
  override readonly name = 'NewerSchemaError';
  /** Kept through the queue's error wrapping, so the start can tell it is permanent. */
  readonly code = NEWER_SCHEMA;
}

const NEWER_SCHEMA = 'SVC_NEWER_SCHEMA';

function refuseNewer(schema: string, version: number): void {
  if (version > LATEST) {
    throw new NewerSchemaError(
      `SVC_QUEUE_SCHEMA ${schema}: its schema version ${version} is newer than this release's (${LATEST}): a later svc-sync migrated it; run that release, or give this one a schema of its own`,
    );
  }
}

/**
 * Whether the schema holds an svc-sync queue (its migrations table); asks without creating
 * anything. A queue of a newer release is refused (NewerSchemaError).
 */
export async function queueExists(client: pg.ClientBase, schema: string): Promise<boolean> {
  const s = `"${checkSchemaName(schema)}"`;
  const found = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${s}.schema_migrations`]);
  if ((found.rows[0]?.t ?? null) === null) return false;
  const done = await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${s}.schema_migrations`);
  refuseNewer(schema, done.rows[0]?.v ?? 0);
  return true;
}

const LOCK_KEY = 'svc-sync webhook queue migrations';

export async function migrate(client: pg.ClientBase, schema: string): Promise<MigrationResult> {
  const s = `"${checkSchemaName(schema)}"`;
  const steps = migrations(s);
  await client.query('BEGIN');
  try {
    // Held until COMMIT: concurrent starts queue here instead of racing on CREATE.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${LOCK_KEY}:${schema}`]);
    await claimSchema(client, schema, s);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const done = await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${s}.schema_migrations`);
    const current = done.rows[0]?.v ?? 0;
    refuseNewer(schema, current);
    let applied = 0;
    for (let i = current; i < steps.length; i++) {
      await client.query(steps[i] as string);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [i + 1]);
      applied++;
    }
    await client.query('COMMIT');
    return { applied, version: steps.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
