/**
 * The emulator is as strict about the sync log's two objects as about the eight: names, types,
 * lengths, restricted picklists, unique external ids, lookups (by Id or by the run's external id),
 * and it can run without them (an org set up before them) or with a validation rule planted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { setup } from './helpers.js';

interface SaveResult {
  success: boolean;
  id?: string;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
}

let emu: Emulator;
let sink: SalesforceSink;
beforeAll(async () => {
  ({ emu, sink } = await setup());
});
afterAll(async () => emu.close());

const upsert = (object: string, field: string, records: Array<Record<string, unknown>>): Promise<SaveResult[]> =>
  sink.api.call<SaveResult[]>({ method: 'PATCH', url: `/composite/sobjects/${object}/${field}`, body: { allOrNone: false, records: records.map((r) => ({ attributes: { type: object }, ...r })) } });

describe('the sync log objects in the emulator', () => {
  it('upserts runs on RunKey__c and errors on Key__c, an error pointing at its run by the run key', async () => {
    const [run] = await upsert('Svc_SyncRun__c', 'RunKey__c', [{ RunKey__c: 'sync-1', Name: 'sync', Outcome__c: 'Partial', Failed__c: 1 }]);
    expect(run.success).toBe(true);
    const [err] = await upsert('Svc_SyncError__c', 'Key__c', [{ Key__c: 'Donation_1', Name: 'Donation_1', Status__c: 'Open', Attempts__c: 1, LastRun__r: { RunKey__c: 'sync-1' } }]);
    expect(err.success).toBe(true);
    expect(emu.get('Svc_SyncError__c', 'Donation_1')).toMatchObject({ LastRun__c: run.id, Status__c: 'Open', RetryRequested__c: false });
    // Upserting on SvcId__c is refused there: the log objects have no such field.
    await expect(upsert('Svc_SyncError__c', 'SvcId__c', [{ Key__c: 'x' }])).rejects.toMatchObject({ code: 'INVALID_FIELD' });
  });

  it('refuses a value outside a restricted picklist, a key too long, an unknown run key and an unknown field', async () => {
    const results = await upsert('Svc_SyncError__c', 'Key__c', [
      { Key__c: 'Donation_2', Status__c: 'Closed' },
      { Key__c: 'x'.repeat(121) },
      { Key__c: 'Donation_3', LastRun__r: { RunKey__c: 'no-such-run' } },
      { Key__c: 'Donation_4', LastRun__c: 'a0A5g0000000000001AAA'.slice(0, 18) },
    ]);
    expect(results.map((r) => r.errors[0]?.statusCode)).toEqual(['INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', 'STRING_TOO_LONG', 'INVALID_FIELD', 'FIELD_INTEGRITY_EXCEPTION']);
    expect(results[2].errors[0].message).toBe('Foreign key external ID: no-such-run not found for field RunKey__c in entity Svc_SyncRun__c');
    await expect(upsert('Svc_SyncRun__c', 'RunKey__c', [{ RunKey__c: 'r', Outcomes__c: 'Partial' }])).rejects.toMatchObject({ code: 'INVALID_FIELD' });
  });

  it('takes the keys case-insensitively, one record per key', async () => {
    await upsert('Svc_SyncError__c', 'Key__c', [{ Key__c: 'donation_1', Attempts__c: 2 }]);
    expect(emu.records('Svc_SyncError__c').filter((r) => String(r.Key__c).toLowerCase() === 'donation_1')).toHaveLength(1);
  });

  it('answers datetime comparisons, checkboxes and picklists in a query as SOQL does', async () => {
    await upsert('Svc_SyncError__c', 'Key__c', [{ Key__c: 'Donation_9', Status__c: 'Resolved', ResolvedAt__c: '2026-01-01T00:00:00Z', RetryRequested__c: true }]);
    const rows = await sink.api.call<{ records: Array<{ Key__c: string }> }>({
      method: 'GET',
      url: `/query?q=${encodeURIComponent("SELECT Key__c FROM Svc_SyncError__c WHERE Status__c IN ('Resolved') AND ResolvedAt__c < 2026-02-01T00:00:00Z AND RetryRequested__c = true")}`,
    });
    expect(rows.records.map((r) => r.Key__c)).toEqual(['Donation_9']);
  });

  it('plants a validation rule: the records it names fail with its message and field, the others are written', async () => {
    emu.addValidationRule({ object: 'Svc_Segment__c', keys: ['Segment_1'], message: 'Title must not be empty', field: 'Title__c' });
    try {
      const outcomes = await sink.upsert('Svc_Segment__c', [
        { SvcId__c: 'Segment_1', Name: 'one' },
        { SvcId__c: 'Segment_2', Name: 'two' },
      ]);
      expect(outcomes).toEqual([
        { key: 'Segment_1', status: 'failed', error: { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'Title must not be empty', fields: ['Title__c'] } },
        { key: 'Segment_2', status: 'created', id: expect.any(String) },
      ]);
    } finally {
      emu.removeValidationRules();
    }
  });
});

describe('an org without the sync log objects', () => {
  it('answers a query on them INVALID_TYPE and a write NOT_FOUND, as Salesforce does for an object it lacks', async () => {
    const s = await setup({ syncLog: false });
    try {
      await expect(s.sink.api.call({ method: 'GET', url: `/query?q=${encodeURIComponent('SELECT Id FROM Svc_SyncError__c')}` })).rejects.toMatchObject({ code: 'INVALID_TYPE' });
      await expect(s.sink.api.call({ method: 'PATCH', url: '/composite/sobjects/Svc_SyncRun__c/RunKey__c', body: { allOrNone: false, records: [] } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await s.emu.close();
    }
  });
});
