/** The mirror checked exact: what a full sync would still write against the site (nothing, when exact). */
import { expect } from '@jest/globals';
import type { Settings } from '../../src/config/settings.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { SYNC_ORDER } from '../../src/model/objects.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';

export async function fullSync(settings: Settings, dryRun: boolean): Promise<SyncEngine> {
  const engine = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), { dryRun, force: false, strictParents: false, batchSize: 500 });
  await engine.syncScan(SYNC_ORDER, {});
  return engine;
}

/** A dry full sync finds nothing to insert, update or fail. */
export async function expectMirrorExact(settings: Settings): Promise<void> {
  const engine = await fullSync(settings, true);
  const drift = [...engine.report.summary].filter(([, c]) => c.inserted + c.updated + c.failed > 0).map(([object, c]) => ({ object, ...c }));
  expect(drift).toEqual([]);
}
