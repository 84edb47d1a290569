/**
 * The SQLite queue alone, in-process (no HTTP, no serve): what the driver costs. A fresh queue
 * file per run; `events` donations.update events stored in commits of `per` (each commit fsynced,
 * synchronous=FULL, as the receiver's group commits), then claimed in batches of 500 refs and
 * completed until none is open. Each run is a fresh process; with --before DIR, the same in
 * another checkout's build, runs alternating.
 *
 *   npm run build && node dist/bench/sqlite-queue.js [--runs 5] [--events 4000] [--per 20] [--before DIR]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const option = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const RUNS = Number(option('--runs', '5'));
const EVENTS = Number(option('--events', '4000'));
const PER = Number(option('--per', '20'));
const ours = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const before = option('--before', '');
const builds = [{ name: 'this build', root: ours }, ...(before ? [{ name: `before (${before})`, root: path.resolve(before) }] : [])];

interface Figure {
  enqueuePerS: number;
  drainPerS: number;
}

function once(root: string, file: string): Figure {
  const queueModule = pathToFileURL(path.join(root, 'dist', 'src', 'webhook', 'queue', 'sqlite.js')).href;
  const eventsModule = pathToFileURL(path.join(root, 'dist', 'src', 'sync', 'webhookEvents.js')).href;
  const script = `
    const { SqliteQueue } = await import(${JSON.stringify(queueModule)});
    const { classifyEvent } = await import(${JSON.stringify(eventsModule)});
    const q = new SqliteQueue(${JSON.stringify(file)});
    const input = (i) => {
      const message = { objectType: 'Donation', objectId: 1 + (i % ${Math.ceil(EVENTS / 4)}), eventType: 'donations.update', application: 'Kentaa' };
      return { message, intent: classifyEvent(message), raw: JSON.stringify(message) };
    };
    const t0 = performance.now();
    for (let i = 0; i < ${EVENTS}; i += ${PER}) await q.enqueueEach(Array.from({ length: Math.min(${PER}, ${EVENTS} - i) }, (_, k) => input(i + k)));
    const t1 = performance.now();
    for (;;) {
      const batch = await q.claimBatch(500);
      if (batch === undefined) break;
      await q.complete(batch.token, batch.refs.map((r) => ({ eventIds: r.eventIds, status: 'done' })));
    }
    const t2 = performance.now();
    await q.close();
    process.stdout.write(JSON.stringify({ enqueuePerS: ${EVENTS} / ((t1 - t0) / 1000), drainPerS: ${EVENTS} / ((t2 - t1) / 1000) }));`;
  const r = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`sqlite-queue bench in ${root}: exit ${r.status}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as Figure;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-sqlite-'));
try {
  const figures = builds.map(() => [] as Figure[]);
  for (let run = 0; run < RUNS; run++) builds.forEach((b, i) => figures[i]?.push(once(b.root, path.join(dir, `q-${run}-${i}.db`))));
  console.log(
    `SQLite queue in-process: ${EVENTS} events in commits of ${PER}, then claimed (500 refs) and completed; ${RUNS} runs per build (alternating); Node ${process.version}, ${os.cpus().length} cores`,
  );
  console.log('build | stored: median (min-max) events/s | drained: median (min-max) events/s');
  builds.forEach((b, i) => {
    const f = figures[i] ?? [];
    const show = (xs: number[]): string => `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))})`;
    console.log(`${b.name} | ${show(f.map((x) => x.enqueuePerS))} | ${show(f.map((x) => x.drainPerS))}`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
