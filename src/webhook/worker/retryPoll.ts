/**
 * serve's side of the retry checkbox (issue 30): once a minute, while the worker is idle, the
 * records an admin ticked RetryRequested__c on in the org are put in the queue as events of their
 * own, so they go through the same pipeline as webhooks; the batch that syncs them clears the box
 * (its sync log write). A failed poll is said and tried again at the next one.
 */
import { messageOf } from '../../model/errors.js';
import type { ObjectRef } from '../../model/objects.js';
import type { EnqueueInput, QueueStore } from '../queue/store.js';
import type { Worker } from './workerTypes.js';

/** Events of this type stand for a retry asked for in Salesforce, not for a webhook. */
const RETRY_EVENT = 'salesforce.retry';

const RETRY_POLL_MS = 60_000;

interface RetryPollOptions {
  /** The refs of the ticked Open errors (the engine processor's retryRequested). */
  requested: () => Promise<ObjectRef[]>;
  queue: QueueStore;
  worker: Pick<Worker, 'snapshot' | 'wake'>;
  log: (line: string) => void;
  everyMs?: number | undefined;
}

const inputOf = (ref: ObjectRef): EnqueueInput => ({
  message: { objectType: ref.type, objectId: ref.id, eventType: RETRY_EVENT, application: 'svc-sync' },
  intent: { kind: 'sync', ref },
  raw: `RetryRequested__c ticked in Salesforce for ${ref.type} ${ref.id}`,
});

/** One poll: nothing while the worker is busy or events are due; else the ticked records, queued. */
async function pollRetries(o: RetryPollOptions, now = Date.now()): Promise<number> {
  if (o.worker.snapshot().state !== 'idle') return 0;
  const next = await o.queue.nextDueAt();
  if (next !== undefined && next <= now) return 0;
  const refs = await o.requested();
  if (refs.length === 0) return 0;
  await o.queue.enqueueMany(refs.map(inputOf));
  o.log(`salesforce log: ${refs.length} record(s) to retry, as asked in the org (RetryRequested__c)`);
  o.worker.wake();
  return refs.length;
}

export function startRetryPoll(o: RetryPollOptions): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    pollRetries(o)
      .catch((error: unknown) => o.log(`salesforce log: could not read the retries asked for in the org: ${messageOf(error)}`))
      .finally(() => {
        busy = false;
      });
  }, o.everyMs ?? RETRY_POLL_MS);
  timer.unref();
  return timer;
}
