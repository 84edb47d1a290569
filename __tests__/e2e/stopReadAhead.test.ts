/**
 * Through dist/cli.js: a stop (SIGTERM) while the donation scan has pages read ahead in
 * flight lets those requests finish (a few seconds of grace), writes their records and saves them
 * as done, so the resume asks again for no page read ahead (only the one page back it reads on
 * purpose); the mirror ends exact.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, expectFullMirror, isStartCheck, removeDir, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

/** Donation list pages 2 to 5 (the scan's read-ahead after page 1) are held this long: within the stop's grace. */
const HELD_MS = 1_500;
const READ_AHEAD = /^\/v1\/donations\?(?:.*&)?page=[2-5](?:&|$)/;

describe('a stop keeps the pages read ahead', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    // 900 donations: nine list pages of 100.
    stack = await startStack({ site: { seed: 11, donations: 900, newsletterSubscriptions: 5 } });
    cwd = tempCwd('stop-read-ahead');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  /** The list pages asked for since the counts were reset (the start check aside). */
  const listPages = (): string[] =>
    stack.platform.requests.log
      .filter((e) => e.kind === 'list' && !isStartCheck(e))
      .map((e) => e.url)
      .sort();

  it('SIGTERM with four donation pages in flight: they are written and saved, and the resume asks for none of them again', async () => {
    stack.platform.faults.next(4, 'slow', { path: READ_AHEAD, delayMs: HELD_MS });
    const child = spawn(process.execPath, [BIN, 'sync', '--all', '--batch-size', '50'], { cwd, env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, HOME: cwd, ...stack.env }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Stopped once all four read-ahead pages are asked for (and held).
    await waitFor(() => (stack.platform.requests.log.filter((e) => READ_AHEAD.test(e.url)).length === 4 ? true : undefined), WAIT_MS, 'donation pages 2 to 5 asked for');
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    const state = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { run?: { pagesDone: Record<string, number> } };
    expect(state.run?.pagesDone).toEqual({ donation: 5 });
    const stopped = listPages();
    expect(stopped.filter((u) => u.startsWith('/v1/donations?'))).toHaveLength(5);

    stack.platform.resetCounts();
    const resumed = await cli(stack, ['sync', '--all', '--batch-size', '50'], cwd);
    expect(resumed.code).toBe(0);
    // Of the pages the stopped run asked for, only the one back the resume reads on purpose (the
    // last saved: a record removed before it would shift the pages): none of those read ahead.
    const again = listPages();
    expect(again.filter((u) => stopped.includes(u))).toEqual(['/v1/donations?page=5&per_page=100']);
    expect(again.filter((u) => u.startsWith('/v1/donations?'))).toHaveLength(5);
    expectFullMirror(stack, stack.platform.site);
  }, 120_000);
});
