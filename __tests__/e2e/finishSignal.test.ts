/**
 * A signal after a run's work, while it writes its run record to the org (the sync log): the run
 * announces it, finishes the record and ends with its document and the exit its work earned
 * (nothing is left to do); a second signal quits at once. Never Node's default death without the
 * document. The moment is observed, not timed: the emulator holds the run record's write.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { startHeld, type HeldRun } from '../support/heldRun.js';
import { removeDir, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

/** The run record, the first write of the sync log: sent once the sync's work is done. */
const RUN_RECORD = /^PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/Svc_SyncRun__c\//;

describe('a signal while a run writes its record to the org', () => {
  let stack: Stack;
  const dirs: string[] = [];

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 19, segments: 1, projectsPerSegment: 1, donations: 30, newsletterSubscriptions: 2 } });
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    for (const d of dirs) removeDir(d);
  });

  /** `args` with the run record's write held; resolves once it is held. */
  function heldAtRecord(args: string[]): Promise<HeldRun> {
    const cwd = tempCwd('finish-signal');
    dirs.push(cwd);
    return startHeld(stack.salesforce, RUN_RECORD, args, cwd, stack.env);
  }

  const saved = (cwd: string): { watermarks?: Record<string, string>; run?: unknown } =>
    JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { watermarks?: Record<string, string>; run?: unknown };

  it('Ctrl-C then: announced, the record finished, the document whole, exit 0 (the work was done)', async () => {
    const run = await heldAtRecord(['--json', 'sync', '--all']);
    run.child.kill('SIGINT');
    await waitFor(() => (/^svc-sync: Ctrl-C: the run's work is done; writing its record to the org first/m.test(run.stderr()) ? true : undefined), WAIT_MS, 'the signal announced');
    run.release();
    const r = await run.done;
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { status: number; result: { salesforceLog?: { status: string } } };
    expect(body.status).toBe(0);
    expect(body.result.salesforceLog?.status).toBe('written');
    expect(Object.keys(saved(run.cwd).watermarks ?? {}).length).toBeGreaterThan(0);
    expect(saved(run.cwd).run).toBeUndefined();
  }, 120_000);

  it('a second SIGTERM then quits at once with 143, the progress kept', async () => {
    const run = await heldAtRecord(['--json', 'sync', '--all']);
    run.child.kill('SIGTERM');
    await waitFor(() => (/SIGTERM: the run's work is done/.test(run.stderr()) ? true : undefined), WAIT_MS, 'the signal announced');
    run.child.kill('SIGTERM');
    const r = await run.done;
    run.release();
    expect(r.code).toBe(143);
    expect(r.stdout).toBe('');
    expect(Object.keys(saved(run.cwd).watermarks ?? {}).length).toBeGreaterThan(0);
  }, 120_000);
});
