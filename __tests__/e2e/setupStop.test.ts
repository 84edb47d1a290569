/**
 * Issue 40: `sync` stops early when doctor's own checks show that every write of an object would
 * fail. Field access taken away on one object of the emulator: the first batch of it fails whole,
 * one describe call confirms why, and the run stops before its next write, with one line, exit 2
 * (a configuration problem) and a Failed run record that says why. Access given back, the next
 * run completes the mirror.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { expectFullMirror, removeDir, tempCwd } from './helpers.js';

const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z svc-sync: /;
const DONATION_WRITE = /^PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/Svc_Donation__c\/SvcId__c$/;

describe('sync, with the connected user unable to edit a field of Svc_Donation__c', () => {
  let stack: Stack;
  let dir: string;
  let run: { code: number; stdout: string; stderr: string };
  let requests: string[];

  beforeAll(async () => {
    // 250 donations: three list pages, so three batches of 100 (--batch-size) would be written.
    stack = await startStack({ site: { seed: 40, segments: 1, projectsPerSegment: 1, donations: 250, newsletterSubscriptions: 4 } });
    dir = tempCwd('setup-stop');
    stack.salesforce.setFieldAccess('Svc_Donation__c', 'Amount__c', 'read');
    run = await runCli(['sync', '--all', '--json-lines', '-q', '--batch-size', '100'], { env: stack.env, cwd: dir });
    requests = stack.salesforce.requests();
  });
  afterAll(async () => {
    await stack.close();
    removeDir(dir);
  });

  it('exits 2 with one stderr line naming the object, the cause and `next: svc-sync doctor`', () => {
    expect(run.code).toBe(2);
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const [line] = lines as [string];
    expect(line).toMatch(STAMP);
    expect(line).toContain('svc-sync: exit 2: every write of Svc_Donation__c fails: Svc_Donation__c.Amount__c is read-only for the connected user (field-level security)');
    expect(line).toContain('sf org assign permset --name Svc_Sync_Integration');
    expect(line.split('; next: ').pop()).toBe('svc-sync doctor');
    const last = JSON.parse(run.stdout.trimEnd().split('\n').pop() ?? '{}') as { status: number };
    expect(last.status).toBe(2);
  });

  it('stops before its next write: one batch of donations sent, one describe call, nothing after', () => {
    expect(requests.filter((r) => DONATION_WRITE.test(r))).toHaveLength(1);
    expect(requests.filter((r) => r.endsWith('/describe'))).toEqual([expect.stringMatching(/\/sobjects\/Svc_Donation__c\/describe$/)]);
    expect(requests.some((r) => r.includes('/composite/sobjects/Svc_NewsletterSubscription__c/'))).toBe(false);
    // The parents written before it stand.
    expect(stack.salesforce.records('Svc_Action__c').length).toBeGreaterThan(0);
  });

  it('leaves a Failed run record whose summary says why', () => {
    const runs = stack.salesforce.records('Svc_SyncRun__c');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ Outcome__c: 'Failed' });
    expect(String(runs[0]?.Summary__c)).toMatch(/^exit 2: every write of Svc_Donation__c fails: Svc_Donation__c\.Amount__c is read-only/);
  });

  it('with access given back, the next run completes the mirror', async () => {
    stack.salesforce.setFieldAccess('Svc_Donation__c', 'Amount__c', 'edit');
    const again = await runCli(['sync', '--json-lines', '-q'], { env: stack.env, cwd: dir });
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expectFullMirror(stack, stack.platform.site);
    expect(fs.existsSync(path.join(dir, '.svc-sync', 'run.lock.holder.json'))).toBe(false);
  });
});
