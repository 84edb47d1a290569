/**
 * One receiver per queue file. Two `serve` processes on one queue would both claim and process
 * events and double the platform requests, so the second one is refused. The lock is an
 * exclusive SQLite transaction held open on a small file beside the queue: the operating system
 * drops it when the process ends, however it ends, so a crash never leaves a stale lock behind.
 * The lock sits beside the real file (symlinks and `..` resolved): every name of one file is one
 * queue, so a symlink to the file is no way around it.
 */
import { openDatabase, type DatabaseSync } from './sqliteDb.js';
import { privateEmptyFile } from '../../model/privateFile.js';
import { sqliteCode } from '../../model/sqlite.js';
import { ConfigError } from '../../model/errors.js';
import { queueFileError } from './errors.js';
import { realpathSync } from 'node:fs';

interface ReceiverLock {
  path: string;
  release(): void;
}

const lockPathOf = (queuePath: string): string => `${queuePath}.receiver-lock`;

/** The queue file's real path (it exists: the queue was opened first). */
function realPathOf(queuePath: string): string {
  try {
    return realpathSync(queuePath);
  } catch (error) {
    throw queueFileError(queuePath, error);
  }
}

export function acquireReceiverLock(queuePath: string): ReceiverLock {
  const file = lockPathOf(realPathOf(queuePath));
  let db: DatabaseSync;
  try {
    // No busy timeout: a held lock must be reported at once, not waited for.
    privateEmptyFile(file);
    db = openDatabase(file, { timeoutMs: 0 });
  } catch (error) {
    throw queueFileError(file, error);
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (sqliteCode(error) === 'SQLITE_BUSY') {
      throw new ConfigError(
        `queue file ${queuePath}: another svc-sync serve is already using it (it holds ${file}); stop that one first, or give this one its own queue with --queue or SVC_QUEUE_PATH`,
      );
    }
    throw queueFileError(file, error);
  }
  let released = false;
  return {
    path: file,
    release() {
      if (released) return;
      released = true;
      // Closing ends the transaction and drops the lock; the file stays (removing it would race a starting receiver).
      db.close();
    },
  };
}
