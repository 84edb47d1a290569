/**
 * Part 3 of webhook-burst: a burst as the platform delivers it, one POST at a time (each waiting for
 * its answer), to a warm org: 107 update events for 60 donations, 10 actions and 10 newsletter
 * subscriptions already mirrored (80 records, 27 of them announced twice), each record changed on
 * the platform just before its event. The receiver, the queue and the worker run in-process with
 * serve's default settle window, in a directory holding the platform profile the warm-up sync
 * learned (where `serve` finds what `sync` kept); the engine processor is the real one. The burst
 * is sent twice through the same worker (a serve just started, then one that has written those
 * records). Prints platform requests per event beside the figures before and the naive 1.000, then
 * checks the whole mirror against a full sync (a dry run that would write nothing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../src/config/settings.js';
import { DEFAULT_SETTLE_S } from '../src/config/webhookSettings.js';
import { SalesforceSink } from '../src/crm/sink.js';
import { SYNC_ORDER, type SyncableType } from '../src/model/objects.js';
import { emptyObjectCounts, type ObjectCounts } from '../src/model/outcomes.js';
import { createPlatformSource } from '../src/platform/source.js';
import { SyncEngine } from '../src/sync/mirror/engine.js';
import { profileFileFor } from '../src/sync/compose.js';
import { writeProfile } from '../src/sync/run/profileFile.js';
import { OwnerIds, ownersFileIn } from '../src/sync/mirror/ownerIds.js';
import type { PlatformProfile } from '../src/model/platformProfile.js';
import { createEngineProcessor } from '../src/webhook/worker/processor.js';
import { composeConnection } from '../src/sync/connection.js';
import { SqliteQueue } from '../src/webhook/queue/sqlite.js';
import { startReceiver } from '../src/webhook/receiver/server.js';
import { startWorker } from '../src/webhook/worker/worker.js';
import { prng } from '../fixtures/platform/site.js';
import type { FakeRequestCounts } from '../fixtures/platform/server.js';
import type { Stack } from '../fixtures/stack.js';
import { postJson } from './live.js';

/** Platform requests per event of this shape measured before this bench's change (commit 5565273), on the same site. */
const BEFORE = { requests: 7, perEvent: 0.065 };
/** Requests of the two bursts before serve kept the owners it wrote (commit 7c8ad57), on the same site. */
const BEFORE_KEPT = { first: 7, second: 6 };
/** Requests of the two bursts before owner fields Salesforce holds under the same owner stood (commit c7883e7). */
const BEFORE_MIRROR = { first: 7, second: 3 };
const TARGET = 0.05;
/** The first burst on the vendor-shaped site (--vendor-shape) before issue 38 (d80003d): the saved claim on subscriptions confirmed by id. */
const BEFORE_VENDOR = { requests: 4, perEvent: 0.037 };

const SHAPE: Array<{ type: SyncableType; objectType: string; event: string; object: string; field: string; count: number }> = [
  { type: 'donation', objectType: 'Donation', event: 'donations.update', object: 'Svc_Donation__c', field: 'message', count: 60 },
  { type: 'action', objectType: 'Action', event: 'actions.update', object: 'Svc_Action__c', field: 'title', count: 10 },
  { type: 'newsletter_subscription', objectType: 'NewsletterSubscription', event: 'newsletter_subscriptions.update', object: 'Svc_NewsletterSubscription__c', field: 'first_name', count: 10 },
];
const REPEATS = 27;

export interface BurstEvent {
  type: SyncableType;
  id: number;
  field: string;
  body: string;
}

/** The 107 events: each record once, in seeded order, with 27 repeats of records announced before. */
export function eventsOf(stack: Stack): BurstEvent[] {
  const rnd = prng(20261125);
  const first: BurstEvent[] = [];
  for (const s of SHAPE) {
    const mirrored = new Set(stack.salesforce.records(s.object).map((r) => String(r.SvcId__c)));
    const ids = (stack.platform.site[s.type] as Array<{ id: number }>).map((r) => r.id).filter((id) => [...mirrored].some((k) => k.endsWith(`_${id}`)));
    const step = Math.max(1, Math.floor(ids.length / s.count));
    for (let i = 0; i < s.count; i++) {
      const id = ids[i * step] as number;
      first.push({ type: s.type, id, field: s.field, body: JSON.stringify({ object_type: s.objectType, object_id: id, event_type: s.event, application: 'Kentaa', site_id: 6 }) });
    }
  }
  first.sort(() => rnd() - 0.5);
  const events = [...first];
  for (let i = 0; i < REPEATS; i++) {
    const at = 1 + Math.floor(rnd() * (events.length - 1));
    events.splice(at, 0, events[Math.floor(rnd() * at)] as BurstEvent);
  }
  return events;
}

/** A dry-run full sync: what it would write is what the mirror lacks. */
async function mirrorDrift(settings: Settings): Promise<ObjectCounts> {
  const engine = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), { dryRun: true, force: false, strictParents: false, batchSize: 5_000 });
  await engine.syncScan(SYNC_ORDER, {});
  const total = emptyObjectCounts();
  for (const c of engine.report.summary.values()) for (const k of Object.keys(total) as Array<keyof ObjectCounts>) total[k] += c[k];
  return total;
}

interface BurstFigures {
  accepted: number;
  seconds: number;
  batches: number;
  counts: FakeRequestCounts;
}

/** Posts the events one at a time (each record changed just before its event) and waits until the worker has finished them all. */
async function postBurst(stack: Stack, events: BurstEvent[], to: { queue: SqliteQueue; url: URL; batchLog: string[]; round: number }): Promise<BurstFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const before = await to.queue.counts();
  const batchesBefore = to.batchLog.filter((l) => l.startsWith('webhook batch:')).length;
  stack.platform.resetCounts();
  let accepted = 0;
  const started = performance.now();
  try {
    for (const [n, e] of events.entries()) {
      stack.platform.update(e.type, e.id, { [e.field]: `one at a time ${to.round}.${n + 1}` });
      if ((await postJson(agent, to.url, e.body)) === 200) accepted++;
    }
    for (;;) {
      const c = await to.queue.counts();
      if (c.done + c.skipped + c.failed - (before.done + before.skipped + before.failed) >= accepted) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    agent.destroy();
  }
  const batches = to.batchLog.filter((l) => l.startsWith('webhook batch:')).length - batchesBefore;
  return { accepted, seconds: (performance.now() - started) / 1000, batches, counts: structuredClone(stack.platform.requests) };
}

function printBurst(label: string, f: BurstFigures): void {
  const p = f.counts;
  const byCollection = new Map<string, number>();
  for (const e of p.log) byCollection.set(`${e.kind} ${e.collection ?? '?'}`, (byCollection.get(`${e.kind} ${e.collection ?? '?'}`) ?? 0) + 1);
  const perEvent = p.total / Math.max(1, f.accepted);
  console.log(`  ${label}`);
  console.log(`    accepted (200):          ${f.accepted}; all finished ${f.seconds.toFixed(1)} s after the first post, in ${f.batches} batch(es)`);
  console.log(`    platform requests:       ${p.total} (list ${p.listTotal}, by id ${p.byIdTotal}) = ${perEvent.toFixed(3)} per event (target <= ${TARGET})`);
  console.log(`      by collection:         ${[...byCollection].map(([k, v]) => `${k} ${v}`).join(', ')}`);
}

/** What the warm-up `sync --all` leaves in its state folder for `serve`: the platform profile and the owners it wrote (owners.json). */
export interface WarmState {
  profile: PlatformProfile;
  engine: SyncEngine;
}

/**
 * `learned`: what the warm-up sync kept, where `serve` finds it (the directory it runs in).
 * Two bursts of the same shape through one worker: the first meets `serve` just started, the
 * second a `serve` that has synced those records before (as it has the actions whose counters keep
 * changing on a live site).
 */
export async function oneAtATime(stack: Stack, settings: Settings, learned: WarmState, vendorShape = false): Promise<void> {
  const events = eventsOf(stack);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-'));
  const cwd = process.cwd();
  process.chdir(dir);
  const profileFile = profileFileFor(undefined, '.svc-sync');
  writeProfile(profileFile, learned.profile);
  new OwnerIds(ownersFileIn(path.dirname(profileFile))).record(learned.engine).save();
  const queue = new SqliteQueue(path.join(dir, 'queue.db'));
  const batchLog: string[] = [];
  const worker = startWorker({
    queue,
    processor: createEngineProcessor(composeConnection(settings, { platform: { profileFile } })),
    log: (line) => batchLog.push(line),
    settleMs: DEFAULT_SETTLE_S * 1000,
  });
  const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, onEnqueued: () => worker.wake() });
  const url = new URL(`${receiver.url}/webhooks`);
  const runs: BurstFigures[] = [];
  try {
    runs.push(await postBurst(stack, events, { queue, url, batchLog, round: 1 }));
    runs.push(await postBurst(stack, events, { queue, url, batchLog, round: 2 }));
  } finally {
    await receiver.close();
    await worker.stop();
    await queue.close();
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
  const drift = await mirrorDrift(settings);
  const distinct = new Set(events.map((e) => `${e.type}:${e.id}`)).size;
  console.log(
    `\n3. one event at a time: ${events.length} events for ${distinct} mirrored records (${SHAPE.map((s) => `${s.count} ${s.type}s`).join(', ')}), ` +
      `each POST waiting for its answer; worker settle ${DEFAULT_SETTLE_S} s (serve's default), engine processor`,
  );
  printBurst('first burst, serve just started (it confirms the saved profile; the actions sync wrote keep their owner fields):', runs[0] as BurstFigures);
  printBurst('second burst, the same records changed again (serve keeps the owners it wrote):', runs[1] as BurstFigures);
  if (vendorShape) console.log(`  before issue 38 (vendor shape): ${BEFORE_VENDOR.requests} = ${BEFORE_VENDOR.perEvent.toFixed(3)} per event, first burst`);
  console.log(`  before (5565273):          ${BEFORE.requests} = ${BEFORE.perEvent.toFixed(3)} per event (parents' owners and shapes read again every batch)`);
  console.log(`  before (owners kept):      ${BEFORE_KEPT.first} first burst, ${BEFORE_KEPT.second} second burst (the users list read again for every batch)`);
  console.log(`  before (c7883e7):          ${BEFORE_MIRROR.first} first burst, ${BEFORE_MIRROR.second} second burst (the first read every action owner: 3 users list pages)`);
  console.log(`  naive (1 fetch per event): ${runs[0]?.accepted ?? 0} = 1.000 per event`);
  const exact = drift.inserted + drift.updated + drift.failed === 0;
  console.log(
    `  mirror against a full sync: ${exact ? 'exact' : 'NOT EXACT'} (dry run: ${drift.inserted} to insert, ${drift.updated} to update, ${drift.failed} failed, ${drift.unchanged} unchanged)`,
  );
}
