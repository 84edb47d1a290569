/** The run lock: one holder per state folder, a second told who holds it (exit 75), or waiting for it. */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT, RunLockedError, exitCodeOf } from '../../src/model/errors.js';
import { acquireRunLock, describeHolder, readHolder, runLockFile, stateDirOf } from '../../src/sync/run/runLock.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-lock-'));
  dirs.push(d);
  return path.join(d, 'state');
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('run lock', () => {
  it('a second taker gets RunLockedError naming the holder, exit 75; after release it is free', async () => {
    const dir = tempDir();
    const first = await acquireRunLock(dir, { command: 'svc-sync sync --all', wait: false });
    expect(readHolder(runLockFile(dir))).toMatchObject({ pid: process.pid, command: 'svc-sync sync --all' });
    const refused = await acquireRunLock(dir, { command: 'svc-sync sync', wait: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RunLockedError);
    expect(exitCodeOf(refused)).toBe(EXIT.LOCKED);
    expect((refused as Error).message).toContain(`pid ${process.pid}, started `);
    expect((refused as Error).message).toContain('svc-sync sync --all');
    first.release();
    first.release();
    const again = await acquireRunLock(dir, { command: 'svc-sync sync', wait: false });
    again.release();
  });

  it('the holder file goes with the lock: it never names a run that has ended (issue 40)', async () => {
    const dir = tempDir();
    const lock = await acquireRunLock(dir, { command: 'svc-sync sync', wait: false });
    expect(fs.existsSync(`${runLockFile(dir)}.holder.json`)).toBe(true);
    lock.release();
    expect(fs.existsSync(`${runLockFile(dir)}.holder.json`)).toBe(false);
    expect(fs.existsSync(runLockFile(dir))).toBe(true);
  });

  it('--wait: said once, then taken when the holder lets go', async () => {
    const dir = tempDir();
    const first = await acquireRunLock(dir, { command: 'svc-sync replay --file x.csv', wait: false });
    const said: string[] = [];
    let taken = false;
    const waiting = acquireRunLock(dir, { command: 'svc-sync sync', wait: true, pollMs: 10, onWait: (l) => said.push(l) }).then((lock) => {
      taken = true;
      return lock;
    });
    while (said.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(taken).toBe(false);
    // A bare --wait has a bound too.
    expect(said[0]).toMatch(/^waiting up to 30 min for the run holding .*run\.lock \(pid \d+, started .*: svc-sync replay --file x\.csv\)$/);
    first.release();
    const second = await waiting;
    expect(said).toHaveLength(1);
    second.release();
  });

  it('--wait ends at its bound: exit 75 saying it waited, the holder named', async () => {
    const dir = tempDir();
    const first = await acquireRunLock(dir, { command: 'svc-sync sync --all', wait: false });
    const started = Date.now();
    const err = await acquireRunLock(dir, { command: 'svc-sync sync', wait: true, waitMs: 1_000, pollMs: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunLockedError);
    expect(exitCodeOf(err)).toBe(75);
    expect((err as Error).message).toMatch(/^waited 1 s \(the --wait bound\) for the run holding .*run\.lock \(pid \d+, started .*: svc-sync sync --all\); this one did nothing$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    first.release();
  });

  it('a wait ends on Ctrl-C with its reason', async () => {
    const dir = tempDir();
    const first = await acquireRunLock(dir, { command: 'svc-sync sync', wait: false });
    const stop = new AbortController();
    const reason = new Error('stopped');
    const waiting = acquireRunLock(dir, { command: 'svc-sync sync', wait: true, pollMs: 10, stop: stop.signal, onWait: () => stop.abort(reason) });
    await expect(waiting).rejects.toThrow(/stopped by Ctrl-C|stopped/);
    first.release();
  });

  it("the state folder: the state file's, else .svc-sync; the holder unknown is said so", () => {
    expect(stateDirOf('/srv/x/state.json', '.svc-sync')).toBe('/srv/x');
    expect(stateDirOf(undefined, '.svc-sync/north')).toBe('.svc-sync/north');
    expect(describeHolder(undefined)).toBe('details not written yet');
  });
});
