/** A `sync --all` killed half-way resumes where it stopped: completed levels are not scanned again. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cliJson, expectEnvelope, isStartCheck, expectedKeys, expectFullMirror, removeDir, tempCwd, waitFor } from './helpers.js';
import { STALL_MS, WAIT_MS } from '../support/patience.js';

interface RunOnDisk {
  since: string | null;
  completed: string[];
  pagesDone: Record<string, number>;
}
interface StateOnDisk {
  version: number;
  watermarks?: Record<string, string>;
  run?: RunOnDisk;
}

describe('sync resume after a kill', () => {
  let stack: Stack;
  let cwd: string;
  const statePath = (): string => path.join(cwd, '.svc-sync', 'state.json');
  const readState = (): StateOnDisk | undefined => {
    try {
      return JSON.parse(fs.readFileSync(statePath(), 'utf8')) as StateOnDisk;
    } catch {
      return undefined; // not written yet
    }
  };

  beforeAll(async () => {
    // 450 donations: five list pages of 100.
    stack = await startStack({ site: { seed: 3, donations: 450, newsletterSubscriptions: 10 } });
    cwd = tempCwd('resume');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('resumes at the last donation page done, scans no completed level again, and completes the mirror', async () => {
    // Donation list page 3 stalls, so the run is caught after pages 1 and 2 are written.
    stack.platform.faults.next(1, 'slow', { path: /^\/v1\/donations\?(?:.*&)?page=3(?:&|$)/, delayMs: STALL_MS });
    const child = spawn(process.execPath, cliArgs(['sync', '--all', '--batch-size', '50']), {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, HOME: cwd, ...stack.env },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let killed: StateOnDisk;
    try {
      killed = await waitFor(
        () => {
          const s = readState();
          return s?.run && (s.run.pagesDone.donation ?? 0) >= 2 ? s : undefined;
        },
        WAIT_MS,
        'donation page 2 in the state file',
      );
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    stack.platform.faults.clear();

    // What the state file said when the run died: every level above donations done, two donation pages done.
    expect(killed.run?.since).toBeNull();
    expect([...(killed.run?.completed ?? [])].sort()).toEqual(['action', 'company', 'project', 'segment', 'team']);
    expect(killed.run?.pagesDone).toEqual({ donation: 2 });
    const after = readState();
    expect(after?.run).toBeDefined();
    expect(after?.watermarks).toBeUndefined();
    const want = expectedKeys(stack.platform.site);
    const donationsAtKill = stack.salesforce.records('Svc_Donation__c').length;
    expect(donationsAtKill).toBeGreaterThan(0);
    expect(donationsAtKill).toBeLessThan(want.Svc_Donation__c.length);
    expect(stack.salesforce.records('Svc_NewsletterSubscription__c')).toHaveLength(0);

    stack.platform.resetCounts();
    const run = await cliJson(stack, ['sync', '--all'], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'sync', false);
    expect(run.body.result.resumed).toBe(true);

    // The completed levels are not scanned again; nothing is fetched by id (their records are in Salesforce).
    const scanned = (collection: string): number => stack.platform.requests.log.filter((e) => e.kind === 'list' && e.collection === collection && !isStartCheck(e)).length;
    for (const done of ['segments', 'projects', 'teams', 'companies', 'actions']) expect({ done, pages: scanned(done) }).toEqual({ done, pages: 0 });
    // No request by id: list pages that carry every key the mapping reads show they are complete.
    expect(stack.platform.requests.log.filter((e) => e.kind === 'byId').map((e) => e.collection)).toEqual([]);
    // Donations restart at the last page done (page 2), never page 1.
    const donationPages = stack.platform.requests.log
      .filter((e) => e.kind === 'list' && e.collection === 'donations')
      .map((e) => Number(new URL(e.url, 'http://127.0.0.1').searchParams.get('page')))
      .sort((x, y) => x - y);
    expect(donationPages).toEqual([2, 3, 4, 5]);
    expect(scanned('newsletter-subscriptions')).toBeGreaterThan(0);

    // Only what the killed run had not written is inserted; the rest of page 2 is unchanged.
    const s = run.body.result.summary;
    expect(s.Svc_Donation__c.inserted).toBe(want.Svc_Donation__c.length - donationsAtKill);
    expect(s.Svc_Donation__c.updated).toBe(0);
    expect(s.Svc_Action__c.inserted + s.Svc_Action__c.unchanged).toBe(0);
    expectFullMirror(stack, stack.platform.site);

    const done = readState();
    expect(done?.run).toBeUndefined();
    expect(Object.keys(done?.watermarks ?? {}).sort()).toEqual(['action', 'company', 'donation', 'newsletter_subscription', 'project', 'segment', 'team']);
  });
});
