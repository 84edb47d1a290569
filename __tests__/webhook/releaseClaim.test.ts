/** When the outcome of a batch cannot be recorded, its events go back to pending: never stuck. */
import { afterEach, expect, it } from '@jest/globals';
import { classifyEvent } from '../../src/sync/input/webhookEvents.js';
import type { WebhookMessage } from '../../src/sync/input/webhookMessage.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { type EnqueueInput } from '../../src/webhook/queue/store.js';
import { startWorker, type Worker } from '../../src/webhook/worker/worker.js';
import { eventually, RecordingProcessor, tempQueue, type TempDir } from './helpers.js';

const input = (objectId: number): EnqueueInput => {
  const message: WebhookMessage = { objectType: 'Donation', objectId, eventType: 'donations.update', application: 'Kentaa' };
  return { message, intent: classifyEvent(message), raw: JSON.stringify(message) };
};

let tmp: TempDir | undefined;
let worker: Worker | undefined;
let queue: SqliteQueue | undefined;
afterEach(async () => {
  await worker?.stop();
  await queue?.close();
  tmp?.cleanup();
});

it('hands a batch back when its outcome cannot be stored, and processes it again', async () => {
  tmp = tempQueue();
  queue = new SqliteQueue(tmp.db);
  await queue.enqueue(input(1));
  await queue.enqueue(input(2));
  // The first attempt to record an outcome fails, as a locked or full database would.
  const complete = queue.complete.bind(queue);
  let failures = 1;
  queue.complete = async (...args: Parameters<SqliteQueue['complete']>): Promise<number> => {
    if (failures-- > 0) throw new Error('SQLITE_BUSY: database is locked');
    return complete(...args);
  };
  const processor = new RecordingProcessor();
  const lines: string[] = [];
  worker = startWorker({ queue, processor, gatherMs: 5, pollMs: 10, log: (l) => lines.push(l) });
  await eventually(async () => (await queue!.counts()).done === 2, 'both events to be done');
  expect(processor.calls.length).toBe(2);
  expect(await queue.counts()).toMatchObject({ pending: 0, processing: 0, failed: 0, done: 2 });
  expect(lines.some((l) => /could not record the batch outcome: SQLITE_BUSY/.test(l))).toBe(true);
});
