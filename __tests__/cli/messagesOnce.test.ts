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
  const line = unstamp(res.stderr)
    .split('\n')
    .find((l) => l.startsWith('svc-sync: platform API rejected the key or URL'));
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

it('every missing setting in one message, exit 2, before anything else is said', async () => {
  const res = await cli(stack, ['sync', '--all'], cwd, undefined, { PATH: process.env.PATH ?? '' });
  expect(res.code).toBe(2);
  const lines = unstamp(res.stderr).trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^svc-sync: 3 settings are missing: SVC_API_URL .*; SVC_API_KEY .*; a Salesforce login: SF_INSTANCE_URL \+ SF_ACCESS_TOKEN/);
  // One missing: the same one-line form as before, naming it.
  const one = await cli(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_API_KEY: '' });
  expect(one.code).toBe(2);
});

it('a run that never started (Salesforce refused the session) leaves no pending run to "resume"', async () => {
  const dir = tempCwd('never-started');
  try {
    const refused = await cli(stack, ['sync', '--all'], dir, undefined, { ...stack.env, SF_ACCESS_TOKEN: 'not-a-session' });
    expect(refused.code).toBe(2);
    const again = await cli(stack, ['sync', '--all'], dir);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/resuming/);
  } finally {
    removeDir(dir);
  }
});
