/**
 * `svc-sync serve`: the receiver and the worker in one process, one queue file, and a graceful
 * stop on SIGTERM/SIGINT (stop accepting, finish the batch in flight, close the database).
 */
import type { ClassifyOptions } from '../sync/webhookEvents.js';
import { DEFAULT_QUEUE_PATH, WebhookQueue, type BackoffPolicy } from './queue.js';
import { acquireReceiverLock } from './receiverLock.js';
import { startReceiver } from './server.js';
import { startWorker, type BatchProcessor } from './worker.js';

export interface ServeOptions {
  host?: string;
  port?: number;
  path?: string;
  /** SVC_WEBHOOK_SECRET: required as header X-Webhook-Secret or as the last path segment. */
  secret?: string;
  queuePath?: string;
  processor: BatchProcessor;
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
  queue: WebhookQueue;
  /** Stops accepting, finishes the batch in flight, closes the database. Idempotent. */
  stop(): Promise<void>;
  /** Resolves once stopped, whether by stop() or by a signal: the CLI command awaits it. */
  closed: Promise<void>;
}

export const DEFAULT_SERVE = { host: '0.0.0.0', port: 8080, path: '/webhooks', keepDays: 7 } as const;

export async function serve(opts: ServeOptions): Promise<RunningService> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const path = opts.path ?? DEFAULT_SERVE.path;
  const queue = new WebhookQueue(opts.queuePath ?? DEFAULT_QUEUE_PATH, opts.retry === undefined ? {} : { retry: opts.retry });
  // Before the worker starts: its recovery would hand another receiver's claims back as pending.
  let lock;
  try {
    lock = acquireReceiverLock(queue.path);
  } catch (error) {
    queue.close();
    throw error;
  }
  const held = lock;
  const keepDays = opts.keepDays ?? DEFAULT_SERVE.keepDays;

  const worker = startWorker({
    queue,
    processor: opts.processor,
    log,
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
      onEnqueued: () => worker.wake(),
      health: () => {
        const state = worker.health();
        return { degraded: state.state !== 'ok', details: { worker: state, batches: worker.stats() } };
      },
      ...(opts.secret ? { secret: opts.secret } : {}),
      ...(opts.maxBodyBytes === undefined ? {} : { maxBodyBytes: opts.maxBodyBytes }),
      ...(opts.applications === undefined ? {} : { classify: { applications: opts.applications } }),
    });
  } catch (error) {
    // Port taken and the like: leave nothing running behind.
    await worker.stop();
    queue.close();
    held.release();
    throw error;
  }
  const started = receiver;

  const prune = (): void => {
    try {
      const removed = queue.prune(keepDays);
      if (removed > 0) log(`webhook queue: pruned ${removed} finished events older than ${keepDays} days`);
    } catch (error) {
      log(`webhook queue: prune failed: ${(error as Error).message}`);
    }
  };
  prune();
  const pruneTimer = setInterval(prune, 60 * 60_000);
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
      queue.close();
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

  log(`svc-sync serve: listening on ${started.url}${path} (secret ${opts.secret ? 'required' : 'not set'}), queue ${queue.path}`);
  return { url: started.url, port: started.port, queue, stop, closed };
}

