/**
 * Which file the SQLite queue is asked to open: an svc-sync queue (and of which schema version),
 * an empty file, or something else (another application's database, a newer release's queue).
 * Only a queue of ours is ever written to; `svc-sync queue` decides before opening the file for
 * reading as SQLite does (a read-only connection to a WAL database would leave -wal and -shm files
 * beside it), through an immutable connection: no lock, no file made beside it.
 *
 * The mark: SQLite's header field application_id holds QUEUE_APP_ID, user_version the schema
 * version. A queue of a release before the mark (version 0) is recognised by its tables.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { ConfigError } from '../../model/errors.js';
import { openDatabase, pragma, statement, transaction, type DatabaseSync } from './sqliteDb.js';

/** "svsq": what marks a SQLite file as an svc-sync webhook queue. */
const QUEUE_APP_ID = 0x73767371;

/** The tables of the queue's schema steps (and SQLite's own sqlite_sequence, left out when listing). */
const OWN_TABLES = new Set(['events', 'action_owners']);
/** Columns a version-0 queue's events table has: a table without them is not one we can read. */
const EVENT_COLUMNS = ['id', 'received_at', 'raw', 'object_type', 'object_id', 'event_type', 'application', 'status', 'ref_type', 'ref_id', 'claim_token', 'next_attempt_at'];

type QueueIdentity = { kind: 'empty' } | { kind: 'queue'; version: number } | { kind: 'newer'; version: number } | { kind: 'foreign'; why: string };

/** The identity as an open connection sees it (inside a transaction: what is committed now). */
export function identify(db: DatabaseSync, latest: number): QueueIdentity {
  const appId = Number(pragma(db, 'application_id'));
  const version = Number(pragma(db, 'user_version'));
  if (appId === QUEUE_APP_ID) return version > latest ? { kind: 'newer', version } : { kind: 'queue', version };
  if (appId !== 0) return { kind: 'foreign', why: `its application_id ${appId} is another application's` };
  const tables = (statement(db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name);
  if (tables.length === 0 && version === 0) return { kind: 'empty' };
  const others = tables.filter((t) => !OWN_TABLES.has(t));
  if (version !== 0 || others.length > 0 || !tables.includes('events')) {
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ` and ${tables.length - 5} more` : '');
    return { kind: 'foreign', why: tables.length === 0 ? `its user_version ${version} is another application's` : `it holds tables svc-sync did not create (${shown})` };
  }
  const columns = new Set((statement(db, 'SELECT name FROM pragma_table_info(?)').all('events') as Array<{ name: string }>).map((c) => c.name));
  const missing = EVENT_COLUMNS.filter((c) => !columns.has(c));
  if (missing.length > 0) return { kind: 'foreign', why: `its events table has no column ${missing.join(', ')} (a queue of an unknown version, or another application's table)` };
  return { kind: 'queue', version: 0 };
}

/**
 * The identity of the file at `file`, read through an immutable connection (no lock taken, no
 * file made beside it): undefined when that cannot tell (a WAL file in use: what is committed may
 * be in the -wal file only), and then the caller asks an open connection. A missing file is
 * `empty` too.
 */
export function identifyFile(file: string, latest: number): QueueIdentity | undefined {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return undefined;
    size = stat.size;
  } catch {
    return { kind: 'empty' };
  }
  if (size === 0) return { kind: 'empty' };
  // A WAL file in use: what is committed may be in the -wal file only, which only a connection
  // that takes the file's locks reads.
  if (existsSync(`${file}-wal`)) return undefined;
  const head = Buffer.alloc(Math.min(size, 100));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const rawPageSize = head.length >= 100 ? head.readUInt16BE(16) : 0;
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  if (head.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000' || pageSize < 512 || size < pageSize) {
    throw Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
  }
  try {
    const db = openDatabase(file, { immutable: true });
    try {
      return identify(db, latest);
    } finally {
      db.close();
    }
  } catch {
    // Not readable so (a file another process is changing): an ordinary connection is asked.
    return undefined;
  }
}

/** A file that is not a queue of this release, as one line naming it and the fix (exit 2). */
export function identityError(file: string, identity: QueueIdentity, latest: number): ConfigError | undefined {
  if (identity.kind === 'foreign') {
    return new ConfigError(`queue file ${file}: is not an svc-sync queue (${identity.why}); nothing was changed in it: point --queue or SVC_QUEUE_PATH at another path`);
  }
  if (identity.kind === 'newer') {
    return new ConfigError(
      `queue file ${file}: its schema version ${identity.version} is newer than this release's (${latest}): a later svc-sync wrote it; run that release, or point --queue or SVC_QUEUE_PATH at another path`,
    );
  }
  return undefined;
}

/**
 * Brings a queue (or an empty file) to version `steps.length` in one transaction: each step not
 * yet applied, then the mark. Checked again inside the transaction, so a second process starting
 * at once finds the work done; a newer or foreign file is refused and nothing is written.
 */
export function migrateQueue(db: DatabaseSync, file: string, steps: readonly string[]): void {
  const latest = steps.length;
  transaction(
    db,
    () => {
      const identity = identify(db, latest);
      const refused = identityError(file, identity, latest);
      if (refused !== undefined) throw refused;
      const from = identity.kind === 'queue' ? identity.version : 0;
      for (let v = from; v < latest; v++) db.exec(steps[v] as string);
      if (identity.kind !== 'queue' || identity.version !== latest) pragma(db, `application_id = ${QUEUE_APP_ID}`);
      // Written on every start, even unchanged: BEGIN IMMEDIATE succeeds on a file SQLite opened
      // read-only (its folder writable), and only a write proves that events can be stored.
      pragma(db, `user_version = ${latest}`);
    },
    'IMMEDIATE',
  );
}
