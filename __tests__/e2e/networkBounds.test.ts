/**
 * The built CLI on a network that misbehaves: Salesforce redirecting to another host, a request
 * Salesforce holds without answering, a run waiting behind one that does not end. No token goes
 * to the other host; a stop ends the run within seconds (its lock released); `--wait` has a bound.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startProxy, startRecordingHost, type RecordingHost } from '../../fixtures/network.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { startHeld, type HeldRun } from '../support/heldRun.js';
import { cli, removeDir, tempCwd, unstamp } from './helpers.js';

/** The sync's first Salesforce request after its session check: a query or a write. */
const FIRST_WORK = /^(GET \/services\/data\/v[\d.]+\/query|PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/)/;

describe('a misbehaving network', () => {
  let stack: Stack;
  let other: RecordingHost;
  const dirs: string[] = [];
  const cwd = (): string => {
    const d = tempCwd('network');
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 23, segments: 1, projectsPerSegment: 1, donations: 4, newsletterSubscriptions: 1 } });
    other = await startRecordingHost();
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    await other.close();
    for (const d of dirs) removeDir(d);
  });

  it('Salesforce redirecting the session check to another host: exit 2 naming both, no token sent there', async () => {
    const stop = stack.salesforce.redirect(/^GET .*\/limits$/, other.url, 301);
    const r = await cli(stack, ['sync', '--all'], cwd()).finally(stop);
    expect(r.code).toBe(2);
    const from = stack.env.SF_INSTANCE_URL!;
    expect(unstamp(r.stderr)).toMatch(new RegExp(`^svc-sync: GET ${from} answered 301, a redirect to ${other.url}: not followed`, 'm'));
    expect(other.received).toEqual([]);
  }, 60_000);

  it('HTTP_PROXY with NO_PROXY covering the hosts: nothing through the proxy; without: everything', async () => {
    const proxy = await startProxy();
    try {
      const direct = await cli(stack, ['sync', '--all'], cwd(), undefined, { ...stack.env, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1,localhost' });
      expect(direct.code).toBe(0);
      expect(proxy.tunnels).toEqual([]);
      const sfBefore = stack.salesforce.calls().total;
      stack.platform.resetCounts();
      const through = await cli(stack, ['sync', '--all'], cwd(), undefined, { ...stack.env, http_proxy: proxy.url });
      expect(through.code).toBe(0);
      // Every request either side saw came through the proxy's tunnels (the login, the session
      // check, jsforce's calls, both platform clients).
      const seen = stack.salesforce.calls().total - sfBefore + stack.platform.requests.total;
      expect(seen).toBeGreaterThan(2);
      expect(proxy.requests).toBe(seen);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('a proxy refusing CONNECT: exit 2 within seconds, one line naming the proxy', async () => {
    const proxy = await startProxy({ refuse: true });
    try {
      const started = Date.now();
      const r = await cli(stack, ['sync', '--all'], cwd(), undefined, { ...stack.env, HTTP_PROXY: proxy.url });
      expect(r.code).toBe(2);
      expect(unstamp(r.stderr)).toMatch(new RegExp(`^svc-sync: proxy ${proxy.url} refused CONNECT to 127\\.0\\.0\\.1:\\d+ \\(HTTP 403\\)`, 'm'));
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  describe('a Salesforce request held without an answer', () => {
    const runs: HeldRun[] = [];
    afterAll(() => runs.forEach((r) => r.release()));
    const held = async (dir: string): Promise<HeldRun> => {
      const run = await startHeld(stack.salesforce, FIRST_WORK, ['sync', '--all'], dir, stack.env);
      runs.push(run);
      return run;
    };

    it('one SIGTERM ends the run within seconds, exit 143, its lock released', async () => {
      const dir = cwd();
      const run = await held(dir);
      const stoppedAt = Date.now();
      run.child.kill('SIGTERM');
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(Date.now() - stoppedAt).toBeLessThan(15_000);
      // The lock went with it: the next run is not held off (75).
      run.release();
      const next = await cli(stack, ['sync', '--all'], dir);
      expect(next.code).toBe(0);
    }, 120_000);

    it('a run waiting behind it stops at its --wait bound: exit 75 saying so', async () => {
      const dir = cwd();
      const run = await held(dir);
      const waitedFrom = Date.now();
      const waiting = await cli(stack, ['sync', '--all', '--wait', '2s'], dir);
      expect(waiting.code).toBe(75);
      expect(unstamp(waiting.stderr)).toMatch(/^waiting up to 2 s for the run holding .*run\.lock \(pid \d+/m);
      expect(unstamp(waiting.stderr)).toMatch(/waited 2 s \(the --wait bound\) for the run holding .*run\.lock \(pid \d+.*\); this one did nothing/);
      expect(Date.now() - waitedFrom).toBeLessThan(15_000);
      run.child.kill('SIGTERM');
      run.release();
      expect((await run.done).code).toBe(143);
    }, 120_000);
  });
});
