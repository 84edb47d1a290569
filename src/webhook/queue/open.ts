/**
 * The one place that decides where the webhook queue lives: a postgres:// or postgresql:// URL
 * (SVC_QUEUE_URL, --queue-url) opens the PostgreSQL queue; otherwise the SQLite file.
 */
import { isPostgresUrl } from '../../config/queueUrl.js';
import { DEFAULT_LEASE_MS, PgQueue } from './postgres.js';
import { DEFAULT_QUEUE_SCHEMA } from './pgSchema.js';
import { DEFAULT_QUEUE_PATH, queueStatus, retryFailed, SqliteQueue } from './sqlite.js';
import { type FailedEvent, type QueueCounts, type BackoffPolicy } from './store.js';
import type { QueueStore } from './store.js';

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

interface OpenQueueOptions {
  retry?: Partial<BackoffPolicy>;
  log?: (line: string) => void;
}

export function openQueue(where: QueueLocation, opts: OpenQueueOptions = {}): QueueStore {
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
  return new SqliteQueue(where.path ?? DEFAULT_QUEUE_PATH, opts.retry === undefined ? {} : { retry: opts.retry });
}

interface StoreStatus {
  /** The file path, or the database URL without its password. */
  location: string;
  exists: boolean;
  counts: QueueCounts;
  failed: FailedEvent[];
}

/** For `svc-sync queue`: counts and failed events with their last error; never creates a SQLite file. */
export async function storeStatus(where: QueueLocation, failedLimit = 100): Promise<StoreStatus> {
  if (!where.url) {
    const s = queueStatus(where.path ?? DEFAULT_QUEUE_PATH, failedLimit);
    return { location: s.path, exists: s.exists, counts: s.counts, failed: s.failed };
  }
  const queue = openQueue(where);
  try {
    return { location: queue.location, exists: true, counts: await queue.counts(), failed: await queue.failedEvents(failedLimit) };
  } finally {
    await queue.close();
  }
}

/** For `svc-sync queue retry`: makes failed events due now; returns how many. */
export async function storeRetryFailed(where: QueueLocation): Promise<number> {
  if (!where.url) return retryFailed(where.path ?? DEFAULT_QUEUE_PATH);
  const queue = openQueue(where);
  try {
    return await queue.retryFailed();
  } finally {
    await queue.close();
  }
}
