/** --quiet hides progress and the report, never what explains a non-zero exit nor an error. */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, keyOf, removeDir, tempCwd } from './helpers.js';

let stack: Stack;
let cwd: string;
beforeAll(async () => {
  stack = await startStack({ site: { seed: 4, donations: 20, newsletterSubscriptions: 0 } });
  cwd = tempCwd('quiet');
});
afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

it('replay with bad lines and -q: exit 1, each bad line and its reason on stderr, nothing on stdout', async () => {
  const d = stack.platform.site.donation[0]!;
  const input = [`donation,${d.id}`, 'not json', 'widget,12'].join('\n');
  const res = await cli(stack, ['-q', 'replay', '--file', '-'], cwd, input);
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(/warning: line 2: .+/);
  expect(res.stderr).toMatch(/warning: line 3: .+/);
});

it('a failed record with -q: exit 1 and the failure on stderr', async () => {
  const victim = stack.platform.site.donation.find((x) => x.payment_status === 'paid')!;
  stack.platform.update('donation', victim.id, { total_amount: 'not a number' });
  const res = await cli(stack, ['-q', 'object', 'donation', String(victim.id)], cwd);
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  // One line: the count, the reason and the record, and what next (issue 40).
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr).toMatch(new RegExp(`exit 1: 1 record failed: 1 Svc_Donation__c INVALID_VALUE: .+ \\(${keyOf('donation', victim.id)}\\); next: `));
});

it('a configuration error with -q still says what is wrong', async () => {
  const res = await cli(stack, ['-q', 'object', 'donation', '1'], cwd, undefined, { SVC_API_KEY: 'k' });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/SVC_API_URL/);
});
