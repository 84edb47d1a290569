/**
 * SQLite's own messages ("unable to open database file", "file is not a database") name neither
 * the file nor the fix. These turn them into one line that does both; a file that cannot serve as
 * the queue is a configuration problem (exit 2), not a failed run.
 */
import { ConfigError } from '../../model/errors.js';

/** SQLite result codes (better-sqlite3 puts them in `code`) that mean the file itself is unusable. */
const FILE_PROBLEMS: Array<[RegExp, string]> = [
  [/^SQLITE_CANTOPEN/, 'cannot be opened: check that its directory exists and that this user may read and write both'],
  [/^SQLITE_NOTADB/, 'is not an svc-sync queue (not a SQLite database): point --queue or SVC_QUEUE_PATH at another path, or move the file away'],
  [/^SQLITE_CORRUPT/, 'is damaged (SQLite reports corruption): move it away and start with a new queue; its events can be replayed from the platform'],
  [/^SQLITE_READONLY/, "is read-only: the receiver must write to it (check the file's and its directory's permissions, and the mount)"],
  [/^SQLITE_PERM|^SQLITE_AUTH/, 'may not be opened by this user: check its permissions'],
  [/^SQLITE_BUSY|^SQLITE_LOCKED/, 'is locked by another process for longer than 5 s'],
  [/^SQLITE_FULL/, 'cannot grow: the disk is full'],
  [/^SQLITE_IOERR/, 'cannot be read or written (I/O error): check the disk'],
];

/** Node file-system codes from creating the queue's directory. */
const FS_PROBLEMS: Record<string, string> = {
  EACCES: 'cannot be created: permission denied on its directory',
  EPERM: 'cannot be created: permission denied on its directory',
  ENOTDIR: 'cannot be created: a part of its directory path is a file',
  EROFS: 'cannot be created: the file system is read-only',
  ENOSPC: 'cannot be created: the disk is full',
};

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A failure of the queue's storage (the file, the disk), as opposed to one event's bad value. */
export function isStorageFailure(error: unknown): boolean {
  return /^SQLITE_(CANTOPEN|NOTADB|CORRUPT|READONLY|PERM|AUTH|BUSY|LOCKED|FULL|IOERR|NOMEM|PROTOCOL)/.test(codeOf(error));
}

/** "queue file PATH: what is wrong and what to do (SQLite's own words)", as a ConfigError (exit 2). */
export function queueFileError(file: string, error: unknown): ConfigError {
  const code = codeOf(error);
  const original = error instanceof Error ? error.message : String(error);
  const known = FILE_PROBLEMS.find(([pattern]) => pattern.test(code))?.[1] ?? (Object.hasOwn(FS_PROBLEMS, code) ? FS_PROBLEMS[code] : undefined);
  const what = known ?? (code === '' && /no such file/.test(original) ? 'does not exist (svc-sync serve creates it)' : 'cannot be used');
  return new ConfigError(`queue file ${file}: ${what} (${original.split('\n')[0]})`);
}

/**
 * A queue opened without `create` that is not there (no file; no tables in the schema): `svc-sync
 * queue` reports it as "no queue yet" rather than creating one as a side effect.
 */
export class QueueMissingError extends ConfigError {
  constructor(readonly location: string) {
    super(`queue ${location}: does not exist yet (svc-sync serve creates it)`);
  }
}

/**
 * PostgreSQL answers that no retry will change (SQLSTATE): a refused login, a database or schema
 * that does not exist or may not be used, a reserved name, a schema holding another application's
 * tables. `serve` stops at start on these (exit 2); anything else (refused connection, timeout,
 * shutdown) is waited out with 503s.
 */
const PERMANENT: ReadonlyMap<string, string> = new Map([
  ['28P01', 'the database refused the login'],
  ['28000', 'the database refused the login'],
  ['3D000', 'the database does not exist'],
  ['42501', "the database user may not create or use the queue's schema"],
  ['3F000', 'the schema does not exist'],
  ['42939', 'the schema name is reserved by PostgreSQL'],
  ['SVC_FOREIGN_SCHEMA', 'the schema holds tables svc-sync did not create'],
]);

export function permanentQueueFailure(error: unknown): string | undefined {
  return PERMANENT.get(codeOf(error));
}
