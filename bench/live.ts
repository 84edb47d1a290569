/**
 * Shared by the webhook benches: a real `svc-sync serve` child process (the built CLI) against the
 * servers of fixtures/stack.ts, the platform's way of delivering webhooks (one POST at a time,
 * each waiting for its answer), and a watch over the emulator that tells when the mirror caught up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { BIN, READ_WHOLE, runCli } from '../fixtures/cli.js';
import type { Stack } from '../fixtures/stack.js';
import { prng } from '../fixtures/platform/site.js';

export interface ServeChild {
  url: string;
  /** The exit code once the service has exited on its own (undefined while it runs). */
  exitCode(): number | undefined;
  /** Every stderr line the service wrote, in order. */
  lines: string[];
  stop(): Promise<number>;
}

/** Starts `svc-sync serve` on a free loopback port with a fresh queue in `dir`; extra args pass through. */
export async function startServe(stack: Stack, dir: string, extraArgs: string[]): Promise<ServeChild> {
  const secret = randomBytes(16).toString('hex');
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--queue', `${dir}/queue.db`, ...extraArgs], {
    cwd: dir,
    // Whole lines: the listening line is read for its URL, which an 80-column wrap would split.
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code) => {
      exitCode = code ?? -1;
      resolve(exitCode);
    }),
  );
  const base = await listeningBase(child, lines, exited);
  return {
    url: `${base}/webhooks/${secret}`,
    exitCode: () => exitCode,
    lines,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * The base URL a spawned `serve` says it listens on; every stderr line is kept in `lines` (for
 * the bench's own checks and for the error when serve exits first).
 */
export function listeningBase(child: ChildProcess, lines: string[], exited: Promise<number>): Promise<string> {
  let partial = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      partial += d.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        const m = /listening on (http:\/\/[^\s]+?)\/webhooks/.exec(line);
        if (m) resolve(m[1] as string);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${lines.slice(-3).join(' | ')}`)));
  });
}

export interface WebhookEvent {
  objectType: 'Donation' | 'Action' | 'Project';
  objectId: number;
  eventType: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * One POST, as the platform sends it; resolves with the status once the answer has arrived. A
 * connection the receiver closed as it was reused (keep-alive race) is sent again, as the
 * platform retries a failed delivery.
 */
export async function postEvent(url: string, e: WebhookEvent): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postOnce(url, e);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

function postOnce(url: string, e: WebhookEvent): Promise<number> {
  return postJson(agent, url, JSON.stringify({ object_type: e.objectType, object_id: e.objectId, event_type: e.eventType, application: 'Kentaa', site_id: 6 }));
}

/** One JSON POST through `agent`; resolves with the answer's status once its body is read. */
export function postJson(via: http.Agent, url: string | URL, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: via, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function closeAgent(): void {
  agent.destroy();
}

/** `svc-sync sync --all` through the CLI: the steady state (a nightly backfill) webhooks meet. */
export async function mirrorFirst(stack: Stack, dir: string): Promise<void> {
  const res = await runCli(['--quiet', 'sync', '--all', '--state', `${dir}/state.json`], { env: stack.env, cwd: dir });
  if (res.code !== 0) throw new Error(`sync --all exited ${res.code}: ${res.stderr.trim().split('\n').slice(-2).join(' | ')}`);
}

/**
 * The whole mirror checked by the CLI itself: a dry run of `sync --all` that would write nothing
 * means Salesforce already equals the platform, record for record (its requests are not counted).
 */
export async function verifyMirror(stack: Stack, dir: string): Promise<{ exact: boolean; text: string }> {
  const res = await runCli(['--json', '--dry-run', 'sync', '--all', '--state', `${dir}/verify-state.json`], { env: stack.env, cwd: dir });
  try {
    const doc = JSON.parse(res.stdout) as { result: { summary: Record<string, { inserted: number; updated: number; unchanged: number; failed: number }> } };
    let inserted = 0;
    let updated = 0;
    let unchanged = 0;
    let failed = 0;
    for (const c of Object.values(doc.result.summary)) {
      inserted += c.inserted;
      updated += c.updated;
      unchanged += c.unchanged;
      failed += c.failed;
    }
    return { exact: inserted + updated + failed === 0, text: `dry-run sync --all: ${unchanged} unchanged, ${inserted} would be inserted, ${updated} updated, ${failed} failed` };
  } catch {
    return { exact: false, text: `dry-run sync --all did not answer with JSON (exit ${res.code})` };
  }
}

/** The server's request count once no request has arrived for a while (those in flight answered). */
export async function settled(stack: Stack): Promise<number> {
  let last = -1;
  while (stack.platform.requests.total !== last) {
    last = stack.platform.requests.total;
    await new Promise((r) => setTimeout(r, 300));
  }
  return last;
}

export { sleep } from '../src/model/sleep.js';

/** Seeded, so every run posts the same events: the site generator's own generator. */
export const seeded = prng;

/** "webhook batch: 12 events (12 done, ...) for 10 records ..." lines of the service. */
export function batchLines(lines: string[]): string[] {
  return lines.filter((l) => l.includes('webhook batch:'));
}

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
