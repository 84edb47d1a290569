/**
 * The worker on a failing queue (a full disk): it waits with a doubling, capped delay instead of
 * spinning, logs one line when the errors start and one when they end (with the count), and shows
 * its state in /healthz.
 */
import { afterEach, expect, it } from '@jest/globals';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { eventInput, donationEvent, eventually, postJson, RecordingProcessor, request, tempQueue, type TempDir } from './helpers.js';

/** An error as node:sqlite raises it: SQLite's extended result code in `errcode`, 13 for SQLITE_FULL. */
const driverError = (message: string, errcode: number): Error => Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode, errstr: message });

let tmp: TempDir | undefined;
let service: RunningService | undefined;
afterEach(async () => {
  await service?.stop();
  tmp?.cleanup();
});

it('backs off on queue errors, logs state changes only, reports them in /healthz, and recovers', async () => {
  tmp = tempQueue();
  const seed = new SqliteQueue(tmp.db);
  await seed.enqueue(eventInput('Donation', 5, 'donations.update'));
  await seed.close();

  const lines: string[] = [];
  const processor = new RecordingProcessor();
  service = await serve({
    host: '127.0.0.1',
    port: 0,
    queue: { kind: 'sqlite', path: tmp.db },
    processor,
    handleSignals: false,
    pollMs: 10,
    gatherMs: 0,
    backoff: { baseMs: 100, maxMs: 400 },
    log: (l) => lines.push(l),
  });
  // From now on the disk is full: every claim fails as SQLite reports it.
  let attempts = 0;
  let full = true;
  const claim = service.queue.claimBatch.bind(service.queue);
  service.queue.claimBatch = (...args: Parameters<SqliteQueue['claimBatch']>) => {
    if (!full) return claim(...args);
    attempts++;
    throw driverError('database or disk is full', 13);
  };
  // The worker is already sleeping: a new event wakes it into the failing claim.
  expect((await postJson(`${service.url}/webhooks`, donationEvent(6))).status).toBe(200);

  await eventually(() => attempts >= 3, 'three failed claims');
  const health = JSON.parse((await request(`${service.url}/healthz`, { method: 'GET' })).body) as { status: string; worker: { state: string; failures: number; lastError: string } };
  expect(health.status).toBe('degraded');
  expect(health.worker).toMatchObject({ state: 'backing-off' });
  expect(health.worker.failures).toBeGreaterThanOrEqual(3);
  // /healthz shows a generic reason; the log has SQLite's own words.
  expect(health.worker.lastError).toBe('could not claim events: queue unavailable: disk full');
  // Waits of 100, 200, 400, 400 ms ...: about three attempts in 1.2 s; spinning made thousands.
  const before = attempts;
  await new Promise((r) => setTimeout(r, 1_200));
  expect(attempts - before).toBeLessThanOrEqual(5);
  const failing = lines.filter((l) => /queue .* failing/.test(l));
  expect(failing).toHaveLength(1);
  expect(failing[0]).toContain(tmp.db);

  full = false;
  await eventually(async () => processor.calls.length > 0 && (await service!.queue.counts()).pending === 0, 'the events to be processed after the disk has room');
  expect(lines.filter((l) => /usable again after \d+ failed attempts/.test(l))).toHaveLength(1);
  const after = JSON.parse((await request(`${service.url}/healthz`, { method: 'GET' })).body) as { status: string; worker: { state: string } };
  expect(after).toMatchObject({ status: 'ok', worker: { state: 'ok' } });
});
