/**
 * Webhook burst: 2,000 donations.update events for 1,000 donations (each picked at random, seeded,
 * so a donation is announced about twice, at random moments of the burst) posted over loopback
 * with bounded concurrency to a live receiver + worker. Duplicates still pending together are
 * coalesced; a duplicate that arrives after its ref was claimed is fetched again, as it should
 * (it may carry the paid status). Figures are printed, never asserted.
 *
 * Two runs of the same burst:
 *   1. counting processor: the receiver and the queue alone (events per second accepted, each 200
 *      after a durable commit; what the worker hands over).
 *   2. the real pipeline: the engine processor (src/webhook/worker/processor.ts) wired to the fake
 *      platform and the Salesforce emulator of fixtures/stack.ts (rate limit off), on a site of
 *      5,000 donations already mirrored by a full sync (the steady state a burst meets), whose
 *      announced donations were changed on the platform just before the burst. Prints events/s
 *      accepted, distinct refs processed, platform requests and Salesforce calls per event, time
 *      to drain, and one line per worker batch.
 *
 *   npm run build && node dist/bench/webhook-burst.js [events=2000] [donations=1000] [concurrency=32] [siteDonations=5000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../src/config/settings.js';
import { SalesforceSink } from '../src/crm/sink.js';
import type { ObjectRef } from '../src/model/objects.js';
import { createPlatformSource } from '../src/platform/source.js';
import { SYNC_ORDER } from '../src/model/objects.js';
import { SyncEngine } from '../src/sync/mirror/engine.js';
import { emptyObjectCounts } from '../src/model/outcomes.js';
import { type ObjectCounts } from '../src/model/outcomes.js';
import { createEngineProcessor } from '../src/webhook/worker/processor.js';
import { composeConnection } from '../src/sync/connection.js';
import { SqliteQueue } from '../src/webhook/queue/sqlite.js';
import { type QueueCounts } from '../src/webhook/queue/store.js';
import { startReceiver } from '../src/webhook/receiver/server.js';
import { startWorker, type BatchHints, type BatchProcessor, type ProcessResult } from '../src/webhook/worker/worker.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { postJson } from './live.js';
import { settingsOf } from '../src/config/load.js';
import { oneAtATime, type WarmState } from './webhook-one-at-a-time.js';
import { oneAtATimeCli } from './webhook-serve-cli.js';
import type { SiteOptions } from '../fixtures/platform/site.js';
import { keysRead } from '../src/mapping/keysRead.js';
import { defaultSite } from './sites.js';

/** `--one-at-a-time`: only part 3 (on a warm org of the same site), without the 2,000-event bursts. */
const onlyOneAtATime = process.argv.includes('--one-at-a-time');
/** `--vendor-shape`: the site as the vendor's examples have it (segments without end_date, subscriptions by project_id / segment_id). */
const vendorShape = process.argv.includes('--vendor-shape');
const [events = 2000, donations = 1000, concurrency = 32, siteDonations = 5000] = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--dangling')
  .map(Number);

/** The site parts 2 and 3 run on. */
/** `--dangling <share>`: that share of records on a parent the platform no longer has (real sites have them). */
const danglingAt = process.argv.indexOf('--dangling');
const dangling = danglingAt >= 0 ? Number(process.argv[danglingAt + 1]) : 0;
const siteOf = (): SiteOptions => ({ ...defaultSite(siteDonations), danglingParents: dangling });

class CountingProcessor implements BatchProcessor {
  calls = 0;
  refs = 0;
  readonly distinct = new Set<string>();
  constructor(private readonly inner?: BatchProcessor) {}
  async process(refs: ObjectRef[], hints?: BatchHints): Promise<ProcessResult> {
    this.calls++;
    this.refs += refs.length;
    for (const r of refs) this.distinct.add(`${r.type}:${r.id}`);
    if (this.inner) return this.inner.process(refs, hints);
    return { outcomes: refs.map((ref) => ({ ref, status: 'done' as const })) };
  }
}

/** The burst's event bodies: `events` donations.update over `ids.length` donations, seeded. */
function burstBodies(ids: number[]): string[] {
  let seed = 20240601;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: events }, () =>
    JSON.stringify({ object_type: 'Donation', object_id: ids[Math.floor(random() * ids.length)], event_type: 'donations.update', application: 'Kentaa', site_id: 1 }),
  );
}

interface BurstFigures {
  accepted: number;
  acceptSeconds: number;
  drainSeconds: number;
  counts: QueueCounts;
  durability: { synchronous: string | number; journalMode: string };
  batchLog: string[];
}

/** Posts the bodies to a fresh receiver + worker + queue and waits until every event is finished. */
async function runBurst(bodies: string[], processor: BatchProcessor): Promise<BurstFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-'));
  const queue = new SqliteQueue(path.join(dir, 'queue.db'));
  const batchLog: string[] = [];
  const worker = startWorker({ queue, processor, log: (line) => batchLog.push(line) });
  const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, onEnqueued: () => worker.wake() });
  const url = new URL(`${receiver.url}/webhooks`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    let next = 0;
    let accepted = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const status = await postJson(agent, url, bodies[next++] as string);
          if (status === 200) accepted++;
        }
      }),
    );
    const acceptSeconds = (performance.now() - started) / 1000;
    // Drained: every accepted event is done (skipped included) or failed (retried later, not waited for).
    for (;;) {
      const c = await queue.counts();
      if (c.done + c.skipped + c.failed >= accepted) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const drainSeconds = (performance.now() - started) / 1000;
    const d = await queue.durability();
    return { accepted, acceptSeconds, drainSeconds, counts: await queue.counts(), durability: { synchronous: d.synchronous, journalMode: d.journalMode }, batchLog };
  } finally {
    agent.destroy();
    await receiver.close();
    await worker.stop();
    await queue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 1. The receiver and the queue alone.

if (!onlyOneAtATime) {
  const plainIds = Array.from({ length: donations }, (_, i) => i + 1);
  const plainBodies = burstBodies(plainIds);
  const announcedPlain = new Set(plainBodies.map((b) => (JSON.parse(b) as { object_id: number }).object_id)).size;
  const counting = new CountingProcessor();
  const plain = await runBurst(plainBodies, counting);
  console.log(`webhook burst: ${events} donation events over ${announcedPlain} donations, concurrency ${concurrency}, ${plain.durability.journalMode}/synchronous=${plain.durability.synchronous}`);
  console.log('1. receiver + queue, counting processor');
  console.log(`  accepted (200):            ${plain.accepted} in ${plain.acceptSeconds.toFixed(2)} s = ${Math.round(plain.accepted / plain.acceptSeconds)} events/s`);
  console.log(`  drained (all done):        ${plain.drainSeconds.toFixed(2)} s after the first post`);
  console.log(`  processor calls (batches): ${counting.calls}`);
  console.log(`  refs handed to processor:  ${counting.refs} (${counting.distinct.size} distinct) = ${(counting.refs / plain.accepted).toFixed(3)} refs per event`);
}

// ---------------------------------------------------------------------------------------------
// 2. The real pipeline: engine processor, fake platform, Salesforce emulator.

/** A warm org: the site mirrored by a full sync (a nightly `sync --all`), and what that sync learned of the platform. */
async function warmOrg(): Promise<{ stack: Stack; settings: Settings; learned: WarmState; preSeconds: number }> {
  const stack = await startStack({
    site: { ...siteOf(), vendorShape },
  });
  // The stack's settings as the CLI resolves them; no queue is opened here.
  const settings: Settings = settingsOf(stack.env);
  const preStarted = performance.now();
  // Learning as `sync` does, so part 3 can start `serve`'s way: from the profile sync kept.
  const source = createPlatformSource(settings.platform, {}, undefined, { keysRead });
  const sink = await SalesforceSink.connect(settings.salesforce);
  const full = new SyncEngine(source, sink, { dryRun: false, force: false, strictParents: false, batchSize: 5_000 });
  await full.syncScan(SYNC_ORDER, {});
  return { stack, settings, learned: { profile: source.profile(), engine: full }, preSeconds: (performance.now() - preStarted) / 1000 };
}

if (!onlyOneAtATime) {
  const { stack, settings, preSeconds } = await warmOrg();
  try {
    // The burst announces `donations` donations of the site, each changed on the platform first.
    const siteIds = stack.platform.site.donation.map((d) => d.id);
    const step = Math.max(1, Math.floor(siteIds.length / donations));
    const announcedIds = siteIds.filter((_, i) => i % step === 0).slice(0, donations);
    const bodies = burstBodies(announcedIds);
    const announced = new Set(bodies.map((b) => (JSON.parse(b) as { object_id: number }).object_id));
    for (const id of announced) stack.platform.update('donation', id, { message: `updated during the burst ${id}` });

    stack.platform.resetCounts();
    stack.salesforce.resetCalls();
    const outcomes: ObjectCounts = emptyObjectCounts();
    const perBatch: Array<{ refs: number; platform: number; salesforce: number }> = [];
    let lastPlatform = 0;
    let lastSalesforce = 0;
    const engineProcessor = createEngineProcessor(composeConnection(settings), {
      onBatch: ({ refs, report }) => {
        for (const c of report.summary.values()) for (const k of Object.keys(outcomes) as Array<keyof ObjectCounts>) outcomes[k] += c[k];
        const p = stack.platform.requests.total;
        const s = stack.salesforce.calls().total;
        perBatch.push({ refs, platform: p - lastPlatform, salesforce: s - lastSalesforce });
        lastPlatform = p;
        lastSalesforce = s;
      },
    });
    const wrapped = new CountingProcessor(engineProcessor);
    const real = await runBurst(bodies, wrapped);

    const p = stack.platform.requests;
    const s = stack.salesforce.calls();
    const perEvent = (n: number): string => (n / Math.max(1, real.accepted)).toFixed(3);
    console.log(
      `\n2. real pipeline: engine processor + fake platform (rate limit off) + Salesforce emulator; site of ${siteIds.length} donations ` +
        `already mirrored (full sync ${preSeconds.toFixed(1)} s), the ${announced.size} announced donations changed on the platform before the burst`,
    );
    console.log(`  accepted (200):            ${real.accepted} in ${real.acceptSeconds.toFixed(2)} s = ${Math.round(real.accepted / real.acceptSeconds)} events/s`);
    console.log(`  drained (all finished):    ${real.drainSeconds.toFixed(2)} s after the first post`);
    console.log(`  queue at the end:          done ${real.counts.done}, skipped ${real.counts.skipped}, failed ${real.counts.failed}, pending ${real.counts.pending}`);
    console.log(`  batches (engine runs):     ${wrapped.calls}`);
    console.log(`  refs processed:            ${wrapped.refs} (${wrapped.distinct.size} distinct) = ${(wrapped.refs / real.accepted).toFixed(3)} refs per event`);
    console.log(`  engine outcomes:           ${outcomes.inserted} inserted, ${outcomes.updated} updated, ${outcomes.unchanged} unchanged, ${outcomes.skipped} skipped, ${outcomes.failed} failed`);
    console.log(`  platform requests:         ${p.total} (list ${p.listTotal}, by id ${p.byIdTotal}) = ${perEvent(p.total)} per event`);
    console.log(`  Salesforce calls:          ${s.total} (query ${s.query}, collections ${s.collections}, bulk ${s.bulk}) = ${perEvent(s.total)} per event`);
    console.log(`  naive (1 fetch per event): ${real.accepted} platform requests = 1.000 per event`);
    console.log('  per batch (worker log; platform requests / Salesforce calls of that batch):');
    real.batchLog
      .filter((line) => line.startsWith('webhook batch:'))
      .forEach((line, i) => {
        const b = perBatch[i];
        console.log(`    ${line.replace('webhook batch: ', '')}${b ? `; ${b.platform} platform req, ${b.salesforce} SF calls` : ''}`);
      });
  } finally {
    await stack.close();
  }
}

// 3. On a warm org of its own: part 2's thousand changes, minutes old, would sit in its filtered lists.
if (process.argv.includes('--cli')) {
  // As a user runs it: the CLI's sync --all, then serve started in the same folder.
  const stack = await startStack({ site: { ...siteOf(), vendorShape } });
  try {
    console.log(`\n3. one event at a time, the built CLI: sync --all, then serve in the same folder${vendorShape ? ' (vendor-shaped site)' : ''}`);
    await oneAtATimeCli(stack, vendorShape ? { measured: 4, issue: 19 } : undefined);
  } finally {
    await stack.close();
  }
} else {
  const { stack, settings, learned } = await warmOrg();
  try {
    await oneAtATime(stack, settings, learned, vendorShape);
  } finally {
    await stack.close();
  }
}
