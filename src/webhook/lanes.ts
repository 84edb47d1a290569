/**
 * One lane per connection inside one `serve` (issue 31): its view of the shared queue (its events
 * only), its processor (its platform key and budget, its org), its worker and its retry poll, and
 * its log lines prefixed with its name. A lane whose org refuses its login fails its own batches
 * (retried with the queue's backoff) while the other lanes go on. Without "connections" there is
 * one lane, the implicit connection's, over the whole queue, exactly as before connections.
 */
import { counted } from '../model/counted.js';
import type { LogSink } from '../config/log.js';
import type { SharedBudget } from '../model/budget.js';
import type { ConnectionMetrics, ServeMetrics } from './metrics.js';
import type { QueueStore } from './queue/store.js';
import { startRetryPoll } from './worker/retryPoll.js';
import type { RouteTarget } from './receiver/routing.js';
import { startWorker, type BatchProcessor, type Worker } from './worker/worker.js';
import type { WorkerOptions } from './worker/workerTypes.js';

/** What a processor may use of the running service: the shared budget (PostgreSQL) and its connection's metrics. */
export interface ProcessorContext {
  /** The connection's view of the queue. */
  queue: QueueStore;
  /** Present when the queue is in PostgreSQL: pacing shared with the other receivers. */
  sharedBudget?: (key: string) => SharedBudget;
  metrics: ConnectionMetrics;
  /** Aborted when serve stops: platform waits of the batch in flight end at once (its claim is handed back). */
  stop: AbortSignal;
}

/** One connection as `serve` is given it. */
export interface ServeConnection extends RouteTarget {
  /** The processor, or a factory given the connection's queue view and metrics. */
  processor: BatchProcessor | ((ctx: ProcessorContext) => BatchProcessor);
}

export interface Lane {
  name: string | undefined;
  /** The stored connection values whose events this lane claims. */
  keys: readonly string[];
  queue: QueueStore;
  processor: BatchProcessor;
  worker: Worker;
  retryTimer: NodeJS.Timeout | undefined;
}

type WorkerTuning = Pick<WorkerOptions, 'batchSize' | 'gatherMs' | 'pollMs' | 'settleMs' | 'backoff'>;

interface LaneOptions {
  queue: QueueStore;
  metrics: ServeMetrics;
  stop: AbortSignal;
  log: LogSink;
  tuning: WorkerTuning;
  retryPollMs?: number | undefined;
}

/**
 * The stored values a connection claims: its name; and '' (events of a queue from before
 * connections) when it is the config's only connection. The implicit connection claims ''.
 */
export function connectionKeys(name: string | undefined, count: number): string[] {
  if (name === undefined) return [''];
  return count === 1 ? [name, ''] : [name];
}

/** Which connection a stored value belongs to: its name, or undefined (a connection the config no longer has). */
export function ownerOf(lanes: readonly Lane[], stored: string): Lane | undefined {
  return lanes.find((l) => l.keys.includes(stored));
}

export function startLanes(connections: readonly ServeConnection[], o: LaneOptions): Lane[] {
  const named = connections.some((c) => c.name !== undefined);
  return connections.map((c) => {
    const keys = connectionKeys(c.name, connections.length);
    const name = c.name;
    const queue = named && name !== undefined ? o.queue.scoped({ home: name, keys }) : o.queue;
    const metrics = named ? o.metrics.forConnection(name) : o.metrics;
    const log: LogSink = name === undefined || !named ? o.log : (line, level) => o.log(`connection ${name}: ${line}`, level);
    const ctx: ProcessorContext = { queue, metrics, stop: o.stop, ...(o.queue.sharedBudget !== undefined ? { sharedBudget: o.queue.sharedBudget.bind(o.queue) } : {}) };
    const processor = typeof c.processor === 'function' ? c.processor(ctx) : c.processor;
    const worker = startWorker({ queue, processor, log, onBatch: (report) => metrics.batch(report), ...o.tuning });
    const requested = processor.retryRequested?.bind(processor);
    const retryTimer = requested === undefined ? undefined : startRetryPoll({ requested, queue, worker, log, everyMs: o.retryPollMs });
    return { name, keys, queue, processor, worker, retryTimer };
  });
}

/** /healthz's part per connection (a config with "connections"): each worker's state, why it waits, its batches. */
export function lanesHealth(lanes: readonly Lane[]): { degraded: boolean; details: Record<string, unknown> } {
  let degraded = false;
  const byConnection: Record<string, unknown> = {};
  for (const lane of lanes) {
    const health = lane.worker.health();
    const snap = lane.worker.snapshot();
    const paused = snap.state === 'paused';
    if (health.state !== 'ok' || paused) degraded = true;
    byConnection[lane.name ?? ''] = {
      status: health.state !== 'ok' ? 'degraded' : paused ? 'paused' : 'ok',
      state: snap.state,
      ...(snap.why === undefined ? {} : { why: snap.why }),
      worker: health,
      batches: lane.worker.stats(),
    };
  }
  return { degraded, details: { byConnection } };
}

/**
 * Events of a connection the config no longer has stay pending (nothing claims them): said at
 * start and once a minute while there are any, so the operator can add it back or let them be pruned.
 */
export function watchStrays(queue: QueueStore, lanes: readonly Lane[], log: LogSink): NodeJS.Timeout {
  const check = async (): Promise<void> => {
    try {
      for (const { connection, counts } of await queue.countsByConnection()) {
        const open = counts.pending + counts.failed + counts.processing;
        if (open > 0 && ownerOf(lanes, connection) === undefined) {
          const who = connection === '' ? 'no connection (a queue from before "connections")' : `connection "${connection}" (not among the connections this serve runs)`;
          log(`webhook queue: warning: ${counted(open, 'open event')} of ${who} ${open === 1 ? 'is' : 'are'} left pending; serve that connection to sync them`, 'warn');
        }
      }
    } catch {
      // The queue is unreachable: the worker says so.
    }
  };
  void check();
  const timer = setInterval(() => void check(), 60_000);
  timer.unref();
  return timer;
}
