/**
 * `svc-sync serve`: the receiver and the worker in one process, one queue (a SQLite file, or a
 * PostgreSQL database shared with other receivers), and a graceful stop on SIGTERM/SIGINT (stop
 * accepting, finish the batch in flight, close the database).
 */
import type { ClassifyOptions } from '../sync/webhookEvents.js';
import { ServeMetrics } from './metrics.js';
import { openQueue, type QueueLocation } from './openQueue.js';
import { PgQueue } from './pgQueue.js';
import { DEFAULT_QUEUE_PATH, WebhookQueue, type BackoffPolicy } from './queue.js';
import type { QueueStore } from './queueStore.js';
import { acquireReceiverLock } from './receiverLock.js';
import { startReceiver } from './server.js';
import { statusRoute } from './statusRoute.js';
import { startWorker, type BatchProcessor } from './worker.js';

/** What a processor may use of the running service: the shared budget (PostgreSQL) and the metrics. */
export interface ProcessorContext {
  queue: QueueStore;
  /** Present when the queue is in PostgreSQL: pacing shared with the other receivers. */
  sharedBudget?: PgQueue['sharedBudget'];
  metrics: ServeMetrics;
}

export interface ServeOptions {
  host?: string;
  port?: number;
  path?: string;
  /** SVC_WEBHOOK_SECRET: required as header X-Webhook-Secret or as the last path segment. */
  secret?: string;
  /** SVC_ADMIN_TOKEN: turns on the status page at GET /status (off, 404, without it). */
  adminToken?: string;
  queuePath?: string;
  /** SVC_QUEUE_URL: a postgres:// URL puts the queue in PostgreSQL (then queuePath is unused). */
  queueUrl?: string;
  /** SVC_QUEUE_SCHEMA and SVC_QUEUE_LEASE_S (ms here), PostgreSQL only. */
  queueSchema?: string;
  leaseMs?: number;
  /** The processor, or a factory given the opened queue and the metrics. */
  processor: BatchProcessor | ((ctx: ProcessorContext) => BatchProcessor);
  batchSize?: number;
  gatherMs?: number;
  pollMs?: number;
  /** The worker's settle window (0, the default here: claim at once); see batchPolicy.ts. */
  settleMs?: number;
  maxBodyBytes?: number;
  /** See ClassifyOptions.applications. */
  applications?: ClassifyOptions['applications'];
  retry?: Partial<BackoffPolicy>;
  /** The worker's wait after queue errors (doubling, capped). */
  backoff?: Partial<BackoffPolicy>;
  /** Done and ignored events are deleted after this many days (checked hourly). */
  keepDays?: number;
  log?: (line: string) => void;
  /** Install SIGTERM/SIGINT handlers (default true; tests embedding serve pass false). */
  handleSignals?: boolean;
}

export interface RunningService {
  url: string;
  port: number;
  queue: QueueStore;
  metrics: ServeMetrics;
  /** Stops accepting, finishes the batch in flight, closes the database. Idempotent. */
  stop(): Promise<void>;
  /** Resolves once stopped, whether by stop() or by a signal: the CLI command awaits it. */
  closed: Promise<void>;
}

export const DEFAULT_SERVE = { host: '0.0.0.0', port: 8080, path: '/webhooks', keepDays: 7 } as const;

export async function serve(opts: ServeOptions): Promise<RunningService> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const path = opts.path ?? DEFAULT_SERVE.path;
  const where: QueueLocation = {
    path: opts.queuePath ?? DEFAULT_QUEUE_PATH,
    ...(opts.queueUrl === undefined ? {} : { url: opts.queueUrl }),
    ...(opts.queueSchema === undefined ? {} : { schema: opts.queueSchema }),
    ...(opts.leaseMs === undefined ? {} : { leaseMs: opts.leaseMs }),
  };
  const queue = openQueue(where, { log, ...(opts.retry === undefined ? {} : { retry: opts.retry }) });
  // SQLite: one receiver per file, locked before the worker starts (its recovery would hand another
  // receiver's claims back as pending). PostgreSQL is made for several: claims carry leases instead.
  let lock;
  try {
    lock = queue instanceof WebhookQueue ? acquireReceiverLock(queue.path) : { release: () => undefined };
  } catch (error) {
    await queue.close();
    throw error;
  }
  const held = lock;
  const keepDays = opts.keepDays ?? DEFAULT_SERVE.keepDays;
  const metrics = new ServeMetrics();
  metrics.watch(queue);
  if (queue instanceof PgQueue) {
    // Create the tables now when the database is there; when it is not, serve starts anyway
    // (answering 503) and every later call tries again.
    await queue.migrate().catch((error: unknown) => log(`webhook queue: database unavailable at start, retrying on use: ${(error as Error).message}`));
  }
  const processor =
    typeof opts.processor === 'function'
      ? opts.processor({ queue, metrics, ...(queue instanceof PgQueue ? { sharedBudget: queue.sharedBudget.bind(queue) } : {}) })
      : opts.processor;

  const worker = startWorker({
    queue,
    processor,
    log,
    onBatch: (report) => metrics.batch(report),
    ...(opts.batchSize === undefined ? {} : { batchSize: opts.batchSize }),
    ...(opts.gatherMs === undefined ? {} : { gatherMs: opts.gatherMs }),
    ...(opts.pollMs === undefined ? {} : { pollMs: opts.pollMs }),
    ...(opts.settleMs === undefined ? {} : { settleMs: opts.settleMs }),
    ...(opts.backoff === undefined ? {} : { backoff: opts.backoff }),
  });

  let receiver;
  try {
    receiver = await startReceiver({
      host: opts.host ?? DEFAULT_SERVE.host,
      port: opts.port ?? DEFAULT_SERVE.port,
      path,
      queue,
      log,
      metrics,
      onEnqueued: () => worker.wake(),
      health: () => {
        const state = worker.health();
        return { degraded: state.state !== 'ok', details: { worker: state, batches: worker.stats() } };
      },
      ...(opts.secret ? { secret: opts.secret } : {}),
      ...(opts.adminToken ? { status: statusRoute({ token: opts.adminToken, queue, log, worker: () => worker.snapshot(), budget: () => processor.budget?.() }) } : {}),
      ...(opts.maxBodyBytes === undefined ? {} : { maxBodyBytes: opts.maxBodyBytes }),
      ...(opts.applications === undefined ? {} : { classify: { applications: opts.applications } }),
    });
  } catch (error) {
    // Port taken and the like: leave nothing running behind.
    await worker.stop();
    await queue.close();
    held.release();
    throw error;
  }
  const started = receiver;

  const prune = async (): Promise<void> => {
    try {
      const removed = await queue.prune(keepDays);
      if (removed > 0) log(`webhook queue: pruned ${removed} finished events older than ${keepDays} days`);
    } catch (error) {
      log(`webhook queue: prune failed: ${(error as Error).message}`);
    }
  };
  await prune();
  const pruneTimer = setInterval(() => void prune(), 60 * 60_000);
  pruneTimer.unref();

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(pruneTimer);
      await Promise.all([started.close(), worker.stop()]);
      await queue.close();
      held.release();
      removeSignals();
      log('svc-sync serve: stopped');
      resolveClosed();
    })();
    return stopping;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping !== undefined) {
      // Second signal: the operator insists. Claimed events are recovered on the next start.
      log(`svc-sync serve: ${signal} again, exiting now`);
      process.exit(1);
    }
    log(`svc-sync serve: ${signal}: no longer accepting; finishing the batch in flight`);
    void stop();
  };
  const removeSignals = (): void => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  if (opts.handleSignals !== false) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  log(`svc-sync serve: listening on ${started.url}${path} (secret ${opts.secret ? 'required' : 'not set'}; status page ${opts.adminToken ? '/status' : 'off'}), queue ${queue.location}`);
  return { url: started.url, port: started.port, queue, metrics, stop, closed };
}

