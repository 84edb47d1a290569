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
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { startWorker } from '../../src/webhook/worker/worker.js';
import { CHANGE_MARGIN_MS } from '../../src/webhook/worker/workerTypes.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempFolders } from '../support/tempFolders.js';
import { eventInput } from './helpers.js';

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

it("narrows each type's list to that type's oldest event in the batch: an old action event does not widen the donation list", async () => {
  const now = Date.now();
  const paid = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0);
  // Changed half an hour ago (their events long done): on a list since the action's event, not on one since the donations'.
  for (const d of paid.slice(150, 450)) d.updated_at = new Date(now - 30 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const changed = paid.slice(450, 600);
  for (const d of changed) stack.platform.update('donation', d.id, { message: 'changed again' });
  const action = stack.platform.site.action[0];
  if (action === undefined || changed.length < 150) throw new Error('the site is too small for this test');

  const queue = new SqliteQueue(`${cwdFolder()}/queue.db`);
  try {
    // The action's event arrived 40 minutes ago, the donations' now: one batch.
    await queue.enqueueMany([eventInput('Action', action.id, 'actions.update')], now - 40 * 60_000);
    await queue.enqueueMany(
      changed.map((d) => eventInput('Donation', d.id, 'donations.update')),
      now,
    );
    const listedSince = (at: number): number => stack.platform.site.donation.filter((d) => Date.parse(d.updated_at ?? '') > at - CHANGE_MARGIN_MS).length;
    stack.platform.resetCounts();
    const worker = startWorker({ queue, processor: createEngineProcessor(composeConnection(settings)), loop: false, settleMs: 0, log: () => undefined });
    const batch = await worker.runOnce();
    await worker.stop();
    expect(batch).toMatchObject({ events: 151, done: 151, failed: 0 });
    // The donations changed since their own events (less the margin): not the 300 changed before.
    expect(stack.platform.requests.list.donations).toBe(Math.ceil(listedSince(now) / 100));
    expect(Math.ceil(listedSince(now - 40 * 60_000) / 100)).toBeGreaterThan(Math.ceil(listedSince(now) / 100) + 2);
  } finally {
    await queue.close();
  }
});
