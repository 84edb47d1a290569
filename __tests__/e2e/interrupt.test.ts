/**
 * Ctrl-C in a real terminal stops a run: the keypress goes through a pseudo-terminal (util-linux
 * `script`), so it only works when nothing (the spinner) has put the terminal in raw mode. The
 * run stops within the stalled request, keeps its progress, says how to resume and exits 130;
 * SIGTERM from a service manager, without a terminal, exits 143 the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd, waitFor } from './helpers.js';
import { STALL_MS, WAIT_MS } from '../support/patience.js';

interface StateOnDisk {
  watermarks?: Record<string, string>;
  run?: { completed: string[]; pagesDone: Record<string, number> };
}

describe('stopping a run', () => {
  let stack: Stack;
  const dirs: string[] = [];

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 5, donations: 450, newsletterSubscriptions: 5 } });
  });
  afterAll(async () => {
    await stack.close();
    for (const d of dirs) removeDir(d);
  });

  const readState = (cwd: string): StateOnDisk | undefined => {
    try {
      return JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as StateOnDisk;
    } catch {
      return undefined;
    }
  };

  /** Starts `sync --all` with donation page 3 stalled; resolves once pages 1-2 are saved. */
  async function startStalled(spawnRun: (cwd: string, env: NodeJS.ProcessEnv) => ChildProcess): Promise<{ child: ChildProcess; cwd: string; output: () => string; exited: Promise<number | null> }> {
    const cwd = tempCwd('interrupt');
    dirs.push(cwd);
    stack.platform.faults.clear();
    stack.platform.faults.next(1, 'slow', { path: /^\/v1\/donations\?(?:.*&)?page=3(?:&|$)/, delayMs: STALL_MS });
    const child = spawnRun(cwd, { PATH: process.env.PATH ?? '', ...READ_WHOLE, HOME: cwd, TERM: 'xterm', ...stack.env });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => ((readState(cwd)?.run?.pagesDone.donation ?? 0) >= 2 ? true : undefined), WAIT_MS, 'donation page 2 in the state file');
    return { child, cwd, output: () => out, exited };
  }

  it('Ctrl-C typed in a terminal stops within the stalled request, keeps progress, names the resume command, exit 130', async () => {
    // An 80-column terminal, as a person's: `script` alone gives its pty no size.
    const command = `stty cols 80 rows 24; ${[process.execPath, BIN, 'sync', '--all', '--batch-size', '50'].map((w) => `'${w}'`).join(' ')}`;
    const run = await startStalled((cwd, env) => spawn('script', ['-qfec', command, '/dev/null'], { cwd, env, stdio: 'pipe' }));
    const pressed = Date.now();
    run.child.stdin?.write('\x03');
    const code = await run.exited;
    // Stopped without waiting for the stalled page: the stop abandons the request in flight.
    expect(Date.now() - pressed).toBeLessThan(STALL_MS);
    expect(code).toBe(130);
    const text = run.output().replace(/\r/g, '');
    expect(text).toMatch(/Ctrl-C: stopping after the batch in flight/);
    expect(text).toMatch(/svc-sync: stopped by Ctrl-C after \d+ inserted.*progress saved in \.svc-sync\/state\.json; resume with: svc-sync sync --all --batch-size 50/);
    // Said once: on stderr, after the report (which does not repeat it).
    expect(text.match(/stopped by Ctrl-C after/g)).toHaveLength(1);
    const state = readState(run.cwd);
    expect(state?.run?.pagesDone).toEqual({ donation: 2 });
    expect(state?.watermarks).toBeUndefined();
  }, 60_000);

  it('SIGTERM without a terminal stops the same way, exit 143, the line on stderr, once', async () => {
    const run = await startStalled((cwd, env) => spawn(process.execPath, cliArgs(['sync', '--all', '--batch-size', '50']), { cwd, env, stdio: 'pipe' }));
    run.child.kill('SIGTERM');
    const code = await run.exited;
    expect(code).toBe(143);
    expect(run.output()).toMatch(/svc-sync: stopped by SIGTERM after .*progress saved in \.svc-sync\/state\.json; resume with: svc-sync sync --all --batch-size 50/);
    expect(run.output().match(/stopped by SIGTERM after/g)).toHaveLength(1);
    expect(readState(run.cwd)?.run?.pagesDone).toEqual({ donation: 2 });
  }, 60_000);

  it('SIGTERM under cron (the recipe: --json-lines -q, no terminal): no Ctrl-C hint, the resume command once', async () => {
    const run = await startStalled((cwd, env) => spawn(process.execPath, cliArgs(['sync', '--all', '--batch-size', '50', '--json-lines', '-q']), { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] }));
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    const stderr = run.output();
    expect(stderr).toMatch(/SIGTERM: stopping after the batch in flight/);
    expect(stderr).not.toMatch(/Ctrl-C/);
    expect(stderr).toMatch(/stopped by SIGTERM after/);
    expect(stderr.match(/svc-sync sync --all --batch-size 50 --json-lines -q/g)).toHaveLength(1);
  }, 60_000);
});
