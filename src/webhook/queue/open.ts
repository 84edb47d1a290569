/**
 * The one place that opens the webhook queue where the settings put it (config's QueueLocation,
 * resolved with its defaults): the PostgreSQL queue, or the SQLite file.
 */
import type { QueueLocation } from '../../config/settings.js';
import { PgQueue } from './postgres.js';
import { queueStatus, retryFailed, SqliteQueue } from './sqlite.js';
import type { BackoffPolicy, FailedEvent, QueueCounts, QueueStore } from './store.js';

interface OpenQueueOptions {
  retry?: Partial<BackoffPolicy> | undefined;
  log?: ((line: string) => void) | undefined;
}

export function openQueue(where: QueueLocation, opts: OpenQueueOptions = {}): QueueStore {
  if (where.kind === 'postgres') return new PgQueue({ url: where.url, schema: where.schema, leaseMs: where.leaseMs, retry: opts.retry, log: opts.log });
  return new SqliteQueue(where.path, { retry: opts.retry });
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
  if (where.kind === 'sqlite') {
    const s = queueStatus(where.path, failedLimit);
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
  if (where.kind === 'sqlite') return retryFailed(where.path);
  const queue = openQueue(where);
  try {
    return await queue.retryFailed();
  } finally {
    await queue.close();
  }
}
