/**
 * SITES.md decision 5: a run record names the connection and the site that ran it, an error record
 * its site; an org whose log was set up before those fields is written without them (the run is
 * not failed over its log), said once with the fix, and not asked again on the same connection.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { SyncLog } from '../../src/crm/syncLog.js';
import type { RunEntry, RunOutcomes } from '../../src/model/syncLog.js';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { setup } from './helpers.js';

let emu: Emulator;
let sink: SalesforceSink;
beforeAll(async () => {
  ({ emu, sink } = await setup());
});
afterAll(async () => emu.close());

let n = 0;
const run = (): RunEntry => {
  n++;
  const at = `2026-12-07T10:0${n}:00.000Z`;
  return {
    key: `sync-${at}-${n}`,
    command: 'sync',
    startedAt: at,
    finishedAt: at,
    outcome: 'Partial',
    counts: { inserted: 0, updated: 0, unchanged: 0, failed: 1, deleted: 0 },
    platformRequests: 1,
    salesforceCalls: 2,
    summary: 'one failed',
  };
};
const failing = (key: string): RunOutcomes => {
  const failure = { key, object: 'Svc_Donation__c', action: 'fail', error: { code: 'REQUIRED_FIELD_MISSING', message: 'Amount__c missing' } } as unknown as RecordOutcome;
  return { failures: [failure], outcomeOf: () => undefined };
};
const same = (t: string): string => t;

describe('run and error records name their connection and site', () => {
  it('writes SvcConnection__c and SvcSiteId__c on the run, SvcSiteId__c on the error', async () => {
    const entry = run();
    const r = await new SyncLog(sink.api, undefined, 6, { connection: 'north', siteId: '6' }).record(entry, failing('Donation_5'), same);
    expect(r).toMatchObject({ status: 'written', runWritten: true, failedErrors: 0 });
    expect(r).not.toHaveProperty('lacking');
    expect(emu.records('Svc_SyncRun__c').find((x) => x.RunKey__c === entry.key)).toMatchObject({ SvcConnection__c: 'north', SvcSiteId__c: '6' });
    expect(emu.get('Svc_SyncError__c', '6:Donation_5')).toMatchObject({ SvcSiteId__c: '6', Status__c: 'Open' });
  });

  it('an implicit connection without a site id writes neither field', async () => {
    const entry = run();
    await new SyncLog(sink.api).record(entry, failing('Donation_6'), same);
    const stored = emu.records('Svc_SyncRun__c').find((x) => x.RunKey__c === entry.key);
    expect(stored?.SvcConnection__c ?? null).toBeNull();
    expect(stored?.SvcSiteId__c ?? null).toBeNull();
  });

  it('an org set up before the fields: written without them, said once with the fix, one extra call per object once', async () => {
    emu.removeField('Svc_SyncRun__c', 'SvcConnection__c');
    emu.removeField('Svc_SyncRun__c', 'SvcSiteId__c');
    emu.removeField('Svc_SyncError__c', 'SvcSiteId__c');
    const first = run();
    const log = new SyncLog(sink.api, undefined, 7, { connection: 'south', siteId: '7' });
    const r = await log.record(first, failing('Donation_8'), same);
    expect(r).toMatchObject({ status: 'written', runWritten: true, failedErrors: 0 });
    const line = (r as { lacking?: string }).lacking;
    expect(line).toBe(
      'the org lacks Svc_SyncRun__c.SvcConnection__c, Svc_SyncRun__c.SvcSiteId__c and Svc_SyncError__c.SvcSiteId__c (its sync log was set up before they were added): written without them; add them: svc-sync schema --project svc-org && cd svc-org && sf project deploy start',
    );
    expect(emu.records('Svc_SyncRun__c').find((x) => x.RunKey__c === first.key)).toMatchObject({ Outcome__c: 'Partial' });
    expect(emu.get('Svc_SyncError__c', '7:Donation_8')).toMatchObject({ Status__c: 'Open' });
    // The next run on the same connection (a serve batch) knows it: no refused call, nothing said again.
    const calls = sink.api.calls().total;
    const again = await new SyncLog(sink.api, undefined, 7, { connection: 'south', siteId: '7' }).record(run(), failing('Donation_9'), same);
    expect(again).toMatchObject({ status: 'written', runWritten: true, failedErrors: 0 });
    expect(again).not.toHaveProperty('lacking');
    // One read of the open errors, the run, the errors.
    expect(sink.api.calls().total - calls).toBe(3);
  });
});
