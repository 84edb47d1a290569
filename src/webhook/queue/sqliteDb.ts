/**
 * The queue's SQLite connection helpers over node:sqlite: statements prepared once per database
 * (the receiver's insert runs once per request), pragmas, and transactions that nest as savepoints.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqlite } from '../../model/sqlite.js';

export type { DatabaseSync, StatementSync };

/** Statements by SQL text, per database. */
const prepared = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** Opens a queue's database file; see openSqlite for the options. */
export const openDatabase = (file: string, options?: Parameters<typeof openSqlite>[1]): DatabaseSync => openSqlite(file, options);

/** A statement prepared once per database and reused. */
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let byText = prepared.get(db);
  if (byText === undefined) prepared.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (stmt === undefined) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** A pragma's first value (undefined for a setter such as `synchronous = FULL`, which returns no row). */
export function pragma(db: DatabaseSync, text: string): unknown {
  const row = statement(db, `PRAGMA ${text}`).get();
  return row === undefined ? undefined : Object.values(row)[0];
}

/**
 * Runs `body` in a transaction: committed when it returns, rolled back when it throws. Inside
 * another transaction it runs under a savepoint, so a failure undoes its own work alone.
 * `IMMEDIATE` takes the write lock at the start (a writer then never fails half-way on a lock).
 */
export function transaction<T>(db: DatabaseSync, body: () => T, begin: 'DEFERRED' | 'IMMEDIATE' = 'DEFERRED'): T {
  const nested = db.isTransaction;
  statement(db, nested ? 'SAVEPOINT nested' : `BEGIN ${begin}`).run();
  try {
    const result = body();
    // A commit that fails (the disk full, a lock) is rolled back below, as a failed body is.
    statement(db, nested ? 'RELEASE nested' : 'COMMIT').run();
    return result;
  } catch (error) {
    if (db.isTransaction) {
      if (nested) {
        statement(db, 'ROLLBACK TO nested').run();
        statement(db, 'RELEASE nested').run();
      } else {
        statement(db, 'ROLLBACK').run();
      }
    }
    throw error;
  }
}
