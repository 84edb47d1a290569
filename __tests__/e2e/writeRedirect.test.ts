/**
 * Salesforce answering a write with a redirect (issue 47, row 10): never followed, and no later
 * batch can fare better, so the run stops at the first one with exit 2 (README's table), one line
 * naming both hosts; not one failed record per record of the site and exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRecordingHost, type RecordingHost } from '../../fixtures/network.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, recordCount, removeDir, tempCwd } from './helpers.js';

describe('a write answered 307', () => {
  let stack: Stack;
  let other: RecordingHost;
  const dirs: string[] = [];
  const cwd = (): string => {
    const dir = tempCwd('write-redirect');
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 21, donations: 60, newsletterSubscriptions: 10 } });
    other = await startRecordingHost();
  });
  afterAll(async () => {
    await Promise.all([stack.close(), other.close()]);
    for (const dir of dirs) removeDir(dir);
  });

  const writes = (): string[] => stack.salesforce.requests().filter((r) => /^(PATCH|POST|PUT) .*\/(composite\/sobjects\/Svc_(?!Sync)|jobs\/ingest)/.test(r));

  for (const [via, rule, env] of [
    ['REST collections', /^PATCH .*\/composite\/sobjects\/Svc_/, {}],
    ['Bulk API 2.0', /^POST .*\/jobs\/ingest$/, { SF_BULK_THRESHOLD: '1' }],
  ] as const) {
    it(`through ${via}: exit 2 at the first write, one line naming both hosts, nothing sent on`, async () => {
      const undo = stack.salesforce.redirect(rule, other.url, 307);
      stack.salesforce.resetCalls();
      try {
        const run = await cli(stack, ['sync', '--all'], cwd(), undefined, { ...stack.env, ...env });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`answered 307, a redirect to ${other.url}: not followed`);
        expect(writes()).toHaveLength(1);
        expect(recordCount(stack)).toBe(0);
        expect(other.received).toEqual([]);
      } finally {
        undo();
      }
    }, 60_000);
  }
});
