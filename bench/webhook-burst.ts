/**
 * Webhook burst: 2,000 donations.update events for 1,000 donations (each picked at random, seeded,
 * so a donation is announced about twice, at random moments of the burst) posted over loopback
 * with bounded concurrency to a live receiver + worker. Duplicates still pending together are
 * coalesced; a duplicate that arrives after its ref was claimed is fetched again, as it should
 * (it may carry the paid status).
 * Prints events per second accepted (the 200s, each after a durable commit) and what the worker
 * handed to the processor. The processor here only counts; the engine + fake servers will
 * replace it to print platform requests per event.
 *
 *   npm run build && node dist/bench/webhook-burst.js [events=2000] [donations=1000] [concurrency=32]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { ObjectRef } from '../src/mapping/objects.js';
import { WebhookQueue } from '../src/webhook/queue.js';
import { startReceiver } from '../src/webhook/server.js';
import { startWorker, type BatchProcessor, type ProcessResult } from '../src/webhook/worker.js';

const [events = 2000, donations = 1000, concurrency = 32] = process.argv.slice(2).map(Number);

class CountingProcessor implements BatchProcessor {
  calls = 0;
  refs = 0;
  readonly distinct = new Set<string>();
  async process(refs: ObjectRef[]): Promise<ProcessResult> {
    this.calls++;
    this.refs += refs.length;
    for (const r of refs) this.distinct.add(`${r.type}:${r.id}`);
    return { outcomes: refs.map((ref) => ({ ref, status: 'done' as const })) };
  }
}

function post(agent: http.Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-'));
const queue = new WebhookQueue(path.join(dir, 'queue.db'));
const processor = new CountingProcessor();
const worker = startWorker({ queue, processor });
const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, onEnqueued: () => worker.wake() });
const url = new URL(`${receiver.url}/webhooks`);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

try {
  let seed = 20240601;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const bodies = Array.from({ length: events }, () =>
    JSON.stringify({ object_type: 'Donation', object_id: 1 + Math.floor(random() * donations), event_type: 'donations.update', application: 'Kentaa', site_id: 1 }),
  );
  const announced = new Set(bodies.map((b) => (JSON.parse(b) as { object_id: number }).object_id)).size;
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const status = await post(agent, url, bodies[next++] as string);
        if (status === 200) accepted++;
      }
    }),
  );
  const acceptSeconds = (performance.now() - started) / 1000;

  while (queue.counts().done < accepted) await new Promise((r) => setTimeout(r, 20));
  const drainSeconds = (performance.now() - started) / 1000;
  const { synchronous, journalMode } = queue.durability();

  console.log(`webhook burst: ${events} donation events over ${announced} donations, concurrency ${concurrency}, ${journalMode}/synchronous=${synchronous}`);
  console.log(`  accepted (200):            ${accepted} in ${acceptSeconds.toFixed(2)} s = ${Math.round(accepted / acceptSeconds)} events/s`);
  console.log(`  drained (all done):        ${drainSeconds.toFixed(2)} s after the first post`);
  console.log(`  processor calls (batches): ${processor.calls}`);
  console.log(`  refs handed to processor:  ${processor.refs} (${processor.distinct.size} distinct) = ${(processor.refs / accepted).toFixed(3)} refs per event`);
} finally {
  agent.destroy();
  await receiver.close();
  await worker.stop();
  queue.close();
  rmSync(dir, { recursive: true, force: true });
}
