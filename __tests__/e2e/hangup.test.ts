/**
 * SIGHUP (the SSH window or terminal closed) stops `sync`, `audit` and `serve` as SIGTERM does
 * (issue 28 row 12): the run keeps its progress, says once how to resume, serve hands its batch
 * back, and the exit code is 129 (128 + 1), not the bare death it was.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, donationSynced, removeDir, tempCwd, waitFor } from './helpers.js';
import { STALL_MS, WAIT_MS } from '../support/patience.js';

function start(args: string[], cwd: string, env: Record<string, string>): { output: () => string; stdout: () => string; exited: Promise<number | null>; kill: (sig: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, cliArgs(args), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env }, stdio: 'pipe' });
  let out = '';
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { output: () => out, stdout: () => stdout, exited, kill: (sig) => child.kill(sig) };
}

describe('sync', () => {
  let stack: Stack;
  const cwd = tempCwd('hangup-sync');

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 5, donations: 450, newsletterSubscriptions: 5 } });
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('SIGHUP: stopped within the stalled request, progress saved, one line naming the resume command, exit 129', async () => {
    stack.platform.faults.next(1, 'slow', { path: /^\/v1\/donations\?(?:.*&)?page=3(?:&|$)/, delayMs: STALL_MS });
    const run = start(['sync', '--all', '--batch-size', '50'], cwd, stack.env);
    const state = (): { run?: { pagesDone: Record<string, number> } } | undefined => {
      try {
        return JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { run?: { pagesDone: Record<string, number> } };
      } catch {
        return undefined;
      }
    };
    await waitFor(() => ((state()?.run?.pagesDone.donation ?? 0) >= 2 ? true : undefined), WAIT_MS, 'donation page 2 in the state file');
    run.kill('SIGHUP');
    expect(await run.exited).toBe(129);
    expect(run.output()).toMatch(/SIGHUP \(terminal closed\): stopping after the batch in flight/);
    expect(run.output()).toMatch(/svc-sync: stopped by SIGHUP \(terminal closed\) after .*progress saved in \.svc-sync\/state\.json; resume with: svc-sync sync --all --batch-size 50/);
    expect(run.output().match(/stopped by SIGHUP \(terminal closed\) after/g)).toHaveLength(1);
    expect(state()?.run?.pagesDone).toEqual({ donation: 2 });
  }, 60_000);
});

describe('audit and serve', () => {
  let stack: Stack;
  const cwd = tempCwd('hangup-audit');

  beforeAll(async () => {
    stack = await startStack({
      site: { seed: 5, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 60, newsletterSubscriptions: 5 },
    });
    expect((await cli(stack, ['sync', '--all'], cwd)).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('audit --delete-orphans: the chunk in flight completes, the deletions done are listed, exit 129', async () => {
    const gone = stack.platform.site.donation
      .filter(donationSynced)
      .slice(0, 10)
      .map((d) => d.id);
    for (const id of gone) stack.platform.remove('donation', id);
    // Orphans in a second object, deleted after the donations: the stop comes before them.
    for (const s of stack.platform.site.newsletter_subscription.slice(0, 2)) stack.platform.remove('newsletter_subscription', s.id);
    stack.salesforce.slowDeletes(3_000);
    stack.salesforce.resetCalls();
    const run = start(['--json', 'audit', '--delete-orphans', '--max-delete', '100%'], cwd, stack.env);
    await waitFor(() => (stack.salesforce.calls().collections > 0 ? true : undefined), WAIT_MS, 'the first delete call');
    run.kill('SIGHUP');
    const code = await run.exited;
    stack.salesforce.slowDeletes(0);
    expect(code).toBe(129);
    const doc = JSON.parse(run.stdout()) as { status: number; result: { stopped?: string; deletions?: Array<{ outcome: string; object: string }> } };
    expect(doc.status).toBe(129);
    expect(doc.result.stopped).toMatch(/stopped by SIGHUP/);
    expect((doc.result.deletions ?? []).filter((d) => d.outcome === 'deleted')).toHaveLength(gone.length);
    expect((doc.result.deletions ?? []).some((d) => d.object === 'Svc_NewsletterSubscription__c')).toBe(false);
  }, 60_000);

  it('serve: SIGHUP while a batch waits out a 429 hands the event back, says it is stopped, exit 129', async () => {
    const donation = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0)[20]!;
    stack.platform.faults.next(20, '429', { path: `/donations/${donation.id}`, retryAfter: 600 });
    const run = start(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2'], cwd, { ...stack.env, SVC_SITE_ID: '6' });
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.output())?.[1], WAIT_MS, 'serve to listen');
    const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
    expect((await fetch(`${base}/webhooks`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) })).status).toBe(200);
    await waitFor(() => (/waiting 600 s: platform rate limited/.test(run.output()) ? true : undefined), WAIT_MS, 'the wait to be announced');
    run.kill('SIGHUP');
    expect(await run.exited).toBe(129);
    stack.platform.faults.clear();
    expect(run.output()).toMatch(/svc-sync serve: SIGHUP: no longer accepting; ending the batch in flight and handing its events back/);
    expect(run.output()).toMatch(/events? handed back, processed on the next start/);
    expect(run.output()).toMatch(/svc-sync serve: stopped/);
    const status = JSON.parse((await cli(stack, ['--json', 'queue'], cwd)).stdout) as { result: { counts: Record<string, number> } };
    expect(status.result.counts).toMatchObject({ pending: 1, failed: 0 });
  }, 60_000);
});
