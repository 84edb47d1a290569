/**
 * The queue's behaviour, once per implementation: the SQLite file and PostgreSQL (a real server
 * started by the suite). Whatever `serve` and `queue` rely on must hold on both, down to a
 * receiver killed mid-batch (a real `serve` process: run from dist/, `npm test` builds first).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, type TestPostgres } from '../../fixtures/postgres.js';
import type { QueueLocation } from '../../src/config/settings.js';
import { exitCodeOf } from '../../src/model/errors.js';
import { openQueue, storeRetryFailed, storeStatus } from '../../src/webhook/queue/open.js';
import type { EnqueueInput, BackoffPolicy } from '../../src/webhook/queue/store.js';
import type { QueueStore } from '../../src/webhook/queue/store.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { openDatabase, pragma } from '../../src/webhook/queue/sqliteDb.js';
import { startWorker, type Worker } from '../../src/webhook/worker/worker.js';
import { donationEvent, eventInput, eventually as pollUntil, pool, postJson, RecordingProcessor, request, tempQueue, type TempDir } from './helpers.js';
import { assertBuilt, journalOf, killAll, startChild } from './serveChild.js';
import { WAIT_MS } from '../support/patience.js';

const input = eventInput;

/** A database round trip per check: a longer limit than the helpers' default. */
const eventually = (check: () => Promise<boolean>, what: string, limitMs = 15_000): Promise<void> => pollUntil(check, what, limitMs);

interface Backend {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A new, empty queue location. */
  fresh(): QueueLocation;
  /** What a crashed process leaves behind becomes recoverable (PostgreSQL: its lease runs out). */
  expireClaims(where: QueueLocation): Promise<void>;
  /** Runs SQL on the queue from outside, as another process (or release) would; `Q.` names its schema. */
  tamper(where: QueueLocation, sql: string): Promise<void>;
  /** The schema version as another release would record it. */
  markVersion(where: QueueLocation, version: number): Promise<void>;
  /** A `serve` process's queue argument and environment for this location (a short lease on PostgreSQL). */
  child(where: QueueLocation): { queue: string; env: Record<string, string> };
}

let tmp: TempDir | undefined;
let postgres: TestPostgres | undefined;
let pgUrl = '';
let schemas = 0;

const backends: Backend[] = [
  {
    name: 'SQLite',
    async setup() {
      tmp = tempQueue();
    },
    async teardown() {
      tmp?.cleanup();
    },
    fresh: () => ({ kind: 'sqlite', path: `${tmp?.dir}/q${++schemas}.db` }),
    async expireClaims() {
      // Nothing to wait for: a new process returns every claim of the file.
    },
    async tamper(where, sql) {
      if (where.kind !== 'sqlite') throw new Error('a SQLite queue was expected');
      const db = openDatabase(where.path);
      db.exec(sql.replaceAll('Q.', ''));
      db.close();
    },
    async markVersion(where, version) {
      if (where.kind !== 'sqlite') throw new Error('a SQLite queue was expected');
      const db = openDatabase(where.path);
      pragma(db, `user_version = ${version}`);
      db.close();
    },
    child: (where) => ({ queue: where.kind === 'sqlite' ? where.path : '', env: {} }),
  },
  {
    name: 'PostgreSQL',
    async setup() {
      postgres = await startPostgres();
      pgUrl = await postgres.createDatabase('contract');
    },
    async teardown() {
      await postgres?.close();
    },
    // One schema per test: SVC_QUEUE_SCHEMA keeps queues apart in one database.
    fresh: () => ({ kind: 'postgres', url: pgUrl, schema: `t${++schemas}`, leaseMs: 60_000 }),
    async expireClaims(where) {
      if (where.kind !== 'postgres') throw new Error('a PostgreSQL queue was expected');
      await postgres?.query(pgUrl, `UPDATE "${where.schema}".refs SET lease_until = now() - interval '1 second' WHERE claim_token IS NOT NULL`);
    },
    async tamper(where, sql) {
      if (where.kind !== 'postgres') throw new Error('a PostgreSQL queue was expected');
      await postgres?.query(pgUrl, sql.replaceAll('Q.', `"${where.schema}".`));
    },
    async markVersion(where, version) {
      await this.tamper(where, `INSERT INTO Q.schema_migrations (version) VALUES (${version})`);
    },
    // A one-second lease: a killed receiver's claim is taken over one second after its last renewal.
    child: (where) => ({ queue: pgUrl, env: { SVC_QUEUE_SCHEMA: where.kind === 'postgres' ? where.schema : '', SVC_QUEUE_LEASE_S: '1' } }),
  },
];

describe.each(backends)('$name queue', (backend) => {
  let where: QueueLocation;
  let queue: QueueStore;
  const opened: QueueStore[] = [];
  const open = async (retry: Partial<BackoffPolicy> = { baseMs: 1000, maxMs: 8000 }): Promise<QueueStore> => {
    const q = await openQueue(where, { create: true, retry });
    opened.push(q);
    return q;
  };

  beforeAll(() => backend.setup(), 60_000);
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    where = backend.fresh();
    queue = await open();
  });
  afterEach(async () => {
    for (const q of opened.splice(0)) await q.close();
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
    expect(batch?.oldestReceivedAt).toBe(1000);
    expect(await queue.counts()).toMatchObject({ pending: 1, processing: 4 });
    // Claimed events are not claimed again while in flight, by this process or another.
    const other = await open();
    expect((await other.claimBatch(10, 1000))?.refs.map((r) => r.refType)).toEqual(['action']);
    expect(await queue.claimBatch(10, 1000)).toBeUndefined();
  });

  it("gives each ref type's oldest receipt time in the batch, so one type's old event does not widen another's list", async () => {
    await queue.enqueueMany([input('Action', 7, 'actions.update')], 1000);
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Action', 8, 'actions.update')], 5000);
    await queue.enqueueMany([input('Donation', 2, 'donations.update'), input('Donation', 1, 'donations.update')], 9000);
    const batch = await queue.claimBatch(10, 9000);
    expect(batch?.refs.map((r) => `${r.refType}:${r.refId}`)).toEqual(['action:7', 'donation:1', 'action:8', 'donation:2']);
    expect(batch?.oldestReceivedAt).toBe(1000);
    expect(batch?.oldestByType).toEqual({ action: 1000, donation: 5000 });
  });

  it('keeps one claim and one waiting set per record: events arriving for a record in flight are claimed together once it ends', async () => {
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 1, 'donations.update')], 1000);
    const first = await queue.claimBatch(10, 1000);
    expect(first?.refs).toEqual([{ refType: 'donation', refId: 1, eventIds: [1, 2] }]);
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 1, 'donations.move'), input('Donation', 2, 'donations.update')], 2000);
    // The record in flight is not claimed a second time meanwhile; another record is.
    const other = await queue.claimBatch(10, 2000);
    expect(other?.refs).toEqual([{ refType: 'donation', refId: 2, eventIds: [5] }]);
    expect(await queue.complete(first?.token ?? '', [{ eventIds: [1, 2], status: 'done' }], [], 2000)).toBe(2);
    // Then the waiting events come as one ref: the record is synced once more, not once per event.
    const next = await queue.claimBatch(10, 2000);
    expect(next?.refs).toEqual([{ refType: 'donation', refId: 1, eventIds: [3, 4] }]);
    expect(next?.oldestReceivedAt).toBe(2000);
  });

  it('keeps connections apart: the same record id of two connections claimed, owned, counted and retried each by its own view', async () => {
    const of = (connection: string): EnqueueInput => ({ ...input('Donation', 1, 'donations.update'), connection });
    await queue.enqueueMany([of('north'), of('south'), of('north'), input('Donation', 1, 'donations.update')], 1000);
    const north = queue.scoped({ home: 'north', keys: ['north'] });
    const south = queue.scoped({ home: 'south', keys: ['south', ''] });
    const n = await north.claimBatch(10, 1000);
    expect(n?.refs).toEqual([{ refType: 'donation', refId: 1, eventIds: [1, 3] }]);
    // The same record of the other connection is not held by north's claim.
    const s1 = await south.claimBatch(10, 1000);
    // (An older queue's event of the record may come as a ref of its own: the worker syncs the record once.)
    expect(s1?.refs.flatMap((r) => r.eventIds).sort()).toEqual([2, 4]);
    expect(new Set(s1?.refs.map((r) => `${r.refType}:${r.refId}`))).toEqual(new Set(['donation:1']));
    await north.complete(n!.token, [{ eventIds: [1, 3], status: 'failed', error: 'org refused the login' }], [{ actionId: 5, userId: 9 }], 1000);
    await south.complete(s1!.token, [{ eventIds: [2, 4], status: 'done' }], [{ actionId: 5, userId: 8 }], 1000);
    expect(await north.actionsOwnedBy(9)).toEqual([5]);
    expect(await south.actionsOwnedBy(9)).toEqual([]);
    expect(await south.actionsOwnedBy(8)).toEqual([5]);
    expect((await north.failedEvents()).map((f) => [f.id, f.connection])).toEqual([
      [1, 'north'],
      [3, 'north'],
    ]);
    expect(await south.retryFailed(1000)).toBe(0);
    expect(await north.counts()).toMatchObject({ failed: 2, done: 0 });
    expect((await queue.countsByConnection()).map((c) => [c.connection, c.counts.done, c.counts.failed])).toEqual([
      ['', 1, 0],
      ['north', 0, 2],
      ['south', 1, 0],
    ]);
    // An event stored through a view is its connection's.
    await south.enqueueMany([input('Donation', 2, 'donations.update')], 1000);
    expect((await south.claimBatch(10, 1000))?.refs.map((r) => r.refId)).toEqual([2]);
    expect(await north.dueSummary(1000)).toBeUndefined();
  });

  it('groups ignored events by reason and connection, the most frequent first, each view its own', async () => {
    const ignored = (objectType: string, connection: string): EnqueueInput => ({ ...input(objectType, 1, 'news.update'), connection });
    await queue.enqueueMany([ignored('News', 'north'), ignored('News', 'north'), ignored('Order', 'south'), input('Donation', 1, 'donations.update')], 1000);
    await queue.enqueueMany([ignored('News', 'north')], 5000);
    expect(await queue.ignoredReasons()).toEqual([
      { reason: 'object type News is not mirrored', connection: 'north', count: 3, lastAt: new Date(5000).toISOString() },
      { reason: 'object type Order is not mirrored', connection: 'south', count: 1, lastAt: new Date(1000).toISOString() },
    ]);
    expect((await queue.scoped({ home: 'south', keys: ['south'] }).ignoredReasons()).map((g) => [g.connection, g.count])).toEqual([['south', 1]]);
    expect(await queue.ignoredReasons(1)).toHaveLength(1);
  });

  it('stores a group whose one event the database cannot take, and reports that event alone', async () => {
    const nul = input('Donation', 2, 'donations.update');
    // PostgreSQL text cannot hold NUL; SQLite can. Either way the neighbours are stored.
    const odd: EnqueueInput = { ...nul, message: { ...nul.message, application: 'Ken\u0000taa' } };
    const results = await queue.enqueueEach([input('Donation', 1, 'donations.update'), odd, input('Donation', 3, 'donations.update')]);
    expect(results[0]).toMatchObject({ status: 'pending' });
    expect(results[2]).toMatchObject({ status: 'pending' });
    const refused = results[1] !== undefined && 'error' in results[1];
    expect(refused).toBe(backend.name === 'PostgreSQL');
    expect((await queue.counts()).pending).toBe(refused ? 2 : 3);
    expect((await queue.claimBatch(10))?.refs.map((r) => r.refId)).toEqual(refused ? [1, 3] : [1, 2, 3]);
  });

  it('records ignored events as finished, never claimable', async () => {
    const [r] = await queue.enqueueMany([input('News', 3, 'news.create')]);
    expect(r?.status).toBe('ignored');
    expect(await queue.counts()).toMatchObject({ ignored: 1, pending: 0 });
    expect(await queue.claimBatch(10)).toBeUndefined();
    expect(await queue.nextDueAt()).toBeUndefined();
  });

  it('keeps failures with a doubling delay and never drops them', async () => {
    await queue.enqueueMany([input('Donation', 9, 'donations.update')], 0);
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

  it('returns events claimed by a stopped process to pending, and ignores its late outcome', async () => {
    await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 1, 'donations.update')]);
    const batch = await queue.claimBatch(10);
    expect(batch?.eventCount).toBe(2);
    await queue.close();
    await backend.expireClaims(where);
    queue = await open();
    expect(await queue.recoverInterrupted()).toBe(2);
    expect(await queue.counts()).toMatchObject({ pending: 2, processing: 0, done: 0 });
    // The late outcome of a lost claim records nothing, and says so: the worker counts nothing as done.
    expect(await queue.complete(batch?.token ?? '', [{ eventIds: [1, 2], status: 'done' }])).toBe(0);
    expect((await queue.counts()).done).toBe(0);
    const again = await queue.claimBatch(10);
    expect(again?.refs).toEqual([{ refType: 'donation', refId: 1, eventIds: [1, 2] }]);
    expect(await queue.complete(again?.token ?? '', [{ eventIds: [1, 2], status: 'done' }])).toBe(2);
  });

  it('hands a claim back to pending when its outcome cannot be recorded', async () => {
    await queue.enqueueMany([input('Donation', 4, 'donations.update')]);
    const batch = await queue.claimBatch(10);
    expect(await queue.releaseClaim(batch?.token ?? '', 'database refused the write')).toBe(1);
    expect(await queue.counts()).toMatchObject({ pending: 1, processing: 0 });
    expect((await queue.claimBatch(10))?.eventCount).toBe(1);
  });

  it('records the action owners a batch saw, one owner per action', async () => {
    const finish = async (owners: Array<{ userId: number; actionId: number }>): Promise<void> => {
      const b = await queue.claimBatch(10);
      await queue.complete(b?.token ?? '', [{ eventIds: b?.refs[0]?.eventIds ?? [], status: 'done' }], owners);
    };
    await queue.enqueueMany([input('Action', 10, 'actions.update')]);
    await finish([
      { userId: 5, actionId: 10 },
      { userId: 5, actionId: 11 },
      { userId: 6, actionId: 12 },
    ]);
    await queue.enqueueMany([input('Action', 11, 'actions.update')]);
    await finish([{ userId: 6, actionId: 11 }]);
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
    // The failed record is still claimable after the prune.
    expect((await queue.claimBatch(10, 9 * day))?.refs).toEqual([{ refType: 'donation', refId: 2, eventIds: [3] }]);
  });

  it('serves `queue` and `queue retry`', async () => {
    await queue.enqueueMany([input('Donation', 1, 'donations.update')]);
    const batch = await queue.claimBatch(10);
    await queue.complete(batch?.token ?? '', [{ eventIds: [1], status: 'failed', error: 'platform 500' }]);
    const status = await storeStatus(where);
    expect(status.exists).toBe(true);
    expect(status.counts.failed).toBe(1);
    expect(status.failed[0]?.lastError).toBe('platform 500');
    expect(await storeRetryFailed(where)).toBe(1);
    expect(await queue.counts()).toMatchObject({ failed: 0, pending: 1 });
  });

  it('refuses `queue` and `queue retry` for a queue that is not there (exit 2), and creates nothing', async () => {
    const elsewhere = backend.fresh();
    const notThere =
      elsewhere.kind === 'sqlite' ? /: no such file \(svc-sync serve creates it; check --queue or SVC_QUEUE_PATH\)$/ : /: schema t\d+ holds no svc-sync queue \(svc-sync serve creates it/;
    for (const refused of [await storeStatus(elsewhere).catch((e: unknown) => e), await storeRetryFailed(elsewhere).catch((e: unknown) => e)]) {
      expect(exitCodeOf(refused)).toBe(2);
      expect(String(refused)).toMatch(notThere);
    }
    // Still not there: neither call created a file or a schema.
    await expect(openQueue(elsewhere, { create: false })).rejects.toThrow(notThere);
  });

  it('a queue of a newer release (a rolled-back deploy) is refused at start by serve and by queue, naming both versions', async () => {
    await queue.close();
    await backend.markVersion(where, 9);
    const newer = /schema version 9 is newer than this release's \(2\)/;
    await expect(openQueue(where, { create: true })).rejects.toThrow(newer);
    await expect(storeStatus(where)).rejects.toThrow(newer);
    await expect(storeRetryFailed(where)).rejects.toThrow(newer);
  });

  it('a table that is not what this release expects fails the whole commit (a 503, sent again), never one event (a 400, given up)', async () => {
    await queue.enqueueMany([input('Donation', 1, 'donations.update')]);
    // As a newer release's migration (or a person) leaves it under a running receiver.
    await backend.tamper(where, 'ALTER TABLE Q.events RENAME COLUMN raw TO body');
    // By its message: the driver's error class may be another vm context's than the test file's,
    // so `toThrow`'s Error check might not see an Error.
    const refused = await queue.enqueueEach([input('Donation', 2, 'donations.update'), input('Donation', 3, 'donations.update')]).then(
      () => 'stored',
      (e: unknown) => String((e as { message?: unknown }).message),
    );
    expect(refused).toMatch(/raw/);
    const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
    try {
      const reply = await postJson(`${receiver.url}/webhooks`, { object_type: 'Donation', object_id: 4, event_type: 'donations.update', application: 'Kentaa' });
      expect(reply.status).toBe(503);
    } finally {
      await receiver.close();
    }
  });

  describe('a receiver killed mid-batch', () => {
    const children: ChildProcess[] = [];
    let scratch = '';
    beforeEach(() => {
      scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-kill-'));
    });
    afterEach(async () => {
      await killAll(children);
      rmSync(scratch, { recursive: true, force: true });
    });

    it('loses nothing: the next receiver takes its events over and syncs each record once', async () => {
      assertBuilt();
      const journal = path.join(scratch, 'journal.txt');
      const { queue: at, env } = backend.child(where);
      const a = await startChild(at, 'hang', journal, env);
      children.push(a.proc);
      const url = `http://127.0.0.1:${a.port}/webhooks`;
      // 40 events for 20 donations; then, while A's first batch hangs, 20 more for 10 of those and 10 new ones.
      const send = (ids: number[]): Promise<Array<{ status: number }>> =>
        pool(
          ids.map((id) => () => postJson(url, donationEvent(id))),
          10,
        );
      expect((await send(Array.from({ length: 40 }, (_, i) => 1 + (i % 20)))).every((r) => r.status === 200)).toBe(true);
      await eventually(async () => a.lines.some((l) => typeof l.started === 'number'), "A's first batch in flight");
      expect((await send(Array.from({ length: 20 }, (_, i) => 11 + i))).every((r) => r.status === 200)).toBe(true);

      a.proc.kill('SIGKILL');
      expect((await a.exited).signal).toBe('SIGKILL');
      // Every event answered 200 is there; A recorded no outcome.
      const held = await queue.counts();
      expect(held.pending + held.processing).toBe(60);
      expect(held.processing).toBeGreaterThan(0);
      expect(held.done).toBe(0);
      expect(journalOf(journal)).toEqual([]);

      const b = await startChild(at, 'ok', journal, env);
      children.push(b.proc);
      await eventually(async () => (await queue.counts()).done === 60, "B finishes A's events and the rest", WAIT_MS);
      expect(await queue.counts()).toMatchObject({ pending: 0, processing: 0, failed: 0, done: 60 });
      // Each of the 30 donations synced once: A's claim went over to B whole, with the events that came meanwhile.
      const written = journalOf(journal);
      expect(new Set(written)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `donation:${i + 1}`)));
      expect(written).toHaveLength(30);
      b.proc.kill('SIGTERM');
      expect((await b.exited).code).toBe(0);
    });
  });

  describe('with the receiver and the worker', () => {
    let receiver: Receiver | undefined;
    let worker: Worker | undefined;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    afterEach(async () => {
      await receiver?.close();
      await worker?.stop();
      receiver = undefined;
      worker = undefined;
    });
    afterAll(() => agent.destroy());

    it('coalesces a burst of 600 events into one sync per record and reports it on /healthz', async () => {
      const processor = new RecordingProcessor();
      receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
      const url = `${receiver.url}/webhooks`;
      const events = Array.from({ length: 600 }, (_, i) => ({
        object_type: i % 3 === 0 ? 'News' : 'Donation',
        object_id: 1 + (i % 150),
        event_type: i % 3 === 0 ? 'news.create' : 'donations.update',
        application: 'Kentaa',
      }));
      const replies = await pool(
        events.map((e) => () => postJson(url, e, {}, agent)),
        40,
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(600);
      // The worker starts once the burst has landed: no record can rightly be synced twice.
      worker = startWorker({ queue, processor, batchSize: 40, gatherMs: 0, pollMs: 50 });
      await eventually(async () => (await queue.counts()).done === 400, 'every donation event done');
      const seen = processor.seen();
      // 400 donation events for 100 donations: each donation synced exactly once, in batches of 40.
      expect(seen.size).toBe(100);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(processor.calls.map((c) => c.length)).toEqual([40, 40, 20]);
      const health = await request(`${receiver.url}/healthz`, { method: 'GET' });
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', queue: { pending: 0, processing: 0, failed: 0, done: 400, skipped: 0, ignored: 200 } });
    });

    it('retries a failing ref with backoff until it succeeds', async () => {
      queue = await open({ baseMs: 20, maxMs: 200 });
      await queue.enqueueMany([input('Donation', 1, 'donations.update'), input('Donation', 2, 'donations.update')]);
      let failuresLeft = 2;
      const processor = new RecordingProcessor((ref) => (ref.id === 1 && failuresLeft-- > 0 ? { ref, status: 'failed', reason: 'platform answered 503' } : { ref, status: 'done' }));
      worker = startWorker({ queue, processor, pollMs: 10, gatherMs: 0 });
      await eventually(async () => (await queue.counts()).done === 2, 'both done after retries');
      expect(processor.seen().get('donation:1')).toBe(3);
      expect(processor.seen().get('donation:2')).toBe(1);
    });

    it('hands a batch back when the queue fails while the worker prepares it', async () => {
      await queue.enqueueMany([input('User', 5, 'users.update')]);
      let failures = 1;
      // The owners lookup fails once, as a dropped database connection would.
      const flaky = new Proxy(queue, {
        get(target, prop) {
          if (prop === 'actionsOwnedBy' && failures-- > 0) return () => Promise.reject(new Error('connection lost'));
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const lines: string[] = [];
      worker = startWorker({ queue: flaky, processor: new RecordingProcessor(), loop: false, log: (l) => lines.push(l) });
      expect(await worker.runOnce()).toBeUndefined();
      expect(lines.join('\n')).toMatch(/could not process a claimed batch: connection lost/);
      expect(await queue.counts()).toMatchObject({ pending: 1, processing: 0 });
      expect(await worker.runOnce()).toMatchObject({ events: 1, skipped: 1 });
    });

    it('re-syncs the actions a user owns on users.update', async () => {
      await queue.enqueueMany([input('Action', 10, 'actions.update'), input('Action', 11, 'sign_ups.create')]);
      const owners = [
        { userId: 5, actionId: 10 },
        { userId: 5, actionId: 11 },
      ];
      const processor = new RecordingProcessor((ref) => ({ ref, status: 'done' }), owners);
      worker = startWorker({ queue, processor, loop: false });
      await worker.runOnce();
      await queue.enqueueMany([input('User', 5, 'users.update'), input('User', 6, 'users.update')]);
      expect(await worker.runOnce()).toMatchObject({ events: 2, refs: 2, processed: 2, done: 1, skipped: 1 });
      expect(processor.calls[1]?.map((r) => `${r.type}:${r.id}`).sort()).toEqual(['action:10', 'action:11']);
    });
  });
});
