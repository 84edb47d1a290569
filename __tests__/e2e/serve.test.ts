/**
 * `svc-sync serve` and `svc-sync queue` as operators run them: the built CLI as a process, events
 * posted over HTTP, the queue inspected with the CLI, and a graceful stop on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd, waitFor, unstamp } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { openDatabase } from '../../src/webhook/queue/sqliteDb.js';
import { reap } from '../support/reap.js';

let stack: Stack;
let cwd: string;
let child: ChildProcess;
let stderr = '';
let base = '';
// Exactly the shortest secret serve takes (16 characters).
const SECRET = 'hook-secret-5f2a';

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 20, newsletterSubscriptions: 0 } });
  cwd = tempCwd('serve');
  child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.5']), {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: SECRET, SVC_SITE_ID: '6' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
});

afterAll(async () => {
  await reap([child]);
  await stack.close();
  removeDir(cwd);
});

const post = (url: string, body: Record<string, string | number>): Promise<Response> => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

interface QueueJson {
  result: { counts: { pending: number; done: number; failed: number; ignored: number } };
}

describe('svc-sync serve', () => {
  it('stores events, syncs them coalesced, and `queue` shows the counts', async () => {
    const donation = stack.platform.site.donation.find((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0)!;
    const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
    expect((await post(`${base}/webhooks/${SECRET}`, event)).status).toBe(200);
    expect((await post(`${base}/webhooks/${SECRET}`, event)).status).toBe(200);
    expect((await post(`${base}/webhooks/${SECRET}`, { ...event, object_type: 'News', event_type: 'news.create' })).status).toBe(200);
    expect((await post(`${base}/webhooks/not-the-secret`, event)).status).toBe(401);
    // SVC_SITE_ID=6: another site's webhook is answered 200 (so it is not retried for 24 hours) and recorded ignored.
    const foreign = await post(`${base}/webhooks/${SECRET}`, { ...event, site_id: 7 });
    expect(foreign.status).toBe(200);
    expect(await foreign.json()).toMatchObject({ status: 'ignored', reason: "site 7 is not this mirror's site (SVC_SITE_ID 6)" });

    // Poll with the operator's own command until both donation events are done.
    let status: QueueJson | undefined;
    const until = Date.now() + WAIT_MS;
    while (status?.result.counts.done !== 2 && Date.now() < until) {
      status = JSON.parse((await cli(stack, ['--json', 'queue'], cwd)).stdout) as QueueJson;
      if (status.result.counts.done !== 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status?.result.counts).toMatchObject({ pending: 0, done: 2, failed: 0, ignored: 2 });
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeDefined();
    // Two events for one donation, coalesced into one ref of one batch.
    expect(stderr).toMatch(/webhook batch: 2 events \(2 done, 0 skipped, 0 failed\) for 1 record /);
    expect(stderr).not.toContain(SECRET);
    // A serve log is read later: every line carries its time (ISO 8601, UTC).
    for (const line of stderr.split('\n').filter((l) => l !== '')) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a second serve on the same queue file is refused: exit 2, naming the queue', async () => {
    const second = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', '0'], cwd, undefined, { ...stack.env, SVC_WEBHOOK_SECRET: SECRET });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/queue file \.svc-sync\/queue\.db: another svc-sync serve is already using it/);
    // The first one still answers.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('a second serve through a symlink to the same queue file is refused: exit 2', async () => {
    const alias = `${cwd}/alias.db`;
    fs.symlinkSync(`${cwd}/.svc-sync/queue.db`, alias);
    const second = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', '0', '--queue', alias], cwd, undefined, { ...stack.env, SVC_WEBHOOK_SECRET: SECRET });
    expect(second.code).toBe(2);
    expect(unstamp(second.stderr)).toMatch(new RegExp(`^svc-sync: queue file ${alias}: another svc-sync serve is already using it`));
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it("another application's SQLite database: queue, queue retry and serve exit 2 naming it, and the file is left as it was", async () => {
    const other = `${cwd}/app.db`;
    const db = openDatabase(other);
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (12.5)');
    db.close();
    const before = fs.readFileSync(other);
    for (const args of [['queue'], ['queue', 'retry'], ['serve', '--host', '127.0.0.1', '--port', '0']]) {
      const res = await cli(stack, [...args, '--queue', other], cwd);
      expect(res.code).toBe(2);
      expect(unstamp(res.stderr).trim()).toBe(
        `svc-sync: queue file ${other}: is not an svc-sync queue (it holds tables svc-sync did not create (invoices)); nothing was changed in it: point --queue or SVC_QUEUE_PATH at another path`,
      );
    }
    expect(fs.readFileSync(other).equals(before)).toBe(true);
    expect(fs.existsSync(`${other}-wal`) || fs.existsSync(`${other}-shm`) || fs.existsSync(`${other}.receiver-lock`)).toBe(false);
  });

  it('a queue file that is not a database: serve and queue exit 2 with one line naming it', async () => {
    const junk = `${cwd}/notes.txt`;
    fs.writeFileSync(junk, 'meeting notes, not a queue\n'.repeat(200));
    const started = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', '0', '--queue', junk], cwd);
    expect(started.code).toBe(2);
    expect(unstamp(started.stderr).trim()).toBe(
      `svc-sync: queue file ${junk}: is not an svc-sync queue (not a SQLite database): point --queue or SVC_QUEUE_PATH at another path, or move the file away (file is not a database)`,
    );
    const status = await cli(stack, ['queue', '--queue', junk], cwd);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(`queue file ${junk}: is not an svc-sync queue`);
  });

  it('SIGTERM while a batch waits out a 429 (Retry-After 600): stopped within seconds, exit 143, the event handed back', async () => {
    const donation = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0)[1]!;
    stack.platform.faults.next(20, '429', { path: `/donations/${donation.id}`, retryAfter: 600 });
    const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
    expect((await post(`${base}/webhooks/${SECRET}`, event)).status).toBe(200);
    await waitFor(() => (stack.platform.requests.log.some((e) => e.url.startsWith(`/v1/donations/${donation.id}`) && e.status === 429) ? true : undefined), WAIT_MS, 'the 429');
    await waitFor(() => (/waiting 600 s: platform rate limited/.test(stderr) ? true : undefined), WAIT_MS, 'the wait to be announced');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const sent = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    // Within seconds, not the 600 s of the wait (the margin is for a loaded machine).
    expect(Date.now() - sent).toBeLessThan(15_000);
    expect(stderr).toMatch(/events? handed back, processed on the next start/);
    expect(stderr).toMatch(/svc-sync serve: stopped/);
    stack.platform.faults.clear();
    // Back to pending, with no failed attempt counted: the next start processes it.
    const status = JSON.parse((await cli(stack, ['--json', 'queue'], cwd)).stdout) as QueueJson;
    expect(status.result.counts).toMatchObject({ pending: 1, failed: 0 });
  }, 40_000);

  it('a port in use is a start problem: exit 2, one line naming --port', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const other = tempCwd('serve-port');
      const res = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', String(port)], other);
      removeDir(other);
      expect(res.code).toBe(2);
      expect(unstamp(res.stderr).trim()).toBe(`svc-sync: --port ${port}: already in use on 127.0.0.1 (another svc-sync serve or another program); choose another port`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('`queue retry` on a queue with no failures re-queues nothing', async () => {
    const res = await cli(stack, ['queue', 'retry'], cwd);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^0 failed event\(s\) queued again/);
  });
});
