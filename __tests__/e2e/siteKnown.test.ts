/**
 * SVC_SITE_ID unset: a run names the site as the platform reports it (the site_id its records
 * carry). A run with nothing to do reads no record, so it names the site an earlier run's records
 * carried (kept in the state folder's platform profile), in its header and in --json, and spends
 * no request to ask: its requests are the filtered list pages it makes anyway.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, tempCwd } from './helpers.js';

let stack: Stack;
let cwd: string;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 0 } });
  cwd = tempCwd('site-known');
});
afterAll(async () => {
  await stack.close();
});

const stderrLines = (text: string): string[] => text.split('\n').map((l) => l.replace(/^\S+Z /, ''));

it('sync with nothing to do names the site its records carried before, in the header and in --json, with no request of its own', async () => {
  const site = stack.platform.site.segment[0]?.site_id;
  const host = new URL(stack.platform.url).host;
  const first = await cli(stack, ['sync', '--all'], cwd);
  expect(first.code).toBe(0);

  stack.platform.resetCounts();
  const idle = await cli(stack, ['sync'], cwd);
  expect(idle.code).toBe(0);
  expect(idle.stdout).toMatch(/No records\./);
  expect(stderrLines(idle.stderr)[0]).toBe(`site ${site}, as the platform reports it (SVC_SITE_ID not set) at ${host}`);
  // What the run makes anyway: one filtered list page a type, nothing by id, nothing unfiltered.
  const log = stack.platform.requests.log;
  expect(log.length).toBeGreaterThan(0);
  expect(log.filter((r) => r.kind !== 'list' || !r.url.includes('updated_after='))).toEqual([]);

  const json = await cliJson(stack, ['sync'], cwd);
  expect(json.body.status).toBe(0);
  expect((json.body.result as { where?: { site?: unknown } }).where?.site).toMatchObject({ id: null, reported: site });
});
