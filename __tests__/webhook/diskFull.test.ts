/**
 * Issue 47, row 7: a full database while 2,000 webhooks arrive. Each is answered 503 (the platform
 * retries), the log gets one line and, at the stop, one line summing the rest (never one line per
 * webhook on the disk that is full), and /healthz answers 503 "degraded" until storing works again.
 * The database is made full as SQLite itself makes it: its max_page_count reached (SQLITE_FULL).
 */
import { afterEach, expect, it } from '@jest/globals';
import type { DatabaseSync } from 'node:sqlite';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { donationEvent, pool, postJson, RecordingProcessor, request, tempQueue, type TempDir } from './helpers.js';

let tmp: TempDir | undefined;
let service: RunningService | undefined;
afterEach(async () => {
  await service?.stop();
  tmp?.cleanup();
});

/** The queue's own connection (max_page_count is a connection's setting). */
const connectionOf = (s: RunningService): DatabaseSync => (s.queue as unknown as { db: DatabaseSync }).db;

it('2,000 webhooks on a full database: every one 503, one log line and one summing line, /healthz degraded; then it recovers', async () => {
  tmp = tempQueue();
  const lines: string[] = [];
  service = await serve({ host: '127.0.0.1', port: 0, queue: { kind: 'sqlite', path: tmp.db }, processor: new RecordingProcessor(), handleSignals: false, log: (l) => lines.push(l) });
  const db = connectionOf(service);
  const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  // The last pages fill first: events are stored until SQLite answers SQLITE_FULL.
  let filled = 0;
  for (let id = 1; (await postJson(`${service.url}/webhooks`, donationEvent(id))).status === 200; id++) {
    filled++;
    if (filled > 5_000) throw new Error('the database never became full');
  }
  const replies = await pool(
    Array.from({ length: 2_000 }, (_, i) => () => postJson(`${service!.url}/webhooks`, donationEvent(100_000 + i))),
    50,
  );
  expect(replies.filter((r) => r.status !== 503)).toEqual([]);
  expect(JSON.parse(replies[0]!.body)).toEqual({ error: 'queue unavailable: disk full' });

  const health = await request(`${service.url}/healthz`, { method: 'GET' });
  expect(health.status).toBe(503);
  expect(JSON.parse(health.body)).toMatchObject({ status: 'degraded', error: 'queue unavailable: disk full' });
  // The failures while it was full: one line, whatever their number (a run past the 60 s window,
  // on a loaded machine, adds one summing line and one new first line a window).
  const failures = lines.filter((l) => l.includes('webhook 503'));
  expect(failures[0]).toMatch(/^webhook 503: queue .*queue\.db: .*full.*\(identical failures in the next 60 s are summed up in one line\)$/);
  expect(failures.length).toBeLessThan(5);

  // Space again: the next event is stored, and /healthz is green.
  db.exec('PRAGMA max_page_count = 1073741823');
  expect((await postJson(`${service.url}/webhooks`, donationEvent(1))).status).toBe(200);
  expect((await request(`${service.url}/healthz`, { method: 'GET' })).status).toBe(200);

  // At the stop, the rest are summed up: every one of the 2,001 failures (the one that found it
  // full, then 2,000) is counted once, in far fewer lines.
  await service.stop();
  service = undefined;
  const said = lines.filter((l) => l.includes('webhook 503'));
  const summed = said.map((l) => /^(\d+) more like this in the last \d+ s: webhook 503: /.exec(l)?.[1]).filter((n) => n !== undefined);
  expect(said.at(-1)).toMatch(/^\d+ more like this in the last \d+ s: webhook 503: queue .*full/);
  expect(said.length - summed.length + summed.reduce((n, m) => n + Number(m), 0)).toBe(2_001);
  expect(said.length).toBeLessThan(5);
});
