/** An unattended run (no terminal) says on stderr when it waits for the platform's rate limit. */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd } from './helpers.js';

let stack: Stack;
let cwd: string;
beforeAll(async () => {
  // Two requests per (shortened) two-second window: one donation and its parents need several windows,
  // so the run waits even on a loaded machine where a window may roll over between two slow requests.
  stack = await startStack({
    site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 5, newsletterSubscriptions: 0 },
    rateLimit: { perMinute: 2, perHour: 1000, windowMs: 2000 },
  });
  cwd = tempCwd('rate-limit');
});
afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

it('paces itself below the limit and reports each wait on stderr, keeping stdout one JSON document', async () => {
  const donation = stack.platform.site.donation.find((d) => typeof d.action_id === 'number' && d.payment_status === 'paid' && Number(d.total_amount) !== 0)!;
  const res = await cli(stack, ['--json', 'object', 'donation', String(donation.id)], cwd);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout)).toMatchObject({ status: 0 });
  expect(res.stderr).toMatch(/waiting \d+ s: platform (minute|hourly) limit|waiting \d+ s: platform rate limited/);
  expect(stack.platform.requests.rateLimited).toBe(0);
});
