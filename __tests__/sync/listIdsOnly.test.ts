/**
 * With SVC_LIST_IDS_ONLY, a scan lists ids and fetches each record by id. A record whose fetch
 * fails must come out as a failure (so it is retried), never silently missing from the run.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempFolders } from '../support/tempFolders.js';

const cwdFolder = tempFolders('svc-ids-');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 3, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 0, newsletterSubscriptions: 0 } });
});
afterAll(async () => {
  await stack.close();
});

it('reports a record whose by-id fetch fails during a scan as failed, and writes the others', async () => {
  const settings = settingsOf(loadRaw({ env: { ...stack.env, SVC_LIST_IDS_ONLY: 'true' }, cwd: cwdFolder() }));
  const source = createPlatformSource(settings.platform, {}, { retries: 1, retryBaseMs: 10, retryMaxMs: 20 });
  const engine = new SyncEngine(source, await SalesforceSink.connect(settings.salesforce), { dryRun: false, force: false, strictParents: false, batchSize: 100 });
  const [bad, ...good] = stack.platform.site.segment;
  stack.platform.faults.next(5, 'html500', { path: `/v1/segments/${bad!.id}` });
  await engine.syncScan(['segment'], {});
  expect(engine.report.outcomeOf(`Segment_${bad!.id}`)).toEqual({ action: 'fail', reason: expect.stringContaining(`/segments/${bad!.id}`) });
  for (const s of good) expect(engine.report.outcomeOf(`Segment_${s.id}`)?.action).toBe('insert');
  expect(stack.salesforce.records('Svc_Segment__c')).toHaveLength(good.length);
});
