/**
 * The receiver under hostile input and faults: one bad event in a group commit, bodies that try to
 * forge log lines, a byte order mark, unusable queue files, a second receiver on one queue.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '../../src/webhook/queue/sqliteDb.js';
import fs from 'node:fs';
import { ConfigError } from '../../src/model/errors.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { type EnqueueInput } from '../../src/webhook/queue/store.js';
import { queueFileError } from '../../src/webhook/queue/errors.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { eventInput, donationEvent, postJson, request, RecordingProcessor, tempQueue, type TempDir } from './helpers.js';

/** An error as node:sqlite raises it: SQLite's extended result code in `errcode`, 8 for SQLITE_READONLY. */
const driverError = (message: string, errcode: number): Error => Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode, errstr: message });

const input = (objectId: number): EnqueueInput => eventInput('Donation', objectId, 'donations.update');

describe('group commit: one bad event cannot fail the others', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  beforeAll(() => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db);
  });
  afterAll(async () => {
    await queue.close();
    tmp.cleanup();
  });

  it('rejects only the event SQLite cannot bind; the others of the same commit are stored', async () => {
    // What a prototype-name lookup produced: a function where a type name belongs.
    const bad = input(2);
    const poisoned = { ...bad, intent: { kind: 'sync', ref: { type: Object.prototype.constructor, id: 2 } } } as unknown as EnqueueInput;
    const results = await queue.enqueueEach([input(1), poisoned, input(3)]);
    expect(results.map((r) => ('error' in r ? 'rejected' : r.status))).toEqual(['pending', 'rejected', 'pending']);
    expect((await queue.counts()).pending).toBe(2);
  });

  it('end to end: an event posted in the same turn as a "constructor" event is stored and answered 200', async () => {
    const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
    try {
      const url = `${receiver.url}/webhooks`;
      const before = (await queue.counts()).pending;
      const [hostile, valid] = await Promise.all([
        postJson(url, { object_type: 'constructor', object_id: 1, event_type: 'donations.update', application: 'Kentaa' }),
        postJson(url, donationEvent(77)),
      ]);
      expect(valid.status).toBe(200);
      expect(JSON.parse(valid.body)).toMatchObject({ status: 'queued' });
      // Never 503: the platform would retry it for 24 hours. Recorded ignored (200) or refused (400).
      expect([200, 400]).toContain(hostile.status);
      if (hostile.status === 200) expect(JSON.parse(hostile.body)).toMatchObject({ status: 'ignored' });
      expect((await queue.counts()).pending).toBe(before + 1);
    } finally {
      await receiver.close();
    }
  });
});

describe('echoed input and encodings', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  let receiver: Receiver;
  let url: string;
  const logged: string[] = [];
  beforeAll(async () => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db);
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, log: (l) => logged.push(l) });
    url = `${receiver.url}/webhooks`;
  });
  afterAll(async () => {
    await receiver.close();
    await queue.close();
    tmp.cleanup();
  });

  it('a JSON parse error cannot forge a log line: no raw line break in the 400 body or the log', async () => {
    const forged = '{"object_type":\n2026-01-01T00:00:00Z webhook 200 POST from 10.0.0.1: stored\n';
    const r = await request(url, { headers: { 'Content-Type': 'application/json' }, body: forged });
    expect(r.status).toBe(400);
    const reason = (JSON.parse(r.body) as { error: string }).error;
    expect(reason).toMatch(/^body is not valid JSON/);
    expect(reason).not.toMatch(/[\r\n\u2028\u2029]/);
    const line = logged.find((l) => l.includes('not valid JSON'));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[\r\n]/);
  });

  it('accepts a JSON body that starts with a UTF-8 byte order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(donationEvent(501)))]);
    const r = await request(url, { headers: { 'Content-Type': 'application/json', 'Content-Length': body.length }, body });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ status: 'queued' });
  });
});

describe('queue files that cannot be used', () => {
  let tmp: TempDir;
  afterEach(() => tmp.cleanup());

  it('a file that is not a database: one error naming the path (exit 2 class)', () => {
    tmp = tempQueue();
    fs.writeFileSync(tmp.db, 'these are notes, not a queue\n'.repeat(100));
    let error: unknown;
    try {
      new SqliteQueue(tmp.db);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`queue file ${tmp.db}: is not an svc-sync queue`);
    expect((error as Error).message).toContain('file is not a database');
  });

  it('a path that is a directory, and a read-only database: named, with the fix', () => {
    tmp = tempQueue();
    fs.mkdirSync(tmp.db);
    expect(() => new SqliteQueue(tmp.db)).toThrow(new RegExp(`queue file ${tmp.db}: cannot be opened.*unable to open database file`));
    // SQLite's own read-only error, as a file it may not write to produces it.
    const file = `${tmp.dir}/ro.db`;
    openDatabase(file).close();
    const ro = openDatabase(file, { readOnly: true });
    let sqliteError: unknown;
    try {
      ro.exec('CREATE TABLE t (x)');
    } catch (e) {
      sqliteError = e;
    } finally {
      ro.close();
    }
    const mapped = queueFileError(file, sqliteError);
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toMatch(new RegExp(`^queue file ${file}: is read-only.*attempt to write a readonly database`));
  });
});

describe('a queue that stops taking writes while serving', () => {
  it('answers 503 with a generic reason (no file path over HTTP), and logs the file', async () => {
    const tmp = tempQueue();
    const queue = new SqliteQueue(tmp.db);
    const lines: string[] = [];
    const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, log: (l) => lines.push(l) });
    try {
      // As SQLite reports a file made read-only (or remounted so) under a running receiver.
      queue.enqueueEach = () => {
        throw driverError('attempt to write a readonly database', 8);
      };
      const r = await postJson(`${receiver.url}/webhooks`, donationEvent(3));
      expect(r.status).toBe(503);
      expect(JSON.parse(r.body)).toEqual({ error: 'queue unavailable: queue file is read-only' });
      expect(r.body).not.toContain(tmp.db);
      expect(lines.some((l) => l.includes(tmp.db) && l.includes('attempt to write a readonly database'))).toBe(true);
    } finally {
      await receiver.close();
      await queue.close();
      tmp.cleanup();
    }
  });
});

describe('one receiver per queue file', () => {
  let tmp: TempDir;
  let first: RunningService | undefined;
  afterEach(async () => {
    await first?.stop();
    tmp.cleanup();
  });

  it('a second serve on the same queue is refused with the path; after the first stops it may start', async () => {
    tmp = tempQueue();
    const options = { host: '127.0.0.1', port: 0, queue: { kind: 'sqlite' as const, path: tmp.db }, processor: new RecordingProcessor(), handleSignals: false, log: () => undefined };
    first = await serve(options);
    await expect(serve(options)).rejects.toThrow(new RegExp(`queue file ${tmp.db}: another svc-sync serve is already using it`));
    // The first one is untouched by the refused start.
    const r = await postJson(`${first.url}/webhooks`, donationEvent(9));
    expect(r.status).toBe(200);
    await first.stop();
    first = await serve(options);
    expect((await request(`${first.url}/healthz`, { method: 'GET' })).status).toBe(200);
  });
});
