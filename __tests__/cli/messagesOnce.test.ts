/** Issue 21, messages said once and plainly: each hint once, no commander internals. */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd, unstamp } from '../e2e/helpers.js';

let stack: Stack;
let cwd: string;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 1, newsletterSubscriptions: 0 } });
  cwd = tempCwd('messages');
});
afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

it('a refused API key: one error line naming SVC_API_KEY once, exit 2', async () => {
  const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_API_KEY: 'not-the-key-at-all' });
  expect(res.code).toBe(2);
  const line = unstamp(res.stderr).split('\n').find((l) => l.startsWith('svc-sync: platform API rejected the key or URL'));
  expect(line).toBeDefined();
  expect(line!.match(/check SVC_API_KEY/g)).toHaveLength(1);
  expect(res.stderr).not.toContain('not-the-key-at-all');
});

it('svc-sync --json with no command: a plain usage error, not commander\'s "(outputHelp)"', async () => {
  const res = await cli(stack, ['--json'], cwd);
  expect(res.code).toBe(2);
  const body = JSON.parse(res.stdout) as { status: number; message: string };
  expect(body).toMatchObject({ status: 2, message: 'no command given: name one, e.g. svc-sync sync --all' });
  expect(res.stdout).not.toContain('outputHelp');
});
