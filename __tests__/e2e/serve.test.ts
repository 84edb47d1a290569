/**
 * `svc-sync serve` and `svc-sync queue` as operators run them: the built CLI as a process, events
 * posted over HTTP, the queue inspected with the CLI, and a graceful stop on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { BIN } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd, waitFor, unstamp } from './helpers.js';

let stack: Stack;
let cwd: string;
let child: ChildProcess;
let stderr = '';
let base = '';
const SECRET = 'hook-secret-5f2a9c';

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 20, newsletterSubscriptions: 0 } });
  cwd = tempCwd('serve');
  child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.5'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...stack.env, SVC_WEBHOOK_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], 10_000, 'serve to listen');
});

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await stack.close();
  removeDir(cwd);
});

const post = (url: string, body: Record<string, string | number>): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

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

    // Poll with the operator's own command until both donation events are done.
    let status: QueueJson | undefined;
    const until = Date.now() + 15_000;
    while (status?.result.counts.done !== 2 && Date.now() < until) {
      status = JSON.parse((await cli(stack, ['--json', 'queue'], cwd)).stdout) as QueueJson;
      if (status.result.counts.done !== 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status?.result.counts).toMatchObject({ pending: 0, done: 2, failed: 0, ignored: 1 });
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeDefined();
    // Two events for one donation, coalesced into one ref of one batch.
    expect(stderr).toMatch(/webhook batch: 2 events, 1 refs/);
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

  it('a queue file that is not a database: serve and queue exit 2 with one line naming it', async () => {
    const junk = `${cwd}/notes.txt`;
    fs.writeFileSync(junk, 'meeting notes, not a queue\n'.repeat(200));
    const started = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', '0', '--queue', junk], cwd);
    expect(started.code).toBe(2);
    expect(unstamp(started.stderr).trim()).toBe(`svc-sync: queue file ${junk}: is not an svc-sync queue (not a SQLite database): point --queue or SVC_QUEUE_PATH at another path, or move the file away (file is not a database)`);
    const status = await cli(stack, ['queue', '--queue', junk], cwd);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(`queue file ${junk}: is not an svc-sync queue`);
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/stopped/);
  });

  it('`queue retry` on a queue with no failures re-queues nothing', async () => {
    const res = await cli(stack, ['queue', 'retry'], cwd);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^0 failed event\(s\) queued again/);
  });
});
