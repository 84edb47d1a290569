/**
 * The built CLI on a network that misbehaves: Salesforce redirecting to another host, a request
 * Salesforce holds without answering, a run waiting behind one that does not end. No token goes
 * to the other host; a stop ends the run within seconds (its lock released); `--wait` has a bound.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRecordingHost, type RecordingHost } from '../../fixtures/network.js';
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

  describe('a Salesforce request held without an answer', () => {
    let held: HeldRun | undefined;
    afterAll(() => held?.release());

    it('SIGTERM ends the run within seconds, exit 143, its lock released; a run waiting behind it stops at its --wait bound first', async () => {
      const dir = cwd();
      held = await startHeld(stack.salesforce, FIRST_WORK, ['sync', '--all'], dir, stack.env);

      // A second run waits at most its bound, then exits 75 saying so.
      const waitedFrom = Date.now();
      const waiting = await cli(stack, ['sync', '--all', '--wait', '2s'], dir);
      expect(waiting.code).toBe(75);
      expect(unstamp(waiting.stderr)).toMatch(/^waiting up to 2 s for the run holding .*run\.lock \(pid \d+/m);
      expect(unstamp(waiting.stderr)).toMatch(/waited 2 s \(the --wait bound\) for the run holding .*run\.lock \(pid \d+.*\); this one did nothing/);
      expect(Date.now() - waitedFrom).toBeLessThan(15_000);

      // The held run: one SIGTERM, no release of the request.
      const run = held;
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
  });
});
