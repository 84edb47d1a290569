/**
 * Node 24 (from 24.19) aborts the process (SIGABRT, "Assertion failed: (env) != nullptr") when a
 * better-sqlite3 12 Database or Statement is garbage collected while no JavaScript context is
 * entered: its node::ObjectWrap destructor asserts there is one, and an idle-time GC has none.
 * better-sqlite3 13 (Node-API) no longer does this but requires Node 22, and Node 20 is still
 * supported. So every Database and Statement svc-sync creates stays reachable until the process
 * ends: a bounded set (one queue per process, a fixed set of statements per queue, pragmas
 * prepared once).
 */
import type Database from 'better-sqlite3';
import { lazyModule, sqliteBinding } from '../../model/lazyModule.js';

const HELD = Symbol.for('svc-sync.sqlite.held');
// better-sqlite3 as Node's own module cache holds it: one per process, however many realms load
// this file (a test runner gives each test file its own globals and module registry). Its
// transactions' BEGIN/COMMIT statements live in a map of that module, and the held set hangs on it.
// Loaded when a queue is opened, so commands that never open one do not load the addon.
const sqliteModule = lazyModule<typeof Database & { [HELD]?: object[] }>('better-sqlite3');
const held = (): object[] => (sqliteModule()[HELD] ??= []);
/** Statements by SQL text, per database. */
const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** Keeps a Database or Statement reachable for the rest of the process. */
function keepAlive<T extends object>(value: T): T {
  held().push(value);
  return value;
}

/** Opens a database kept reachable for the rest of the process (closing it still releases the file). */
export function openDatabase(file: string | Buffer, options?: Database.Options): Database.Database {
  const SqliteDatabase = sqliteModule();
  return keepAlive(new SqliteDatabase(file, { ...sqliteBinding(), ...options }));
}

/** A statement prepared once per database and kept: never garbage to collect. */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let byText = prepared.get(db);
  if (byText === undefined) prepared.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (stmt === undefined) byText.set(sql, (stmt = keepAlive(db.prepare(sql))));
  return stmt;
}

/** A pragma's first value, through a kept statement (db.pragma() would prepare and drop one each time). */
export function pragma(db: Database.Database, text: string): unknown {
  const stmt = statement(db, `PRAGMA ${text}`);
  // A setter such as `synchronous = FULL` returns no row; a reader (and journal_mode = WAL) does.
  if (!stmt.reader) {
    stmt.run();
    return undefined;
  }
  const row = stmt.get() as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}
