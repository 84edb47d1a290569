import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, pragma } from '../../src/webhook/queue/sqliteKeep.js';
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
    const missing = `${tmp.dir}/missing.db`;
    expect(await storeStatus({ kind: 'sqlite', path: missing })).toMatchObject({ exists: false, location: missing });
    expect(await storeRetryFailed({ kind: 'sqlite', path: missing })).toBe(0);
    expect(existsSync(missing)).toBe(false);
  });
});
