import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { acquireReceiverLock } from '../../src/webhook/queue/receiverLock.js';
import { openDatabase, pragma } from '../../src/webhook/queue/sqliteDb.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { storeRetryFailed, storeStatus } from '../../src/webhook/queue/open.js';
import { eventInput, tempQueue, type TempDir } from './helpers.js';

const input = eventInput;

describe('SqliteQueue', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  beforeEach(() => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db, { retry: { baseMs: 1000, maxMs: 8000 } });
  });
  afterEach(async () => {
    await queue.close();
    tmp.cleanup();
  });

  it('uses WAL with synchronous FULL', async () => {
    expect(await queue.durability()).toEqual({ journalMode: 'wal', synchronous: 'full' });
    // The journal mode is stored in the file: another connection sees it too.
    const db = openDatabase(tmp.db);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    db.close();
  });

  it('claims all open events of a ref together, oldest refs first, up to the batch size', async () => {
    await queue.enqueueMany(
      [
        input('Donation', 1, 'donations.update'),
        input('Donation', 2, 'donations.update'),
        input('Donation', 1, 'donations.update'),
        input('Action', 1, 'actions.update'),
        input('Donation', 1, 'donations.move'),
      ],
      1000,
    );
    const batch = await queue.claimBatch(2, 1000);
    expect(batch?.refs).toEqual([
      { refType: 'donation', refId: 1, eventIds: [1, 3, 5] },
      { refType: 'donation', refId: 2, eventIds: [2] },
    ]);
    expect(await queue.counts()).toMatchObject({ pending: 1, processing: 4 });
    // Claimed events are not claimed again while in flight.
    expect((await queue.claimBatch(10, 1000))?.refs.map((r) => r.refType)).toEqual(['action']);
    expect(await queue.claimBatch(10, 1000)).toBeUndefined();
  });

  it('records ignored events as finished, never claimable', async () => {
    const [r] = await queue.enqueueMany([input('News', 3, 'news.create')]);
    expect(r?.status).toBe('ignored');
    expect(await queue.counts()).toMatchObject({ ignored: 1, pending: 0 });
    expect(await queue.claimBatch(10)).toBeUndefined();
  });

  it('keeps failures with a doubling delay and never drops them', async () => {
    await queue.enqueue(input('Donation', 9, 'donations.update'), 0);
    let t = 0;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const batch = await queue.claimBatch(10, t);
      if (batch === undefined) throw new Error(`attempt ${i} was not due at ${t}`);
      await queue.complete(batch.token, [{ eventIds: batch.refs[0]?.eventIds ?? [], status: 'failed', error: `boom ${i}` }], [], t);
      const next = (await queue.nextDueAt()) as number;
      delays.push(next - t);
      expect(await queue.claimBatch(10, next - 1)).toBeUndefined();
      t = next;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(await queue.failedEvents()).toEqual([expect.objectContaining({ refType: 'donation', refId: 9, attempts: 6, lastError: 'boom 5' })]);
    expect(await queue.retryFailed(t)).toBe(1);
    expect((await queue.claimBatch(10, t))?.refs).toHaveLength(1);
  });

  it('returns events claimed by a stopped process to pending', async () => {
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 1, 'donations.update')]);
    const batch = await queue.claimBatch(10);
    expect(batch?.eventCount).toBe(2);
    await queue.close();
    queue = new SqliteQueue(tmp.db);
    expect(await queue.recoverInterrupted()).toBe(2);
    expect(await queue.counts()).toMatchObject({ pending: 2, processing: 0, done: 0 });
    // An outcome under the old claim token no longer applies.
    await queue.complete(batch?.token ?? '', [{ eventIds: [1, 2], status: 'done' }]);
    expect((await queue.counts()).done).toBe(0);
  });

  it('records action owners, one owner per action', async () => {
    // Owners arrive with a batch's outcome; no batch claimed here, so the token matches no event.
    await queue.complete(
      '',
      [],
      [
        { userId: 5, actionId: 10 },
        { userId: 5, actionId: 11 },
        { userId: 6, actionId: 12 },
      ],
    );
    await queue.complete('', [], [{ userId: 6, actionId: 11 }]);
    expect(await queue.actionsOwnedBy(5)).toEqual([10]);
    expect(await queue.actionsOwnedBy(6)).toEqual([11, 12]);
  });

  it('prunes finished events older than the kept days, keeping open and failed ones', async () => {
    const day = 86_400_000;
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('News', 1, 'news.create'), input('Donation', 2, 'donations.update')], 0);
    const batch = await queue.claimBatch(10, 0);
    await queue.complete(
      batch?.token ?? '',
      [
        { eventIds: [1], status: 'skipped', reason: 'payment pending' },
        { eventIds: [3], status: 'failed', error: 'x' },
      ],
      [],
      0,
    );
    // States are disjoint: the skipped event is not also done.
    expect(await queue.counts()).toMatchObject({ done: 0, skipped: 1, ignored: 1, failed: 1 });
    expect(await queue.prune(7, 6 * day)).toBe(0);
    expect(await queue.prune(7, 8 * day)).toBe(2);
    expect(await queue.counts()).toMatchObject({ done: 0, ignored: 0, failed: 1 });
  });

  it('serves the CLI: status and retry by path, without creating missing files', async () => {
    await queue.enqueue(input('Donation', 1, 'donations.update'));
    const batch = await queue.claimBatch(10);
    await queue.complete(batch?.token ?? '', [{ eventIds: [1], status: 'failed', error: 'platform 500' }]);
    const status = await storeStatus({ kind: 'sqlite', path: tmp.db });
    expect(status.counts.failed).toBe(1);
    expect(status.failed[0]?.lastError).toBe('platform 500');
    expect(await storeRetryFailed({ kind: 'sqlite', path: tmp.db })).toBe(1);
    expect(await queue.counts()).toMatchObject({ failed: 0, pending: 1 });
    // A path with no file (a typo): refused, naming it, and no file (nor its directory) made.
    const missing = `${tmp.dir}/typo/missing.db`;
    const notThere = `queue ${missing}: no such file (svc-sync serve creates it; check --queue or SVC_QUEUE_PATH)`;
    await expect(storeStatus({ kind: 'sqlite', path: missing })).rejects.toThrow(notThere);
    await expect(storeRetryFailed({ kind: 'sqlite', path: missing })).rejects.toThrow(notThere);
    expect(existsSync(`${tmp.dir}/typo`)).toBe(false);
  });
});

/** The bytes of a file and the names beside it: what "nothing was changed or created" means. */
function snapshot(dir: string, file: string): { sha: string; names: string[] } {
  return { sha: createHash('sha256').update(readFileSync(file)).digest('hex'), names: readdirSync(dir).sort() };
}

/** The unmarked queue of a release before the schema version (its tables, user_version 0). */
const VERSION_0 = `
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, received_at INTEGER NOT NULL, raw TEXT NOT NULL, object_type TEXT NOT NULL,
  object_id INTEGER NOT NULL, event_type TEXT NOT NULL, application TEXT NOT NULL, site_id INTEGER, ref_type TEXT, ref_id INTEGER,
  status TEXT NOT NULL, outcome TEXT, reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, next_attempt_at INTEGER NOT NULL,
  claim_token TEXT, finished_at INTEGER);
CREATE TABLE action_owners (action_id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, updated_at INTEGER NOT NULL);
INSERT INTO events (received_at, raw, object_type, object_id, event_type, application, ref_type, ref_id, status, next_attempt_at)
  VALUES (1, '{}', 'Donation', 7, 'donations.update', 'Kentaa', 'donation', 7, 'failed', 1);
`;

describe('files that are not a queue of this release', () => {
  let tmp: TempDir;
  beforeEach(() => {
    tmp = tempQueue();
  });
  afterEach(() => tmp.cleanup());

  /** A database another application made: its own table, in WAL mode or not. */
  const foreignDb = (wal: boolean): string => {
    const db = openDatabase(tmp.db);
    if (wal) pragma(db, 'journal_mode = WAL');
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')");
    db.close();
    return tmp.db;
  };

  it.each([false, true])("another application's database (WAL %s): queue, queue retry and serve refuse it, and nothing in or beside it changes", async (wal) => {
    const file = foreignDb(wal);
    const before = snapshot(tmp.dir, file);
    const where = { kind: 'sqlite', path: file } as const;
    const refusal = new RegExp(`^queue file ${file}: is not an svc-sync queue \\(it holds tables svc-sync did not create \\(notes\\)\\)`);
    await expect(storeStatus(where)).rejects.toThrow(refusal);
    await expect(storeRetryFailed(where)).rejects.toThrow(refusal);
    expect(() => new SqliteQueue(file)).toThrow(refusal);
    // No tables added, no journal mode switched, no -wal or -shm left beside it.
    expect(snapshot(tmp.dir, file)).toEqual(before);
  });

  it("a database whose `events` table is another application's is not taken for a queue", async () => {
    const db = openDatabase(tmp.db);
    db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
    expect(() => new SqliteQueue(tmp.db)).toThrow(/is not an svc-sync queue \(its events table has no column received_at, raw, object_type/);
  });

  it('an empty file: `queue` and `queue retry` refuse it (not a queue) and leave it empty; serve makes it the queue', async () => {
    writeFileSync(tmp.db, '');
    const before = snapshot(tmp.dir, tmp.db);
    const empty = `queue ${tmp.db}: an empty file (0 bytes), not an svc-sync queue (svc-sync serve makes it one; check --queue or SVC_QUEUE_PATH)`;
    await expect(storeStatus({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(empty);
    await expect(storeRetryFailed({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(empty);
    expect(snapshot(tmp.dir, tmp.db)).toEqual(before);
    const queue = new SqliteQueue(tmp.db);
    await queue.enqueue(input('Donation', 1, 'donations.update'));
    expect(await queue.counts()).toMatchObject({ pending: 1 });
    await queue.close();
  });

  it('a SQLite database with no tables: `queue` and `queue retry` refuse it, naming the path, and change nothing', async () => {
    const db = openDatabase(tmp.db);
    pragma(db, 'page_size = 4096');
    db.exec('VACUUM');
    db.close();
    const before = snapshot(tmp.dir, tmp.db);
    expect(readFileSync(tmp.db).length).toBeGreaterThan(0);
    const empty = `queue ${tmp.db}: a SQLite database with no tables, not an svc-sync queue (svc-sync serve makes it one; check --queue or SVC_QUEUE_PATH)`;
    await expect(storeStatus({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(empty);
    await expect(storeRetryFailed({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(empty);
    expect(snapshot(tmp.dir, tmp.db)).toEqual(before);
  });

  it('a new queue carries its mark and schema version', async () => {
    await new SqliteQueue(tmp.db).close();
    const db = openDatabase(tmp.db, { readOnly: true });
    expect([pragma(db, 'application_id'), pragma(db, 'user_version')]).toEqual([0x73767371, 2]);
    db.close();
  });

  it('a queue of a newer release (a rolled-back deploy) is refused by serve, queue and queue retry, naming both versions, and left as it is', async () => {
    await new SqliteQueue(tmp.db).close();
    const db = openDatabase(tmp.db);
    pragma(db, 'user_version = 3');
    db.close();
    const before = snapshot(tmp.dir, tmp.db);
    const refusal = new RegExp(`^queue file ${tmp.db}: its schema version 3 is newer than this release's \\(2\\)`);
    expect(() => new SqliteQueue(tmp.db)).toThrow(refusal);
    await expect(storeStatus({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(refusal);
    await expect(storeRetryFailed({ kind: 'sqlite', path: tmp.db })).rejects.toThrow(refusal);
    expect(snapshot(tmp.dir, tmp.db)).toEqual(before);
  });

  it('a queue of an earlier release (no version mark) is read by `queue` as it is, and migrated by serve in one transaction, its events kept', async () => {
    const db = openDatabase(tmp.db);
    pragma(db, 'journal_mode = WAL');
    db.exec(VERSION_0);
    db.close();
    const before = snapshot(tmp.dir, tmp.db);
    expect(await storeStatus({ kind: 'sqlite', path: tmp.db })).toMatchObject({ exists: true, counts: { failed: 1 } });
    expect(snapshot(tmp.dir, tmp.db).sha).toBe(before.sha);
    const queue = new SqliteQueue(tmp.db);
    expect(await queue.counts()).toMatchObject({ failed: 1 });
    await queue.close();
    const after = openDatabase(tmp.db, { readOnly: true });
    expect([pragma(after, 'application_id'), pragma(after, 'user_version')]).toEqual([0x73767371, 2]);
    after.close();
  });

  it('an unmarked queue with a renamed column is refused at start, not answered 400 per event', () => {
    const db = openDatabase(tmp.db);
    db.exec(VERSION_0);
    db.exec('ALTER TABLE events RENAME COLUMN raw TO body');
    db.close();
    expect(() => new SqliteQueue(tmp.db)).toThrow(/is not an svc-sync queue \(its events table has no column raw \(a queue of an unknown version/);
  });

  it('the receiver lock follows the real file: a symlink to the queue is the same queue', async () => {
    const queue = new SqliteQueue(tmp.db);
    const alias = `${tmp.dir}/alias.db`;
    symlinkSync(tmp.db, alias);
    const held = acquireReceiverLock(tmp.db);
    try {
      expect(() => acquireReceiverLock(alias)).toThrow(new RegExp(`^queue file ${alias}: another svc-sync serve is already using it \\(it holds ${tmp.db}\\.receiver-lock\\)`));
      expect(() => acquireReceiverLock(`${tmp.dir}/../${tmp.dir.split('/').pop() ?? ''}/queue.db`)).toThrow(/another svc-sync serve is already using it/);
    } finally {
      held.release();
      await queue.close();
    }
  });
});
