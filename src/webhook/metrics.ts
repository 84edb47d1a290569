/**
 * `serve`'s /metrics in the Prometheus text format (prom-client), one registry per process.
 * Queue depth is read from the queue at scrape time, so with PostgreSQL every receiver reports
 * the shared queue (alert on max(), not sum()); counters are this process's own.
 */
import { eventTypeLabel } from '../sync/input/webhookEvents.js';
import type client from 'prom-client';
import { lazyModule } from '../model/lazyModule.js';
import type { PlatformRequestInfo, RateLimitSnapshot } from '../model/budget.js';
import type { CrmCallCounts } from '../model/crmRecords.js';
import type { RunReport } from '../sync/report/report.js';
import type { QueueCounts } from './queue/store.js';
import type { QueueStore } from './queue/store.js';
import type { ReceiverMetrics } from './receiver/server.js';
import { ignoreKind } from './receiver/ignoreReason.js';
import type { BatchReport } from './worker/worker.js';

/** Loaded when serve starts: no other command pays for prom-client. */
const promClient = lazyModule<typeof client>('prom-client');

const STATES: ReadonlyArray<keyof QueueCounts> = ['pending', 'processing', 'failed', 'done', 'skipped', 'ignored'];
const CRM_KINDS: ReadonlyArray<Exclude<keyof CrmCallCounts, 'total'>> = ['query', 'collections', 'bulk', 'describe', 'auth'];

/** What one connection's worker and processor report; its series carry its `connection` label when the config has "connections". */
export interface ConnectionMetrics {
  batch(report: BatchReport, now?: number): void;
  platformRequest(info: PlatformRequestInfo): void;
  platformBudget(b: RateLimitSnapshot): void;
  engineBatch(report: RunReport, crmCalls: CrmCallCounts): void;
}

type Labels = Record<string, string>;

export class ServeMetrics implements ReceiverMetrics, ConnectionMetrics {
  readonly registry: client.Registry;
  private queue: QueueStore | undefined;
  /** Named connections: the label of a stored connection value (queue depth per connection). */
  private labelOf: ((stored: string) => string) | undefined;
  /** The connections shown with 0 events when the queue holds none of theirs. */
  private names: readonly string[] = [];
  private readonly received: client.Counter<'event_type' | 'status'>;
  private readonly ignoredEvents: client.Counter<'reason'>;
  private readonly queueDepth: client.Gauge;
  private readonly queueUp: client.Gauge;
  private readonly batchEvents: client.Histogram;
  private readonly batchDuration: client.Histogram;
  private readonly batchOutcomes: client.Counter;
  private readonly lastSuccess: client.Gauge;
  private readonly platformRequests: client.Counter;
  private readonly budget: client.Gauge;
  private readonly budgetLimit: client.Gauge;
  private readonly salesforceCalls: client.Counter;
  private readonly records: client.Counter;

  /** `named`: the config has "connections", and every per-connection series carries a `connection` label. */
  constructor(named = false) {
    const prom = promClient();
    this.registry = new prom.Registry();
    const registers = [this.registry];
    const per = (labels: string[]): string[] => (named ? [...labels, 'connection'] : labels);
    this.received = new prom.Counter({
      name: 'svc_sync_webhook_events_received_total',
      help: 'Webhook requests answered, by event type (unknown when unreadable) and HTTP status',
      labelNames: ['event_type', 'status'],
      registers,
    });
    this.ignoredEvents = new prom.Counter({
      name: 'svc_sync_webhook_events_ignored_total',
      help: 'Webhook events answered 200 and recorded ignored (never synced), by reason: no_site_id, other_site, application, event_type, object_type, other',
      labelNames: ['reason'],
      registers,
    });
    this.queueDepth = new prom.Gauge({
      name: 'svc_sync_queue_events',
      help: 'Events in the webhook queue by state (read from the queue at scrape time; shared by all receivers on one database)',
      labelNames: per(['state']),
      registers,
    });
    this.queueUp = new prom.Gauge({ name: 'svc_sync_queue_up', help: '1 when the queue answered the last scrape, 0 when it was unreachable', registers });
    this.batchEvents = new prom.Histogram({
      name: 'svc_sync_batch_events',
      help: 'Events per worker batch',
      buckets: [1, 5, 10, 50, 100, 500, 1000, 5000],
      labelNames: per([]),
      registers,
    });
    this.batchDuration = new prom.Histogram({
      name: 'svc_sync_batch_duration_seconds',
      help: 'Time to process one worker batch',
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      labelNames: per([]),
      registers,
    });
    this.batchOutcomes = new prom.Counter({ name: 'svc_sync_batch_events_total', help: 'Events finished by worker batches, by outcome', labelNames: per(['outcome']), registers });
    this.lastSuccess = new prom.Gauge({
      name: 'svc_sync_last_successful_batch_timestamp_seconds',
      help: 'When this receiver last finished a batch with no failed event (Unix time)',
      labelNames: per([]),
      registers,
    });
    this.platformRequests = new prom.Counter({
      name: 'svc_sync_platform_requests_total',
      help: 'Requests to the platform API, by kind and HTTP status (network errors: status none)',
      labelNames: per(['kind', 'status']),
      registers,
    });
    this.budget = new prom.Gauge({ name: 'svc_sync_platform_budget_remaining', help: 'Platform rate-limit budget left as last reported, by window', labelNames: per(['window']), registers });
    this.budgetLimit = new prom.Gauge({ name: 'svc_sync_platform_budget_limit', help: 'Platform rate limit as last reported, by window', labelNames: per(['window']), registers });
    this.salesforceCalls = new prom.Counter({ name: 'svc_sync_salesforce_calls_total', help: 'Salesforce API calls, by kind', labelNames: per(['kind']), registers });
    this.records = new prom.Counter({
      name: 'svc_sync_records_total',
      help: 'Records handled by worker batches, by Salesforce object and result (written, failed, unchanged, skipped)',
      labelNames: per(['object', 'result']),
      registers,
    });
    prom.collectDefaultMetrics({ register: this.registry, prefix: 'svc_sync_' });
  }

  /** The queue whose depth /metrics reports; with `labelOf`, per connection (the label of each stored connection value). */
  watch(queue: QueueStore, labelOf?: (stored: string) => string, names: readonly string[] = []): void {
    this.queue = queue;
    this.labelOf = labelOf;
    this.names = names;
  }

  /** One connection's series (its `connection` label; none for the implicit connection). */
  forConnection(name: string | undefined): ConnectionMetrics {
    const label: Labels = name === undefined ? {} : { connection: name };
    return {
      batch: (report, now) => this.batchOf(label, report, now),
      platformRequest: (info) => this.platformRequests.inc({ kind: info.kind, status: info.status === undefined ? 'none' : String(info.status), ...label }),
      platformBudget: (b) => this.budgetOf(label, b),
      engineBatch: (report, crmCalls) => this.engineBatchOf(label, report, crmCalls),
    };
  }

  answered(eventType: string | undefined, status: number): void {
    // Label values from fixed sets: 3,000 invented event types must not become 3,000 series.
    this.received.inc({ event_type: eventType === undefined ? 'unknown' : eventTypeLabel(eventType), status: String(status) });
  }

  ignored(reason: string): void {
    this.ignoredEvents.inc({ reason: ignoreKind(reason) });
  }

  batch(report: BatchReport, now: number = Date.now()): void {
    this.batchOf({}, report, now);
  }

  platformRequest(info: PlatformRequestInfo): void {
    this.forConnection(undefined).platformRequest(info);
  }

  platformBudget(b: RateLimitSnapshot): void {
    this.budgetOf({}, b);
  }

  engineBatch(report: RunReport, crmCalls: CrmCallCounts): void {
    this.engineBatchOf({}, report, crmCalls);
  }

  private batchOf(label: Labels, report: BatchReport, now: number = Date.now()): void {
    this.batchEvents.observe(label, report.events);
    this.batchDuration.observe(label, report.durationMs / 1000);
    this.batchOutcomes.inc({ outcome: 'done', ...label }, report.done);
    this.batchOutcomes.inc({ outcome: 'skipped', ...label }, report.skipped);
    this.batchOutcomes.inc({ outcome: 'failed', ...label }, report.failed);
    if (report.failed === 0) this.lastSuccess.set(label, now / 1000);
  }

  private budgetOf(label: Labels, b: RateLimitSnapshot): void {
    if (b.remainingMinute !== undefined) this.budget.set({ window: 'minute', ...label }, b.remainingMinute);
    if (b.remainingHour !== undefined) this.budget.set({ window: 'hour', ...label }, b.remainingHour);
    if (b.limitMinute !== undefined) this.budgetLimit.set({ window: 'minute', ...label }, b.limitMinute);
    if (b.limitHour !== undefined) this.budgetLimit.set({ window: 'hour', ...label }, b.limitHour);
  }

  private engineBatchOf(label: Labels, report: RunReport, crmCalls: CrmCallCounts): void {
    for (const kind of CRM_KINDS) if (crmCalls[kind] > 0) this.salesforceCalls.inc({ kind, ...label }, crmCalls[kind]);
    for (const [object, c] of report.summary) {
      const add = (result: string, n: number): void => {
        if (n > 0) this.records.inc({ object, result, ...label }, n);
      };
      add('written', c.inserted + c.updated);
      add('failed', c.failed);
      add('unchanged', c.unchanged);
      add('skipped', c.skipped);
    }
  }

  /** Reads the queue depth for this scrape. */
  private async refreshQueue(): Promise<void> {
    if (this.queue === undefined) return;
    try {
      if (this.labelOf === undefined) {
        const counts = await this.queue.counts();
        for (const state of STATES) this.queueDepth.set({ state }, counts[state]);
      } else {
        const labelOf = this.labelOf;
        const per = await this.queue.countsByConnection();
        this.queueDepth.reset();
        for (const connection of this.names) for (const state of STATES) this.queueDepth.set({ state, connection }, 0);
        for (const { connection, counts } of per) for (const state of STATES) this.queueDepth.inc({ state, connection: labelOf(connection) }, counts[state]);
      }
      this.queueUp.set(1);
    } catch {
      // The queue is unreachable: the previous depth is no longer true.
      this.queueDepth.reset();
      this.queueUp.set(0);
    }
  }

  async render(): Promise<{ contentType: string; body: string }> {
    await this.refreshQueue();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
