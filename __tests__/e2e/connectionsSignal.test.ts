/**
 * A signal in a run over two connections, above all between the two: north has synced and saved
 * its progress, and waits on the org for its run record (the sync log, written after its own
 * signal watch has ended); the signal comes then. The run must stop there as during a connection:
 * south listed as not run, the --json document whole, exit 130 / 143; a second signal quits at
 * once. Also during north's sync, and during doctor (which has no watch of its own). Each point is
 * observed, not timed: the emulator holds one of north's requests until the test lets it go.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { startHeld, type HeldRun } from '../support/heldRun.js';
import { keyOf, removeDir, tempCwd, unstamp, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { NAMES, secretsOf, writeTwoSites, type Name } from '../support/twoSites.js';

interface ConnectionEntry {
  connection: string;
  status: number;
  result: { salesforceLog?: { status: string } } | null;
  error?: string;
  actions?: string[];
}

interface Several {
  status: number;
  result: { connections: ConnectionEntry[] };
  warnings: string[];
}

interface StateOnDisk {
  watermarks?: Record<string, string>;
  run?: { completed: string[] };
}

/** North's run record, the first write of its sync log: sent once north's sync is done. */
const RUN_RECORD = /^PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/Svc_SyncRun__c\//;

describe('a signal in a run over two connections', () => {
  const stacks = {} as Record<Name, Stack>;
  const dirs: string[] = [];
  let secrets: Record<string, string>;

  beforeAll(async () => {
    stacks.north = await startStack({ site: { seed: 17, siteId: 7, segments: 1, projectsPerSegment: 1, donations: 30, newsletterSubscriptions: 2 } });
    stacks.south = await startStack({ site: { seed: 28, siteId: 8, segments: 1, projectsPerSegment: 1, donations: 20, newsletterSubscriptions: 2 } });
    secrets = secretsOf(stacks);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(NAMES.map((n) => stacks[n].close()));
    for (const d of dirs) removeDir(d);
  });

  /** A fresh folder with a config file naming both connections, secrets from the environment. */
  function deployment(): string {
    const cwd = tempCwd('connections-signal');
    dirs.push(cwd);
    return writeTwoSites(cwd, stacks);
  }

  const stateOf = (cwd: string, name: Name): StateOnDisk | undefined => {
    try {
      return JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', name, 'state.json'), 'utf8')) as StateOnDisk;
    } catch {
      return undefined;
    }
  };

  /** Resolves once the run has said on stderr that it stops; fails at once if it died instead. */
  const announced = (run: HeldRun, line: RegExp): Promise<unknown> => {
    const died = run.done.then((r) => {
      throw new Error(`the run ended (exit ${r.code}; -1: killed by the signal) instead of announcing its stop; stdout:\n${r.stdout}`);
    });
    // The run's end after the announcement is the test's to judge, not a failure here.
    died.catch(() => undefined);
    return Promise.race([waitFor(() => (line.test(run.stderr()) ? true : undefined), WAIT_MS, 'the stop announced'), died]);
  };

  /**
   * Starts `args` over both connections with a request of north's held at the org (by default its
   * run record: north's sync done, south not begun); resolves once it is held, or fails if the run
   * ends first.
   */
  function heldAt(args: string[], request = RUN_RECORD): Promise<HeldRun> {
    const cwd = deployment();
    for (const n of NAMES) stacks[n].platform.resetCounts();
    return startHeld(stacks.north.salesforce, request, args, cwd, secrets);
  }

  /** North finished whole before the stop: every type's watermark saved, no run left to resume. */
  const expectNorthSaved = (cwd: string): void => {
    const north = stateOf(cwd, 'north');
    expect(Object.keys(north?.watermarks ?? {}).length).toBeGreaterThan(0);
    expect(north?.run).toBeUndefined();
  };

  it('Ctrl-C while north writes its run record: the document whole, north saved, south not run, exit 130', async () => {
    const run = await heldAt(['--json', 'sync', '--all']);
    run.child.kill('SIGINT');
    // Said at once, while north still waits: the run took the signal, it did not die of it.
    await announced(run, /^svc-sync: north: Ctrl-C: stopping after this connection; the ones after it do not start/m);
    run.release();
    const r = await run.done;
    expect(r.code).toBe(130);
    const body = JSON.parse(r.stdout) as Several;
    expect(body.status).toBe(130);
    expect(body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 130],
    ]);
    const [north, south] = body.result.connections;
    // North's log was written after the signal: its run went on to its end.
    expect(north!.result?.salesforceLog?.status).toBe('written');
    expect(south!.result).toBeNull();
    expect(south!.error).toBe('not run: interrupted by Ctrl-C');
    expect(south!.actions).toEqual(['run the same command again: it resumes']);
    expectNorthSaved(run.cwd);
    expect(stateOf(run.cwd, 'south')).toBeUndefined();
    expect(stacks.south.platform.requests.total).toBe(0);
    // Cron's mail: one line for south, none for north.
    expect(unstamp(r.stderr)).toMatch(/^svc-sync: south: exit 130: not run: interrupted by Ctrl-C; next: run the same command again: it resumes$/m);
    expect(unstamp(r.stderr)).not.toMatch(/north: exit/);
  }, 120_000);

  it('SIGTERM there, human output: north block, a closing line for south, exit 143', async () => {
    const run = await heldAt(['sync', '--all']);
    run.child.kill('SIGTERM');
    await announced(run, /^svc-sync: north: SIGTERM: stopping after this connection/m);
    run.release();
    const r = await run.done;
    expect(r.code).toBe(143);
    expect(r.stdout).toContain('== connection north (site 7) ==');
    expect(r.stdout).not.toContain('== connection south');
    expect(unstamp(r.stderr)).toMatch(/^svc-sync: south: not run: interrupted by SIGTERM$/m);
    expectNorthSaved(run.cwd);
    expect(stacks.south.platform.requests.total).toBe(0);
  }, 120_000);

  it('a second Ctrl-C there quits at once, exit 130', async () => {
    const run = await heldAt(['--json', 'sync', '--all']);
    run.child.kill('SIGINT');
    await announced(run, /Ctrl-C: stopping after this connection/);
    run.child.kill('SIGINT');
    const r = await run.done;
    run.release();
    expect(r.code).toBe(130);
    // Quit without waiting for the org: no document.
    expect(r.stdout).toBe('');
    expectNorthSaved(run.cwd);
  }, 120_000);

  it('Ctrl-C during north, --json: north stops saved and resumable, south listed as not run, exit 130', async () => {
    // North's donations gone from its org (an earlier case wrote them): the sync writes them again,
    // and the first of those writes is held while north's own watch is on.
    for (const d of stacks.north.platform.site.donation) stacks.north.salesforce.deleteRecord('Svc_Donation__c', keyOf('donation', d.id));
    const run = await heldAt(['--json', 'sync', '--all'], /^PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/Svc_Donation__c\//);
    run.child.kill('SIGINT');
    await announced(run, /^svc-sync: Ctrl-C: stopping after the batch in flight and saving progress/m);
    run.release();
    const r = await run.done;
    expect(r.code).toBe(130);
    const body = JSON.parse(r.stdout) as Several;
    expect(body.status).toBe(130);
    expect(body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 130],
      ['south', 130],
    ]);
    const [north, south] = body.result.connections;
    expect(north!.error).toMatch(/^stopped by Ctrl-C .*progress saved in \.svc-sync\/north\/state\.json; resume with: svc-sync --json sync --all$/);
    expect(south!.error).toBe('not run: interrupted by Ctrl-C');
    // Announced once, by north's own watch.
    expect(r.stderr.match(/stopping after/g)).toHaveLength(1);
    // What north finished before donations is in its state file: the next run resumes from there.
    expect(stateOf(run.cwd, 'north')?.run?.completed).toContain('segment');
    expect(stacks.south.platform.requests.total).toBe(0);
  }, 120_000);

  it('Ctrl-C during doctor (no watch of its own): north checked to its end, south not run, exit 130', async () => {
    const run = await heldAt(['--json', 'doctor'], /^GET \/services\/data\//);
    run.child.kill('SIGINT');
    await announced(run, /^svc-sync: north: Ctrl-C: stopping after this connection/m);
    run.release();
    const r = await run.done;
    expect(r.code).toBe(130);
    const body = JSON.parse(r.stdout) as Several;
    expect(body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 130],
    ]);
    expect(body.result.connections[1]!.error).toBe('not run: interrupted by Ctrl-C');
    expect(stacks.south.platform.requests.total).toBe(0);
  }, 120_000);
});
