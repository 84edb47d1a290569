/**
 * Through dist/cli.js: `serve` runs the sync log's retention as `sync` does, at most once
 * a day per connection. Two runs of `sync` leave run records in the emulated org, one past the 90
 * days, one not; the first serve batch's clean-up deletes only the old one, and a second batch the
 * same day asks the org nothing about old runs again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { WAIT_MS } from '../support/patience.js';
import { reap } from '../support/reap.js';
import { cli, removeDir, tempCwd, waitFor } from './helpers.js';

const RUNS = 'Svc_SyncRun__c';
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString().replace('Z', '+0000');
const SECRET = 'hook-secret-keep-3c9d';

let stack: Stack;
let cwd: string;
let child: ChildProcess | undefined;
let stderr = '';

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 6, newsletterSubscriptions: 0 } });
  cwd = tempCwd('serve-retention');
}, 60_000);

afterAll(async () => {
  if (child) await reap([child]);
  await stack.close();
  removeDir(cwd);
});

const runsBy = (command: string): Array<Record<string, unknown>> => stack.salesforce.records(RUNS).filter((r) => r.Command__c === command);
/** The queries that look for old run records (the clean-up's). */
const retentionQueries = (): string[] => stack.salesforce.requests().filter((r) => r.includes('FinishedAt__c <'));

async function post(base: string, id: number): Promise<void> {
  const event = { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
  const res = await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
  expect(res.status).toBe(200);
}

describe('serve runs the sync log retention', () => {
  it('the first batch deletes the runs past their days and keeps the others; a second batch the same day does not ask again', async () => {
    for (const args of [['sync', '--all'], ['sync']]) {
      const r = await cli(stack, args, cwd);
      if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    }
    const [old, recent] = runsBy('sync');
    stack.salesforce.editRecord(RUNS, String(old!.RunKey__c), { FinishedAt__c: ago(91) });
    stack.salesforce.editRecord(RUNS, String(recent!.RunKey__c), { FinishedAt__c: ago(89) });
    // The day's mark sync left: gone, so the clean-up is due.
    const mark = path.join(cwd, '.svc-sync', 'salesforce-log.json');
    fs.rmSync(mark);
    stack.salesforce.resetCalls();

    child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: SECRET, SVC_SITE_ID: '6' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    const [first, second] = stack.platform.site.donation;

    await post(base, first!.id);
    await waitFor(() => (stack.salesforce.get(RUNS, String(old!.RunKey__c)) === undefined ? true : undefined), WAIT_MS, 'the old run record deleted');
    expect(stack.salesforce.get(RUNS, String(recent!.RunKey__c))).toBeDefined();
    await waitFor(() => (runsBy('serve').length === 1 ? true : undefined), WAIT_MS, "the batch's run record");
    await waitFor(() => (stderr.includes('salesforce log: retention deleted 1 old record(s) (runs past 90 days, resolved errors past 30)') ? true : undefined), WAIT_MS, 'the clean-up said');
    expect(retentionQueries()).toHaveLength(1);
    expect(stack.salesforce.requests().filter((r) => r.startsWith('DELETE'))).toHaveLength(1);
    // The day's mark, shared with sync: a sync the same day does not clean up again.
    expect(Date.parse((JSON.parse(fs.readFileSync(mark, 'utf8')) as { retentionAt: string }).retentionAt)).toBeGreaterThan(Date.now() - DAY);

    stack.salesforce.resetCalls();
    await post(base, second!.id);
    await waitFor(() => (runsBy('serve').length === 2 ? true : undefined), WAIT_MS, "the second batch's run record");
    await waitFor(() => (/webhook batch: .*\n[\s\S]*webhook batch: /.test(stderr) ? true : undefined), WAIT_MS, 'the second batch done');
    expect(retentionQueries()).toEqual([]);
    expect(stack.salesforce.requests().filter((r) => r.startsWith('DELETE'))).toEqual([]);
    expect(stack.salesforce.get(RUNS, String(recent!.RunKey__c))).toBeDefined();
  }, 120_000);
});
