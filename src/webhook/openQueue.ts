/**
 * The one place that decides where the webhook queue lives: a postgres:// or postgresql:// URL
 * (SVC_QUEUE_URL, --queue-url) opens the PostgreSQL queue; otherwise the SQLite file.
 */
import { existsSync } from 'node:fs';
import { isPostgresUrl, maskQueueUrl } from '../config/queueUrl.js';
import { DEFAULT_LEASE_MS, PgQueue } from './pgQueue.js';
import { DEFAULT_QUEUE_SCHEMA } from './pgSchema.js';
import { DEFAULT_QUEUE_PATH, WebhookQueue, type FailedEvent, type QueueCounts, type RetryPolicy } from './queue.js';
import type { QueueStore } from './queueStore.js';

export interface QueueLocation {
  /** SVC_QUEUE_URL: when set (postgres://...), the queue is in PostgreSQL. */
  url?: string;
  /** SVC_QUEUE_PATH: the SQLite file otherwise. */
  path?: string;
  /** SVC_QUEUE_SCHEMA (PostgreSQL only). */
  schema?: string;
  /** SVC_QUEUE_LEASE_S in ms (PostgreSQL only). */
  leaseMs?: number;
}

export interface OpenQueueOptions {
  retry?: Partial<RetryPolicy>;
  log?: (line: string) => void;
}

export function openQueue(where: QueueLocation, opts: OpenQueueOptions = {}): QueueStore & { sharedBudget?: PgQueue['sharedBudget'] } {
  if (where.url !== undefined && where.url !== '') {
    if (!isPostgresUrl(where.url)) throw new Error('SVC_QUEUE_URL: must be a postgres:// or postgresql:// URL');
    return new PgQueue({
      url: where.url,
      schema: where.schema ?? DEFAULT_QUEUE_SCHEMA,
      leaseMs: where.leaseMs ?? DEFAULT_LEASE_MS,
      ...(opts.retry === undefined ? {} : { retry: opts.retry }),
      ...(opts.log === undefined ? {} : { log: opts.log }),
    });
  }
  return new WebhookQueue(where.path ?? DEFAULT_QUEUE_PATH, opts.retry === undefined ? {} : { retry: opts.retry });
}

export interface StoreStatus {
  /** The file path, or the database URL without its password. */
  location: string;
  exists: boolean;
  counts: QueueCounts;
  failed: FailedEvent[];
}

const EMPTY: QueueCounts = { pending: 0, processing: 0, failed: 0, done: 0, skipped: 0, ignored: 0 };

/** Opens the queue for a status command: a missing SQLite file is reported, never created. */
async function withExisting<T>(where: QueueLocation, missing: T, fn: (q: QueueStore) => Promise<T>): Promise<T> {
  if (!where.url && !existsSync(where.path ?? DEFAULT_QUEUE_PATH)) return missing;
  const queue = where.url ? openQueue(where) : new WebhookQueue(where.path ?? DEFAULT_QUEUE_PATH, { mustExist: true });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

/** For `svc-sync queue`: counts and failed events with their last error. */
export function storeStatus(where: QueueLocation, failedLimit = 100): Promise<StoreStatus> {
  const location = where.url ? maskQueueUrl(where.url) : (where.path ?? DEFAULT_QUEUE_PATH);
  return withExisting<StoreStatus>(where, { location, exists: false, counts: { ...EMPTY }, failed: [] }, async (q) => ({
    location: q.location,
    exists: true,
    counts: await q.counts(),
    failed: await q.failedEvents(failedLimit),
  }));
}

/** For `svc-sync queue retry`: makes failed events due now; returns how many. */
export function storeRetryFailed(where: QueueLocation): Promise<number> {
  return withExisting(where, 0, async (q) => q.retryFailed());
}
