import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, pragma } from '../../src/webhook/queue/sqliteKeep.js';
import { SqliteQueue, queueStatus, retryFailed } from '../../src/webhook/queue/sqlite.js';
import { eventInput, tempQueue, type TempDir } from './helpers.js';

const input = eventInput;

describe('SqliteQueue', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  beforeEach(() => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db, { retry: { baseMs: 1000, maxMs: 8000 } });
  });
  afterEach(() => {
    queue.close();
    tmp.cleanup();
  });

  it('uses WAL with synchronous FULL', () => {
    expect(queue.durability()).toEqual({ journalMode: 'wal', synchronous: 'full' });
    // The journal mode is stored in the file: another connection sees it too.
    const db = openDatabase(tmp.db);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    db.close();
  });

  it('claims all open events of a ref together, oldest refs first, up to the batch size', () => {
    queue.enqueueMany(
      [
        input('Donation', 1, 'donations.update'),
        input('Donation', 2, 'donations.update'),
        input('Donation', 1, 'donations.update'),
        input('Action', 1, 'actions.update'),
        input('Donation', 1, 'donations.move'),
      ],
      1000,
    );
    const batch = queue.claimBatch(2, 1000);
    expect(batch?.refs).toEqual([
      { refType: 'donation', refId: 1, eventIds: [1, 3, 5] },
      { refType: 'donation', refId: 2, eventIds: [2] },
    ]);
    expect(queue.counts()).toMatchObject({ pending: 1, processing: 4 });
    // Claimed events are not claimed again while in flight.
    expect(queue.claimBatch(10, 1000)?.refs.map((r) => r.refType)).toEqual(['action']);
    expect(queue.claimBatch(10, 1000)).toBeUndefined();
  });

  it('records ignored events as finished, never claimable', () => {
    const [r] = queue.enqueueMany([input('News', 3, 'news.create')]);
    expect(r?.status).toBe('ignored');
    expect(queue.counts()).toMatchObject({ ignored: 1, pending: 0 });
    expect(queue.claimBatch(10)).toBeUndefined();
  });

  it('keeps failures with a doubling delay and never drops them', () => {
    queue.enqueue(input('Donation', 9, 'donations.update'), 0);
    let t = 0;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const batch = queue.claimBatch(10, t);
      if (batch === undefined) throw new Error(`attempt ${i} was not due at ${t}`);
      queue.complete(batch.token, [{ eventIds: batch.refs[0]?.eventIds ?? [], status: 'failed', error: `boom ${i}` }], [], t);
      const next = queue.nextDueAt() as number;
      delays.push(next - t);
      expect(queue.claimBatch(10, next - 1)).toBeUndefined();
      t = next;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(queue.failedEvents()).toEqual([expect.objectContaining({ refType: 'donation', refId: 9, attempts: 6, lastError: 'boom 5' })]);
    expect(queue.retryFailed(t)).toBe(1);
    expect(queue.claimBatch(10, t)?.refs).toHaveLength(1);
  });

  it('returns events claimed by a stopped process to pending', () => {
    queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 1, 'donations.update')]);
    const batch = queue.claimBatch(10);
    expect(batch?.eventCount).toBe(2);
    queue.close();
    queue = new SqliteQueue(tmp.db);
    expect(queue.recoverInterrupted()).toBe(2);
    expect(queue.counts()).toMatchObject({ pending: 2, processing: 0, done: 0 });
    // An outcome under the old claim token no longer applies.
    queue.complete(batch?.token ?? '', [{ eventIds: [1, 2], status: 'done' }]);
    expect(queue.counts().done).toBe(0);
  });

  it('records action owners, one owner per action', () => {
    // Owners arrive with a batch's outcome; no batch claimed here, so the token matches no event.
    queue.complete(
      '',
      [],
      [
        { userId: 5, actionId: 10 },
        { userId: 5, actionId: 11 },
        { userId: 6, actionId: 12 },
      ],
    );
    queue.complete('', [], [{ userId: 6, actionId: 11 }]);
    expect(queue.actionsOwnedBy(5)).toEqual([10]);
    expect(queue.actionsOwnedBy(6)).toEqual([11, 12]);
  });

  it('prunes finished events older than the kept days, keeping open and failed ones', () => {
    const day = 86_400_000;
    queue.enqueueMany([input('Donation', 1, 'donations.update'), input('News', 1, 'news.create'), input('Donation', 2, 'donations.update')], 0);
    const batch = queue.claimBatch(10, 0);
    queue.complete(
      batch?.token ?? '',
      [
        { eventIds: [1], status: 'skipped', reason: 'payment pending' },
        { eventIds: [3], status: 'failed', error: 'x' },
      ],
      [],
      0,
    );
    // States are disjoint: the skipped event is not also done.
    expect(queue.counts()).toMatchObject({ done: 0, skipped: 1, ignored: 1, failed: 1 });
    expect(queue.prune(7, 6 * day)).toBe(0);
    expect(queue.prune(7, 8 * day)).toBe(2);
    expect(queue.counts()).toMatchObject({ done: 0, ignored: 0, failed: 1 });
  });

  it('serves the CLI: status and retry by path, without creating missing files', () => {
    queue.enqueue(input('Donation', 1, 'donations.update'));
    const batch = queue.claimBatch(10);
    queue.complete(batch?.token ?? '', [{ eventIds: [1], status: 'failed', error: 'platform 500' }]);
    const status = queueStatus(tmp.db);
    expect(status.counts.failed).toBe(1);
    expect(status.failed[0]?.lastError).toBe('platform 500');
    expect(retryFailed(tmp.db)).toBe(1);
    expect(queue.counts()).toMatchObject({ failed: 0, pending: 1 });
    expect(queueStatus(`${tmp.dir}/missing.db`).exists).toBe(false);
    expect(retryFailed(`${tmp.dir}/missing.db`)).toBe(0);
  });
});
