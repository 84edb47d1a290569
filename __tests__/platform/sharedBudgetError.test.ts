/** A budget shared through the queue database that cannot be reached is said, once, and pacing goes on. */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { settingsOf } from '../../src/config/load.js';
import type { SharedBudget } from '../../src/model/budget.js';
import { depsPerBatch } from '../../src/sync/compose.js';
import { startStack, type Stack } from '../../fixtures/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 2, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 3, newsletterSubscriptions: 0 } });
});
afterAll(async () => {
  await stack.close();
});

it('the receiver logs that the shared budget is out of reach (once), and its requests still go out', async () => {
  let takes = 0;
  const unreachable: SharedBudget = {
    take: async () => {
      takes += 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    },
    record: () => undefined,
  };
  const notes: string[] = [];
  const factory = depsPerBatch(settingsOf({ ...stack.env }), (t) => notes.push(t), { sharedBudget: unreachable });
  const { source } = await factory();
  const fetched = await source.fetch(
    'segment',
    stack.platform.site.segment.map((s) => s.id),
    { byId: true },
  );
  expect(fetched.records.size).toBe(2);
  expect(takes).toBeGreaterThanOrEqual(2);
  const said = notes.filter((n) => n.includes('shared platform budget'));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/cannot be reached \(.*ECONNREFUSED.*\); this receiver paces on the API's headers alone meanwhile/);
});
