/**
 * A webhook batch tells the engine when its objects changed at the earliest, so the list scan the
 * planner chooses reads only the recently changed pages instead of the whole collection.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import type { Settings } from '../../src/config/settings.js';
import type { ObjectRef } from '../../src/model/objects.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempFolders } from '../support/tempFolders.js';

const cwdFolder = tempFolders('svc-narrow-');

let stack: Stack;
let settings: Settings;

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 1500, newsletterSubscriptions: 0 } });
  settings = settingsOf(loadRaw({ env: stack.env, cwd: cwdFolder() }));
});
afterAll(async () => {
  await stack.close();
});

it('reads only the pages changed since the hint, not the whole collection', async () => {
  const before = new Date(Date.now() - 1000).toISOString();
  const changed = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0).slice(0, 150);
  for (const d of changed) stack.platform.update('donation', d.id, { message: 'changed' });
  const refs: ObjectRef[] = changed.map((d) => ({ type: 'donation', id: d.id }));

  stack.platform.resetCounts();
  const narrowed = await createEngineProcessor(composeConnection(settings)).process(refs, { changedSince: before });
  expect(narrowed.outcomes.filter((o) => o.status === 'done')).toHaveLength(150);
  // 150 changed donations fit 2 pages of 100; without the hint the planner reads all 15 pages.
  expect(stack.platform.requests.list.donations).toBe(2);
  // A fresh processor: an optional key absent from every record of the narrowed pages is looked for
  // in records by id (44 at most, once) before the lists' records are taken as they are.
  expect(stack.platform.requests.byId.donations ?? 0).toBeLessThanOrEqual(44);
  const narrowedDonationPages = stack.platform.requests.list.donations;

  stack.platform.resetCounts();
  await createEngineProcessor(composeConnection(settings)).process(refs);
  expect(stack.platform.requests.list.donations).toBe(15);
  expect(narrowedDonationPages).toBeLessThan(15);
});
