/**
 * One run at a time per state folder: sync, object, replay and audit --fix / --delete-orphans
 * read and write the same progress, profile and records, and two overlapping runs (a slow
 * backfill and the next cron tick) would take over each other's progress. The lock is an
 * exclusive SQLite transaction held open on a small file in the state folder, as serve's queue
 * lock: the operating system drops it when the process ends, however it ends, so a crashed run
 * never leaves a stale lock. Who holds it (pid, start, command) is in a file beside it, read only
 * by a run that finds the lock taken.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openSqlite, sqliteCode } from '../../model/sqlite.js';
import { ConfigError, InterruptedError, RunLockedError } from '../../model/errors.js';
import { sleep } from '../../model/sleep.js';
import { privateEmptyFile, writePrivateFile } from '../../model/privateFile.js';

interface RunHolder {
  pid: number;
  startedAt: string;
  command: string;
}

export interface RunLock {
  file: string;
  release(): void;
}

/**
 * Handles per lock file for the life of the process, never dropped: a collected handle would be
 * closed, and its lock dropped, mid-run. An attempt reuses a
 * handle that holds no lock (a run that waits tries again on the same one), so the set stays as
 * small as the number of locks this process holds at once.
 */
const handles = new Map<string, DatabaseSync[]>();

/** The folder a command keeps its state in: its state file's, or its connection's (object, replay, audit). */
export const stateDirOf = (stateFile: string | undefined, stateDir: string): string => (stateFile === undefined ? stateDir : path.dirname(stateFile));

export const runLockFile = (stateDir: string): string => path.join(stateDir, 'run.lock');
const holderFile = (lockFile: string): string => `${lockFile}.holder.json`;

function handleOf(file: string): DatabaseSync {
  const open = handles.get(file) ?? [];
  const idle = open.find((db) => !db.isTransaction);
  if (idle !== undefined) return idle;
  try {
    // Owner-only, made exclusively: the folder 0700, the lock 0600.
    privateEmptyFile(file);
    // No busy timeout: a held lock is reported (or waited for) by the caller, never blocks here.
    const db = openSqlite(file, { timeoutMs: 0 });
    handles.set(file, [...open, db]);
    return db;
  } catch (error) {
    // A driver missing from the install says so itself (lazyModule).
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`run lock ${file}: cannot be opened (${sqliteCode(error) || String(error)})`);
  }
}

function tryLock(file: string): DatabaseSync | undefined {
  const db = handleOf(file);
  try {
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (error) {
    if (sqliteCode(error) === 'SQLITE_BUSY') return undefined;
    throw new ConfigError(`run lock ${file}: cannot be taken (${sqliteCode(error) || String(error)})`);
  }
}

/** Who holds the lock, as its holder wrote it; undefined when unreadable (it is still starting). */
export function readHolder(lockFile: string): RunHolder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(holderFile(lockFile), 'utf8')) as Partial<RunHolder>;
    return typeof h.pid === 'number' && typeof h.startedAt === 'string' && typeof h.command === 'string' ? { pid: h.pid, startedAt: h.startedAt, command: h.command } : undefined;
  } catch {
    return undefined;
  }
}

/** "pid 4242, started 2026-11-25T21:00:00.000Z: svc-sync sync --all" */
export const describeHolder = (h: RunHolder | undefined): string => (h ? `pid ${h.pid}, started ${h.startedAt}: ${h.command}` : 'details not written yet');

interface LockOptions {
  /** The command line of this run, written for a run that finds the lock taken. */
  command: string;
  /** Wait for the running one instead of exiting at once. */
  wait: boolean;
  /** The longest wait (`--wait 10m`), DEFAULT_WAIT_MS when not given: then exit 75 as without --wait. */
  waitMs?: number | undefined;
  /** Said once when this run starts waiting. */
  onWait?: (line: string) => void;
  /** Ctrl-C / SIGTERM while waiting: the reason (an InterruptedError) is thrown. */
  stop?: AbortSignal;
  /** Milliseconds between attempts while waiting. */
  pollMs?: number;
}

/** A bare `--wait`'s bound: a cron run never waits for ever behind a run that hangs. */
export const DEFAULT_WAIT_MS = 30 * 60_000;

/** "90 s", "10 min", "2 h" */
export const waitSpan = (ms: number): string => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : ms < 7_200_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);

/** Takes the lock of `stateDir`, or throws RunLockedError naming the run holding it (exit 75), at once or after the wait's bound. */
export async function acquireRunLock(stateDir: string, opts: LockOptions): Promise<RunLock> {
  const file = runLockFile(stateDir);
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  let startedAt: number | undefined;
  for (;;) {
    const db = tryLock(file);
    if (db !== undefined) return holding(file, db, opts.command);
    const holder = describeHolder(readHolder(file));
    if (!opts.wait) throw new RunLockedError(`another svc-sync run holds ${file} (${holder}); this one did nothing: let it finish, or add --wait`);
    if (startedAt === undefined) {
      startedAt = Date.now();
      opts.onWait?.(`waiting up to ${waitSpan(waitMs)} for the run holding ${file} (${holder})`);
    } else if (Date.now() - startedAt >= waitMs) {
      throw new RunLockedError(`waited ${waitSpan(waitMs)} (the --wait bound) for the run holding ${file} (${holder}); this one did nothing`);
    }
    if (opts.stop?.aborted) throw opts.stop.reason instanceof InterruptedError ? opts.stop.reason : new InterruptedError('SIGINT');
    await sleep(Math.min(opts.pollMs ?? 500, Math.max(0, startedAt + waitMs - Date.now())));
  }
}

function holding(file: string, db: DatabaseSync, command: string): RunLock {
  const holder: RunHolder = { pid: process.pid, startedAt: new Date().toISOString(), command };
  try {
    // The command line comes masked (no secret, no URL credentials); owner-only all the same.
    writePrivateFile(holderFile(file), `${JSON.stringify(holder)}\n`);
  } catch {
    // The lock holds without it; a waiting run then says "details not written yet".
  }
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      // The holder file goes while the lock is still held (no other run can have written its own
      // yet), so it never names a run that has ended. Ending the transaction drops the lock; the
      // handle and the lock file stay (removing that would race a starting run).
      try {
        fs.rmSync(holderFile(file), { force: true });
      } catch {
        // A holder file that cannot be removed only names an ended run; the lock is what counts.
      }
      db.exec('ROLLBACK');
    },
  };
}
