/**
 * The one place that opens the webhook queue where the settings put it (config's QueueLocation,
 * resolved with its defaults): the PostgreSQL queue, or the SQLite file; created, or only read.
 */
import type { LogSink } from '../../config/log.js';
import type { QueueLocation } from '../../config/settings.js';
import { PgQueue } from './postgres.js';
import { SqliteQueue } from './sqlite.js';
import { type BackoffPolicy, type ConnectionCounts, type ConnectionScope, type FailedEvent, type IgnoredReason, type OpenOptions, type QueueCounts, type QueueStore } from './store.js';

interface OpenQueueOptions extends OpenOptions {
  retry?: Partial<BackoffPolicy> | undefined;
  log?: LogSink | undefined;
}

/** Opens the queue; without `create`, a queue that is not there rejects with QueueMissingError. */
export async function openQueue(where: QueueLocation, opts: OpenQueueOptions): Promise<QueueStore> {
  if (where.kind === 'sqlite') return new SqliteQueue(where.path, { create: opts.create, access: opts.access, retry: opts.retry });
  const queue = new PgQueue({ url: where.url, schema: where.schema, leaseMs: where.leaseMs, retry: opts.retry, log: opts.log });
  try {
    await queue.open(opts);
  } catch (error) {
    await queue.close();
    throw error;
  }
  return queue;
}

interface StoreStatus {
  /** The file path, or the database URL without its password. */
  location: string;
  /** Always true: a queue that is not there is a QueueMissingError (kept in `queue --json`). */
  exists: true;
  counts: QueueCounts;
  failed: FailedEvent[];
  /** Events by state per stored connection value ('' : the implicit connection, and events from before connections). */
  byConnection: ConnectionCounts[];
  /** Why events were ignored, the most frequent reasons first. */
  ignored: IgnoredReason[];
}

/** Runs `use` on the queue if it is there; never creates it (a queue not there is a QueueMissingError, exit 2). */
async function withExisting<T>(where: QueueLocation, access: 'read' | 'write', use: (queue: QueueStore) => Promise<T>): Promise<T> {
  const queue = await openQueue(where, { create: false, access });
  try {
    return await use(queue);
  } finally {
    await queue.close();
  }
}

/** For `svc-sync queue`: counts and failed events with their last error; never creates a queue. */
export function storeStatus(where: QueueLocation, failedLimit = 100, scope?: ConnectionScope): Promise<StoreStatus> {
  return withExisting<StoreStatus>(where, 'read', async (whole) => {
    const queue = scope === undefined ? whole : whole.scoped(scope);
    return {
      location: queue.location,
      exists: true,
      counts: await queue.counts(),
      failed: await queue.failedEvents(failedLimit),
      byConnection: await queue.countsByConnection(),
      ignored: await queue.ignoredReasons(),
    };
  });
}

/** For `svc-sync queue retry`: makes failed events due now (of one connection's, with `scope`); returns how many. */
export function storeRetryFailed(where: QueueLocation, scope?: ConnectionScope): Promise<number> {
  return withExisting(where, 'write', (queue) => (scope === undefined ? queue : queue.scoped(scope)).retryFailed());
}
