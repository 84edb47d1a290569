/**
 * SQLite's own messages ("unable to open database file", "file is not a database") name neither
 * the file nor the fix. These turn them into one line that does both; a file that cannot serve as
 * the queue is a configuration problem (exit 2), not a failed run.
 */
import { ConfigError } from '../../model/errors.js';
import { sqliteCode } from '../../model/sqlite.js';

/** SQLite result codes (as sqliteCode names them) that mean the file itself is unusable. */
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
  EEXIST: 'cannot be created: its folder, or a folder above it, is a file',
  EROFS: 'cannot be created: the file system is read-only',
  ENOSPC: 'cannot be created: the disk is full',
};

/** SQLite's code by name (SQLITE_BUSY), or a file-system or PostgreSQL code, or ''. */
const codeOf = (error: unknown): string => sqliteCode(error);

/**
 * SQLite refused one event's value (a constraint, a type, a size), as opposed to anything else: a
 * failure of the file, or a table that is not what this release expects. Only a refused value is
 * that event's fault (answered 400, the platform stops sending it); anything else is the queue's
 * (503: the platform tries again later).
 */
export function isRefusedValue(error: unknown): boolean {
  // By name: a binding error may come from another realm (a test runner's).
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TypeError' || name === 'RangeError') return true;
  return /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(codeOf(error));
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
 * A queue opened without `create` that is not there (no file, an empty one; no tables in the
 * schema). `queue` and `queue retry` refuse it (exit 2) rather than create one as a side effect or
 * answer as if it were empty: a typo in the path would otherwise look like a quiet queue.
 */
export class QueueMissingError extends ConfigError {
  constructor(
    readonly location: string,
    why: string,
  ) {
    super(`queue ${location}: ${why}`);
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
  ['SVC_NEWER_SCHEMA', 'the queue was migrated by a newer svc-sync'],
]);

/** TLS refusals the URL's sslmode leads to: the server has no TLS, or its certificate is not trusted. */
const TLS_REFUSALS: Array<[RegExp, string]> = [
  [/^SVC_TLS_UNSUPPORTED$/, 'the database server does not support TLS, which sslmode in the URL requires (enable TLS on the server, or change sslmode)'],
  [
    /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)$/,
    "the database server's TLS certificate was rejected (sslmode in the URL verifies it: give the server a certificate this machine trusts, e.g. through NODE_EXTRA_CA_CERTS)",
  ],
];

/** "SETTING: why" for a failure no retry changes, or undefined for one that may pass (a server down). */
export function permanentQueueFailure(error: unknown): string | undefined {
  const code = codeOf(error);
  const tls = TLS_REFUSALS.find(([pattern]) => pattern.test(code))?.[1];
  if (tls !== undefined) return `SVC_QUEUE_URL: ${tls}`;
  const why = PERMANENT.get(code);
  return why === undefined ? undefined : `SVC_QUEUE_URL / SVC_QUEUE_SCHEMA: ${why}`;
}
