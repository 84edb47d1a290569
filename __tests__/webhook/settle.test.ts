/**
 * Webhooks as the platform delivers them (one POST at a time, each waiting for its answer), through
 * the receiver, the queue, the worker with its settle window, and the real engine against the fake
 * platform: a trickle becomes one planned batch, and a stream stays inside the budget the platform's
 * X-RateLimit headers give. No timing is asserted: the clock is injected, or only counts are checked.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import type { Settings } from '../../src/config/settings.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { SYNC_ORDER } from '../../src/model/objects.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { startWorker, type Worker, type WorkerStats } from '../../src/webhook/worker/worker.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { FakeRateLimit } from '../../fixtures/platform/server.js';
import { eventually, postJson, tempQueue, type TempDir } from './helpers.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 400, newsletterSubscriptions: 0 };

let stack: Stack | undefined;
let dir: TempDir | undefined;
let receiver: Receiver | undefined;
let worker: Worker | undefined;
let queue: SqliteQueue | undefined;
let service: RunningService | undefined;

afterEach(async () => {
  await service?.stop();
  await receiver?.close();
  await worker?.stop();
  await queue?.close();
  await stack?.close();
  dir?.cleanup();
  service = receiver = worker = queue = stack = dir = undefined;
});

/** A stack whose org already mirrors the site (the steady state webhooks meet). */
async function mirrored(rateLimit?: FakeRateLimit): Promise<{ stack: Stack; settings: Settings; dir: TempDir }> {
  const s = await startStack({ site: SITE, ...(rateLimit ? { rateLimit } : {}) });
  const d = tempQueue();
  stack = s;
  dir = d;
  const settings = settingsOf(loadRaw({ env: s.env, cwd: d.dir }));
  const engine = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), { dryRun: false, force: false, strictParents: false, batchSize: 500 });
  await engine.syncScan([...SYNC_ORDER], {});
  expect(engine.report.failed).toBe(0);
  return { stack: s, settings, dir: d };
}

/** Paid donations to announce: each is changed on the platform just before its event. */
function paidDonations(s: Stack, n: number): number[] {
  return s.platform.site.donation
    .filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0)
    .slice(0, n)
    .map((d) => d.id);
}

/**
 * A processor that has seen the donation list once unfiltered (one probe page of three ids): a
 * full page shows every key the mapping reads on some record, which settles that list pages are
 * complete at no cost. A narrowed page alone could not (an optional key may be on none of its
 * records): a fresh processor reads records by id until it can tell (see platform/listShape.ts).
 */
async function warmed(s: Stack, settings: Settings): Promise<ReturnType<typeof createEngineProcessor>> {
  const processor = createEngineProcessor(composeConnection(settings));
  const ids = s.platform.site.donation.slice(0, 3).map((d) => ({ type: 'donation' as const, id: d.id }));
  await processor.process(ids);
  return processor;
}

async function trickle(s: Stack, url: string, ids: number[]): Promise<void> {
  for (const id of ids) {
    s.platform.update('donation', id, { message: `changed ${id}` });
    const reply = await postJson(url, { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 1 });
    expect(reply.status).toBe(200);
  }
}

describe('the settle window', () => {
  it('coalesces a trickle into one planned batch: a narrowed list scan, no by-id fetch per event', async () => {
    const { stack: s, settings, dir: d } = await mirrored();
    // The policy's clock runs with the real one, and jumps ahead when the test says.
    let ahead = 0;
    queue = new SqliteQueue(d.db);
    const w = startWorker({ queue, processor: await warmed(s, settings), loop: false, settleMs: 30_000, now: () => Date.now() + ahead, log: () => undefined });
    worker = w;
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, onEnqueued: () => w.wake() });
    const ids = paidDonations(s, 40);
    s.platform.resetCounts();

    // One event at a time, as the platform delivers; within the window nothing starts.
    for (const [i, id] of ids.entries()) {
      await trickle(s, `${receiver.url}/webhooks`, [id]);
      if (i % 10 === 0) expect(await w.runOnce()).toBeUndefined();
    }
    expect(await w.runOnce()).toBeUndefined();
    expect(s.platform.requests.total).toBe(0);
    expect(w.stats().waiting).toMatch(/^settling \(40 events, 40 refs pending\)$/);

    ahead = 30_000;
    const batch = await w.runOnce();
    expect(batch).toMatchObject({ events: 40, refs: 40, done: 40, failed: 0 });
    // The planner read the list narrowed to the batch's changes; by id it would have taken 40.
    expect(s.platform.requests.byId.donations ?? 0).toBe(0);
    expect(batch?.requests).toBe(s.platform.requests.total);
    expect(batch?.requests).toBeLessThanOrEqual(4);
    expect(batch?.requestsPerEvent).toBeLessThanOrEqual(0.1);
    for (const id of ids) expect(s.salesforce.get('Svc_Donation__c', `Donation_${id}`)?.Message__c).toBe(`changed ${id}`);
    expect(await w.runOnce()).toBeUndefined();
    expect(w.stats()).toMatchObject({ batches: 1, events: 40, requests: batch?.requests });
  });

  it('settle 0 keeps the old behaviour: a batch starts as soon as an event is pending', async () => {
    const { settings, dir: d } = await mirrored();
    queue = new SqliteQueue(d.db);
    const w = startWorker({ queue, processor: createEngineProcessor(composeConnection(settings)), loop: false, settleMs: 0, log: () => undefined });
    worker = w;
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
    const [id] = paidDonations(stack as Stack, 1);
    await trickle(stack as Stack, `${receiver.url}/webhooks`, [id as number]);
    expect(await w.runOnce()).toMatchObject({ events: 1, refs: 1, done: 1 });
  });
});

describe('the platform budget', () => {
  it("a stream stays inside the budget the fake platform's headers give: no 429, no pacing wait", async () => {
    // Windows of 60 s (the hour is 60 of them): what the mirror leaves of the hour is the stream's budget.
    // The hour holds the mirror and the processor's first look at the donation list (up to 44 records
    // by id where a key is on none of a page's records), then what is left is the stream's budget.
    const { stack: s, settings, dir: d } = await mirrored({ perMinute: 1_000, perHour: 100, windowMs: 60_000 });
    const processor = await warmed(s, settings);
    const left = 100 - s.platform.requests.total;
    expect(left).toBeGreaterThan(10);
    // More events than requests left in the hour: fetching each by id cannot fit.
    const ids = paidDonations(s, left + 20);
    const events = ids.length;
    expect(events).toBeGreaterThan(left);
    const lines: string[] = [];
    service = await serve({
      processor,
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      queue: { kind: 'sqlite', path: d.db },
      settleMs: 300,
      pollMs: 50,
      handleSignals: false,
      log: (l) => lines.push(l),
    });
    const before = s.platform.requests.total;

    await trickle(s, `${service.url}/webhooks`, ids);
    await eventually(async () => (await (service as RunningService).queue.counts()).done === events, 'every event done', 60_000);

    const used = s.platform.requests.total - before;
    expect(s.platform.requests.rateLimited).toBe(0);
    expect(used).toBeLessThanOrEqual(left);
    expect(used).toBeLessThan(events);
    for (const id of ids) expect(s.salesforce.get('Svc_Donation__c', `Donation_${id}`)?.Message__c).toBe(`changed ${id}`);

    // Every batch's line and /healthz say what it cost and what is left.
    const batchLines = lines.filter((l) => l.startsWith('webhook batch:'));
    expect(batchLines.length).toBeGreaterThan(0);
    for (const l of batchLines) expect(l).toMatch(/\d+ platform requests? \([\d.]+ per event\), budget left \d+\/h \d+\/min$/);
    const health = (await (await fetch(`${service.url}/healthz`)).json()) as { batches: WorkerStats };
    expect(health.batches).toMatchObject({ settleMs: 300, events, requests: used });
    expect(health.batches.requestsPerEvent).toBeLessThan(1);
    expect(health.batches.last?.budgetLeft?.hour).toBeGreaterThanOrEqual(0);
  });
});
