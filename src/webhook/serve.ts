/**
 * `svc-sync serve`: the receiver and the worker in one process, one queue (a SQLite file, or a
 * PostgreSQL database shared with other receivers), and a graceful stop on SIGTERM/SIGINT (stop
 * accepting, finish the batch in flight, close the database).
 */
import { counted } from '../model/counted.js';
import { DEFAULT_SERVE } from './serveDefaults.js';
import type { LogSink } from '../config/log.js';
import { ConfigError, InterruptedError, STOP_SIGNALS, exitOfSignal, type StopSignal } from '../model/errors.js';
import type { ClassifyOptions } from '../sync/input/webhookEvents.js';
import { ServeMetrics } from './metrics.js';
import type { QueueLocation } from '../config/settings.js';
import { openQueue } from './queue/open.js';
import { DEFAULT_QUEUE_PATH } from '../config/webhookSettings.js';
import { type BackoffPolicy } from './queue/store.js';
import type { QueueStore } from './queue/store.js';
import { acquireReceiverLock } from './queue/receiverLock.js';
import { startReceiver } from './receiver/server.js';
import { statusRoute } from './status/statusRoute.js';
import type { BatchProcessor } from './worker/worker.js';
import { lanesHealth, ownerOf, startLanes, watchStrays, type Lane, type ProcessorContext, type ServeConnection } from './lanes.js';

export type { ServeConnection } from './lanes.js';

interface ServeOptions {
  host?: string | undefined;
  port?: number | undefined;
  path?: string | undefined;
  /** SVC_WEBHOOK_SECRET: required as header X-Webhook-Secret or as the last path segment. */
  secret?: string | undefined;
  /** SVC_ADMIN_TOKEN: turns on the status page at GET /status (off, 404, without it). */
  adminToken?: string | undefined;
  /** Where the queue lives (default: the SQLite file .svc-sync/queue.db). */
  queue?: QueueLocation | undefined;
  /** The processor, or a factory given the opened queue and the metrics (without `connections`). */
  processor?: BatchProcessor | ((ctx: ProcessorContext) => BatchProcessor);
  /**
   * A config with "connections": one lane each (its site, secret and processor) over one queue;
   * `processor`, `secret` and `siteId` are then not used.
   */
  connections?: readonly ServeConnection[] | undefined;
  batchSize?: number | undefined;
  gatherMs?: number | undefined;
  pollMs?: number | undefined;
  /** The worker's settle window (0, the default here: claim at once); see batchPolicy.ts. */
  settleMs?: number | undefined;
  maxBodyBytes?: number | undefined;
  /** See ClassifyOptions.applications. */
  applications?: ClassifyOptions['applications'] | undefined;
  /** SVC_SITE_ID: webhooks of another site are answered 200 and recorded ignored. */
  siteId?: number | undefined;
  retry?: Partial<BackoffPolicy> | undefined;
  /** The worker's wait after queue errors (doubling, capped). */
  backoff?: Partial<BackoffPolicy> | undefined;
  /** Done and ignored events are deleted after this many days (checked hourly). */
  keepDays?: number | undefined;
  log?: LogSink | undefined;
  /** Install SIGTERM/SIGINT handlers (default true; tests embedding serve pass false). */
  handleSignals?: boolean | undefined;
  /** How often, when idle, the records ticked RetryRequested__c in the org are queued (default a minute). */
  retryPollMs?: number | undefined;
}

export interface RunningService {
  url: string;
  port: number;
  queue: QueueStore;
  metrics: ServeMetrics;
  /** Stops accepting, finishes the batch in flight, closes the database. Idempotent. */
  stop(): Promise<void>;
  /** Resolves once stopped, with the signal that stopped it (none for stop()): the CLI's exit code. */
  closed: Promise<StopSignal | undefined>;
}

/** A port in use or not allowed is a start problem naming the flag (exit 2), not a failed run. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') return new ConfigError(`--port ${port}: already in use on ${host} (another svc-sync serve or another program); choose another port`);
  if (code === 'EACCES') return new ConfigError(`--port ${port}: not allowed for this user on ${host} (ports below 1024 need privileges); choose a port from 1024`);
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`--host ${host}: not an address of this machine`);
  return error;
}

/** The queue opened and created (tables migrated when the database is there), and locked when it is a file one receiver owns. */
async function openStore(opts: ServeOptions, log: LogSink): Promise<{ queue: QueueStore; held: { release(): void } }> {
  const queue = await openQueue(opts.queue ?? { kind: 'sqlite', path: DEFAULT_QUEUE_PATH }, { create: true, log, retry: opts.retry });
  // SQLite: one receiver per file, locked before the worker starts (its recovery would hand another
  // receiver's claims back as pending). PostgreSQL is made for several: claims carry leases instead.
  try {
    const held = queue.receiverLockPath !== undefined ? acquireReceiverLock(queue.receiverLockPath) : { release: () => undefined };
    return { queue, held };
  } catch (error) {
    await queue.close();
    throw error;
  }
}

/** Finished events older than `keepDays` pruned now and every hour (a failure is logged, never fatal). */
async function startPruning(queue: QueueStore, keepDays: number, log: LogSink): Promise<NodeJS.Timeout> {
  const prune = async (): Promise<void> => {
    try {
      const removed = await queue.prune(keepDays);
      if (removed > 0) log(`webhook queue: pruned ${counted(removed, 'finished event')} older than ${keepDays} days`);
    } catch (error) {
      log(`webhook queue: prune failed: ${(error as Error).message}`, 'warn');
    }
  };
  await prune();
  const timer = setInterval(() => void prune(), 60 * 60_000);
  timer.unref();
  return timer;
}

/** What a running service is made of, for stopping it in order. */
interface ServiceParts {
  halt: AbortController;
  /** Pruning, the lanes' retry polls, the stray-events warning. */
  timers: Array<NodeJS.Timeout | undefined>;
  receiver: { close(): Promise<void> };
  /** Every connection's worker: each finishes its batch in flight. */
  workers: Array<{ stop(): Promise<void> }>;
  queue: QueueStore;
  held: { release(): void };
}

/** Stop, once: the platform waits of the batch in flight end, receiver and worker stop, the queue closes; SIGTERM / SIGINT / SIGHUP do it, a second one exits at once. */
function lifecycle(parts: ServiceParts, log: LogSink, handleSignals: boolean): { stop: () => Promise<void>; closed: Promise<StopSignal | undefined> } {
  let resolveClosed: (by: StopSignal | undefined) => void = () => undefined;
  const closed = new Promise<StopSignal | undefined>((resolve) => {
    resolveClosed = resolve;
  });
  let stopping: Promise<void> | undefined;
  let stoppedBy: StopSignal | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const timer of parts.timers) clearInterval(timer);
      // Ends any platform wait (a Retry-After of 10 minutes, a spent hour) of the batch in flight:
      // the worker hands its claim back, and the events are processed on the next start.
      parts.halt.abort(new InterruptedError(stoppedBy ?? 'SIGTERM'));
      await Promise.all([parts.receiver.close(), ...parts.workers.map((w) => w.stop())]);
      await parts.queue.close();
      parts.held.release();
      removeSignals();
      log('svc-sync serve: stopped');
      resolveClosed(stoppedBy);
    })();
    return stopping;
  };

  const onSignal = (signal: StopSignal): void => {
    if (stopping !== undefined) {
      // Second signal: the operator insists. Claimed events are recovered on the next start.
      log(`svc-sync serve: ${signal} again, exiting now`);
      process.exit(exitOfSignal(signal));
    }
    stoppedBy = signal;
    log(`svc-sync serve: ${signal}: no longer accepting; ending the batch in flight and handing its events back`);
    void stop();
  };
  const removeSignals = (): void => {
    for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
  };
  // SIGHUP too: a serve started in an SSH window that closes hands its batch back like SIGTERM.
  if (handleSignals) for (const sig of STOP_SIGNALS) process.on(sig, onSignal);

  return { stop, closed };
}

/** The connections to serve: those given, or the one implicit connection of the single-site options. */
function connectionsOf(opts: ServeOptions): readonly ServeConnection[] {
  if (opts.connections !== undefined && opts.connections.length > 0) return opts.connections;
  if (opts.processor === undefined) throw new Error('serve: a processor or connections are required');
  return [{ name: undefined, siteId: opts.siteId, secret: opts.secret, processor: opts.processor }];
}

/** The start line's words for the connections of a config with "connections" (no secret in it). */
function connectionsLine(lanes: readonly Lane[], connections: readonly ServeConnection[]): string {
  return connections.map((c) => `${c.name ?? ''} (site ${c.siteId ?? 'any'}, secret ${c.secret ? 'required' : 'not set'})`).join(', ') + ` on ${lanes.length} worker${lanes.length === 1 ? '' : 's'}`;
}

/** The status page over the lanes: the one worker's, or (named connections) one section each. */
function statusOf(token: string, queue: QueueStore, log: LogSink, lanes: readonly Lane[], named: boolean): ReturnType<typeof statusRoute> {
  const first = lanes[0] as Lane;
  return statusRoute({
    token,
    queue,
    log,
    worker: () => first.worker.snapshot(),
    budget: () => first.processor.budget?.(),
    ...(named ? { connections: () => lanes.map((l) => ({ name: l.name ?? '', keys: l.keys, worker: l.worker.snapshot(), budget: l.processor.budget?.() })) } : {}),
  });
}

export async function serve(opts: ServeOptions): Promise<RunningService> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const path = opts.path ?? DEFAULT_SERVE.path;
  const connections = connectionsOf(opts);
  const named = connections.some((c) => c.name !== undefined);
  const { queue, held } = await openStore(opts, log);
  const keepDays = opts.keepDays ?? DEFAULT_SERVE.keepDays;
  const metrics = new ServeMetrics(named);
  const halt = new AbortController();
  const lanes = startLanes(connections, {
    queue,
    metrics,
    stop: halt.signal,
    log,
    retryPollMs: opts.retryPollMs,
    tuning: { batchSize: opts.batchSize, gatherMs: opts.gatherMs, pollMs: opts.pollMs, settleMs: opts.settleMs, backoff: opts.backoff },
  });
  metrics.watch(
    queue,
    named ? (stored) => ownerOf(lanes, stored)?.name ?? (stored === '' ? 'none' : `unknown:${stored}`) : undefined,
    lanes.map((l) => l.name ?? ''),
  );
  const workers = lanes.map((l) => l.worker);
  const first = lanes[0] as Lane;

  let receiver;
  try {
    receiver = await startReceiver({
      host: opts.host ?? DEFAULT_SERVE.host,
      port: opts.port ?? DEFAULT_SERVE.port,
      path,
      queue,
      log,
      metrics,
      // Only the lanes whose events were stored are woken.
      onEnqueued: (stored) => {
        for (const lane of lanes) if (lane.keys.some((k) => stored.has(k))) lane.worker.wake();
      },
      health: () => (named ? lanesHealth(lanes) : { degraded: first.worker.health().state !== 'ok', details: { worker: first.worker.health(), batches: first.worker.stats() } }),
      ...(named ? { connections } : { secret: connections[0]?.secret }),
      ...(opts.adminToken ? { status: statusOf(opts.adminToken, queue, log, lanes, named) } : {}),
      maxBodyBytes: opts.maxBodyBytes,
      classify: { applications: opts.applications, siteId: connections[0]?.siteId },
    });
  } catch (error) {
    // Port taken and the like: leave nothing running behind.
    await Promise.all(workers.map((w) => w.stop()));
    for (const lane of lanes) clearInterval(lane.retryTimer);
    await queue.close();
    held.release();
    throw listenError(error, opts.host ?? DEFAULT_SERVE.host, opts.port ?? DEFAULT_SERVE.port);
  }
  const started = receiver;

  const pruneTimer = await startPruning(queue, keepDays, log);
  const strays = named ? watchStrays(queue, lanes, log) : undefined;
  const timers = [pruneTimer, strays, ...lanes.map((l) => l.retryTimer)];

  const { stop, closed } = lifecycle({ halt, timers, receiver: started, workers, queue, held }, log, opts.handleSignals !== false);

  const secretWords = named ? '' : `secret ${connections[0]?.secret ? 'required' : 'not set'}; `;
  log(`svc-sync serve: listening on ${started.url}${path} (${secretWords}status page ${opts.adminToken ? '/status' : 'off'}), queue ${queue.location}`);
  if (named) log(`svc-sync serve: connections ${connectionsLine(lanes, connections)}; ${path}/<name> routes to one`);
  return { url: started.url, port: started.port, queue, metrics, stop, closed };
}
