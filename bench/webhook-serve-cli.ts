/**
 * `webhook-burst --one-at-a-time --cli`: part 3 as a user runs it. The built CLI's `sync --all`
 * mirrors the site, then `svc-sync serve` starts in the same folder (its state folder holds what
 * the sync learned of the platform) with its default settle window, and the 107 events of part 3
 * are posted one at a time, each waiting for its answer. Prints platform requests per event from
 * the first post until serve's queue is drained (serve's start check, before it, not counted).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BIN, READ_WHOLE, runCli } from '../fixtures/cli.js';
import type { Stack } from '../fixtures/stack.js';
import { listeningBase, postJson, verifyMirror } from './live.js';
import { eventsOf } from './webhook-one-at-a-time.js';

const TARGET = 0.05;
const SECRET = 'bench-webhook-secret-0123456789';

interface Health {
  queue: { done: number; skipped: number; failed: number };
}

function health(url: string): Promise<Health> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/healthz`, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(JSON.parse(body) as Health));
      })
      .on('error', reject);
  });
}

/** What one burst cost: requests, and by collection. */
interface BurstCost {
  accepted: number;
  seconds: number;
  total: number;
  list: number;
  byId: number;
  byCollection: string;
}

/** `serve` started in `cwd` (its state folder, warm or cold), `rounds` bursts of the part 3 events posted one at a time. */
async function serveBursts(stack: Stack, cwd: string, env: Record<string, string>, rounds: number[]): Promise<BurstCost[]> {
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env, ...READ_WHOLE },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const url = await listeningBase(child, lines, exited);
  const events = eventsOf(stack);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const costs: BurstCost[] = [];
  try {
    for (const round of rounds) {
      stack.platform.resetCounts();
      const start = await health(url);
      const finished = (h: Health): number => h.queue.done + h.queue.skipped + h.queue.failed - (start.queue.done + start.queue.skipped + start.queue.failed);
      let accepted = 0;
      const started = performance.now();
      for (const [n, e] of events.entries()) {
        stack.platform.update(e.type, e.id, { [e.field]: `cli ${round}.${n + 1}` });
        if ((await postJson(agent, `${url}/webhooks/${SECRET}`, e.body)) === 200) accepted++;
      }
      // Bounded: serve's settle window is 30 s; a batch of 80 records takes seconds.
      while (finished(await health(url)) < accepted) {
        if (performance.now() - started > 300_000) throw new Error('serve did not drain its queue within 5 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
      const p = stack.platform.requests;
      const by = new Map<string, number>();
      for (const e of p.log) by.set(`${e.kind} ${e.collection ?? '?'}`, (by.get(`${e.kind} ${e.collection ?? '?'}`) ?? 0) + 1);
      const byCollection = [...by].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
      costs.push({ accepted, seconds: (performance.now() - started) / 1000, total: p.total, list: p.listTotal, byId: p.byIdTotal, byCollection });
    }
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await exited;
  }
  return costs;
}

function printCost(label: string, c: BurstCost): void {
  console.log(`  ${label}:`);
  console.log(`    accepted ${c.accepted}, drained ${c.seconds.toFixed(1)} s after the first post`);
  console.log(`    platform requests: ${c.total} (list ${c.list}, by id ${c.byId}) = ${(c.total / Math.max(1, c.accepted)).toFixed(3)} per event (target <= ${TARGET}; naive 1.000)`);
  console.log(`      by collection: ${c.byCollection}`);
}

/**
 * `before`: the first burst's requests on the tree before issue 38 in this mode (measured), and as
 * the issue reported them. After the warm bursts, one more from a `serve` started in an empty
 * folder (a cold state: nothing the sync kept), and the mirror checked by a dry run.
 */
export async function oneAtATimeCli(stack: Stack, before?: { measured: number; issue: number }): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-serve-cli-'));
  const env = { ...stack.env, HOME: dir, SVC_SITE_ID: '6', SVC_WEBHOOK_SECRET: SECRET };
  try {
    const sync = await runCli(['sync', '--all'], { cwd: dir, env });
    if (sync.code !== 0) throw new Error(`sync --all exited ${sync.code}: ${sync.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    const [first, second] = await serveBursts(stack, dir, env, [1, 2]);
    printCost('first burst, serve started right after sync --all in its folder', first as BurstCost);
    if (before) {
      const perEvent = (n: number): string => (n / Math.max(1, first?.accepted ?? 1)).toFixed(3);
      console.log(`    before issue 38: ${before.measured} = ${perEvent(before.measured)} per event (d80003d, this bench); the issue reported ${before.issue} = ${perEvent(before.issue)}`);
    }
    printCost('second burst, the same records changed again', second as BurstCost);
    const cold = path.join(dir, 'cold');
    mkdirSync(cold);
    const [coldCost] = await serveBursts(stack, cold, { ...env, HOME: cold }, [3]);
    printCost('the same burst, serve started in an empty folder (cold state: nothing sync kept)', coldCost as BurstCost);
    const verify = path.join(dir, 'verify');
    mkdirSync(verify);
    const mirror = await verifyMirror(stack, verify);
    console.log(`  mirror against a full sync: ${mirror.exact ? 'exact' : 'NOT EXACT'} (${mirror.text})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
