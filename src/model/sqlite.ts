/**
 * SQLite through Node's own driver (node:sqlite): nothing compiled at install, nothing to match to
 * the Node version, so one install runs on every supported Node. Loaded on first use: --help and
 * commands that open no database never load it.
 */
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { lazyModule } from './lazyModule.js';

const driver = lazyModule<typeof import('node:sqlite')>('node:sqlite');

interface OpenOptions {
  /** Open read-only (a missing file is an error, never created). */
  readOnly?: boolean;
  /** Open for writing only a file that exists: a missing one is an error, never created. */
  mustExist?: boolean;
  /** Read a file no process is writing, with no lock and no -wal or -shm file made beside it. */
  immutable?: boolean;
  /** Milliseconds to wait for another connection's lock (0: fail at once with SQLITE_BUSY). */
  timeoutMs?: number;
}

/** Opens `file` (relative to the working directory); SQLite's errors carry `errcode` (see sqliteCode). */
export function openSqlite(file: string, options: OpenOptions = {}): DatabaseSync {
  const absolute = path.resolve(file);
  // A URI only where a flag needs one: an absolute path is never read as one.
  const mode = options.immutable === true ? 'immutable=1' : options.mustExist === true && options.readOnly !== true ? 'mode=rw' : undefined;
  const name = mode === undefined ? absolute : `${pathToFileURL(absolute).href}?${mode}`;
  const { DatabaseSync: Database } = driver();
  return new Database(name, { readOnly: options.readOnly === true || options.immutable === true, timeout: options.timeoutMs ?? 0 });
}

/** SQLite's primary result codes by number, as named in its C API. */
const CODES = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
];

/**
 * "SQLITE_BUSY" for an error SQLite raised (node:sqlite gives the extended code as a number in
 * `errcode`), the error's own string `code` otherwise, '' without one.
 */
export function sqliteCode(error: unknown): string {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    const name = CODES[errcode & 0xff];
    return name === undefined ? `SQLITE_${errcode}` : `SQLITE_${name}`;
  }
  return typeof code === 'string' ? code : '';
}

/**
 * Node 22 says node:sqlite is experimental when it is first loaded. A user can do nothing with
 * that line (the driver's behaviour svc-sync relies on is covered by its tests), so the CLI's
 * warning printer leaves out this one warning; every other warning is printed.
 */
export const isSqliteExperimentalWarning = (warning: Error): boolean => warning.name === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(warning.message);
