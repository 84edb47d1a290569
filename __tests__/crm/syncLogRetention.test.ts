/**
 * Issue 53: in an org shared by several sites (SVC_SITE_KEYS), a connection's retention deletes
 * only its own run records (SvcConnection__c and SvcSiteId__c name it), never another
 * connection's; an org whose log lacks those fields keeps every run record and says why with the
 * fix; a lone connection without site keys deletes every run past its days, as before.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { SyncLog } from '../../src/crm/syncLog.js';
import type { RunSource } from '../../src/crm/syncLogLater.js';
import type { RunEntry, RunOutcomes } from '../../src/model/syncLog.js';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { setup } from './helpers.js';

const RUNS = 'Svc_SyncRun__c';
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString();
const soql = (iso: string): string => iso.replace(/\.\d{3}Z$/, 'Z');
const NO_FAILURES: RunOutcomes = { failures: [], outcomeOf: () => undefined };
const same = (t: string): string => t;

let emu: Emulator;
let sink: SalesforceSink;
beforeEach(async () => {
  ({ emu, sink } = await setup());
});
afterEach(async () => emu.close());

let n = 0;
/** A run record written as the writer writes it, finished `days` ago; its key. */
async function seedRun(days: number, siteKeys: number | undefined, source: RunSource): Promise<string> {
  n++;
  const at = ago(days);
  const entry: RunEntry = {
    key: `sync-${at}-${n}`,
    command: 'sync',
    startedAt: at,
    finishedAt: at,
    outcome: 'Succeeded',
    counts: { inserted: 0, updated: 0, unchanged: 0, failed: 0, deleted: 0 },
    platformRequests: 1,
    salesforceCalls: 1,
    summary: 'seeded',
  };
  const r = await new SyncLog(sink.api, undefined, siteKeys, source).record(entry, NO_FAILURES, same);
  expect(r).toMatchObject({ status: 'written', runWritten: true });
  return entry.key;
}

const runKeys = (): string[] => emu.records(RUNS).map((r) => String(r.RunKey__c));

/** An error record of a site, resolved `days` ago. */
async function seedResolvedError(site: number, key: string, days: number): Promise<void> {
  const failure = { key, object: 'Svc_Donation__c', action: 'fail', error: { code: 'REQUIRED_FIELD_MISSING', message: 'Amount__c missing' } } as unknown as RecordOutcome;
  await new SyncLog(sink.api, undefined, site, { connection: 'x', siteId: String(site) }).record(
    {
      key: `seed-${key}`,
      command: 'sync',
      startedAt: ago(days),
      finishedAt: ago(days),
      outcome: 'Partial',
      counts: { inserted: 0, updated: 0, unchanged: 0, failed: 1, deleted: 0 },
      platformRequests: 0,
      salesforceCalls: 0,
      summary: '',
    },
    { failures: [failure], outcomeOf: () => undefined },
    same,
  );
  emu.editRecord('Svc_SyncError__c', `${site}:${key}`, { Status__c: 'Resolved', ResolvedAt__c: ago(days).replace('Z', '+0000') });
}

describe('run retention in a shared org (SVC_SITE_KEYS)', () => {
  it('each connection deletes only its own old runs, with its own days', async () => {
    await seedRun(60, 6, { connection: 'north', siteId: '6' });
    const northNew = await seedRun(10, 6, { connection: 'north', siteId: '6' });
    const southOld = await seedRun(120, 7, { connection: 'south', siteId: '7' });
    const southMid = await seedRun(60, 7, { connection: 'south', siteId: '7' });

    // North keeps 30 days: its 60-day run goes; south's 60- and 120-day runs are not its to delete.
    const north = await new SyncLog(sink.api, undefined, 6, { connection: 'north', siteId: '6' }).retention(soql(ago(30)), soql(ago(30)));
    expect(north).toEqual({ deleted: 1, failed: 0, calls: 3 });
    expect(runKeys().sort()).toEqual([northNew, southOld, southMid].sort());

    // South keeps 90 days: only its 120-day run goes.
    const south = await new SyncLog(sink.api, undefined, 7, { connection: 'south', siteId: '7' }).retention(soql(ago(90)), soql(ago(90)));
    expect(south).toEqual({ deleted: 1, failed: 0, calls: 3 });
    expect(runKeys().sort()).toEqual([northNew, southMid].sort());
  });

  it('the same connection name on another site, and the implicit connection, are not this one', async () => {
    await seedRun(60, 6, { siteId: '6' });
    const otherSite = await seedRun(60, 7, { siteId: '7' });
    const named = await seedRun(60, 6, { connection: 'north', siteId: '6' });
    const done = await new SyncLog(sink.api, undefined, 6, { siteId: '6' }).retention(soql(ago(30)), soql(ago(30)));
    expect(done).toMatchObject({ deleted: 1 });
    expect(runKeys().sort()).toEqual([otherSite, named].sort());
  });

  it('a name with a quote is sent as one SOQL literal', async () => {
    await seedRun(60, 6, { connection: "o'hare", siteId: '6' });
    const other = await seedRun(60, 6, { connection: 'hare', siteId: '6' });
    const done = await new SyncLog(sink.api, undefined, 6, { connection: "o'hare", siteId: '6' }).retention(soql(ago(30)), soql(ago(30)));
    expect(done).toMatchObject({ deleted: 1 });
    expect(runKeys()).toEqual([other]);
  });

  it("resolved errors are the site's own by their key's prefix", async () => {
    await seedResolvedError(6, 'Donation_1', 40);
    await seedResolvedError(7, 'Donation_1', 40);
    await new SyncLog(sink.api, undefined, 6, { connection: 'north', siteId: '6' }).retention(soql(ago(30)), soql(ago(365)));
    expect(emu.get('Svc_SyncError__c', '6:Donation_1')).toBeUndefined();
    expect(emu.get('Svc_SyncError__c', '7:Donation_1')).toMatchObject({ Status__c: 'Resolved' });
  });

  it('an org whose log lacks the fields: no run record deleted, said with the fix; errors still pruned by prefix', async () => {
    const old = await seedRun(60, 6, { connection: 'north', siteId: '6' });
    await seedResolvedError(6, 'Donation_2', 40);
    emu.removeField(RUNS, 'SvcConnection__c');
    emu.removeField(RUNS, 'SvcSiteId__c');
    const log = new SyncLog(sink.api, undefined, 6, { connection: 'north', siteId: '6' });
    const done = await log.retention(soql(ago(30)), soql(ago(30)));
    expect(done).toEqual({
      deleted: 1,
      failed: 0,
      calls: 3,
      kept: "salesforce log: no run record deleted: the org's Svc_SyncRun__c lacks SvcConnection__c and SvcSiteId__c, so this connection cannot tell its own runs from another site's in this shared org; add them: svc-sync schema --project svc-org && cd svc-org && sf project deploy start",
    });
    expect(runKeys()).toContain(old);
    expect(emu.get('Svc_SyncError__c', '6:Donation_2')).toBeUndefined();
    // Known on this connection now: the runs are not asked for again (one query, for the errors).
    const queries = emu.queries().length;
    const again = await log.retention(soql(ago(30)), soql(ago(30)));
    expect(again).toMatchObject({ deleted: 0, calls: 1, kept: expect.any(String) });
    expect(emu.queries().length - queries).toBe(1);
    expect(runKeys()).toContain(old);
  });
});

describe('run retention of a lone connection without site keys', () => {
  it('deletes every run past its days, whoever wrote it (as before)', async () => {
    await seedRun(60, undefined, {});
    await seedRun(60, undefined, { connection: 'north', siteId: '6' });
    const recent = await seedRun(10, undefined, {});
    const done = await new SyncLog(sink.api).retention(soql(ago(30)), soql(ago(30)));
    expect(done).toEqual({ deleted: 2, failed: 0, calls: 3 });
    expect(runKeys()).toEqual([recent]);
  });

  it('an org whose log lacks the fields deletes as before, and says nothing', async () => {
    emu.removeField(RUNS, 'SvcConnection__c');
    emu.removeField(RUNS, 'SvcSiteId__c');
    await seedRun(60, undefined, {});
    const done = await new SyncLog(sink.api).retention(soql(ago(30)), soql(ago(30)));
    expect(done).toEqual({ deleted: 1, failed: 0, calls: 3 });
  });
});
