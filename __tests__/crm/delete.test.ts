/**
 * Deleting by Id through the real jsforce connection against the emulator: sObject Collections
 * (200 Ids a call, per-record results) and a Bulk API 2.0 delete job above the bulk threshold;
 * the emulator refuses what Salesforce refuses. And the key walk an audit uses.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { bulkQueryPages } from '../../src/crm/bulkQuery.js';
import { FAST, segments, setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function seeded(n: number, bulkThreshold = 2000): Promise<{ sink: SalesforceSink; emu: Emulator; ids: string[] }> {
  const s = await setup({}, { bulkThreshold: Math.max(2000, n) });
  emu = s.emu;
  const out = await s.sink.upsert('Svc_Segment__c', segments(n));
  const ids = out.map((o) => (o.status === 'failed' ? '' : o.id));
  // Seeded through Collections; the deletes use the threshold under test, on the same session.
  const sink = new SalesforceSink(s.sink.session, { bulkThreshold, maxApiUsage: 0.9, ...FAST });
  return { sink, emu: s.emu, ids };
}

const status = (o: { status: string; error?: { code: string } }): string => (o.status === 'failed' && o.error ? o.error.code : o.status);

describe('delete by Id', () => {
  it('Collections: 450 records in three calls, each answered per record, in order', async () => {
    const { sink, emu: e, ids } = await seeded(450);
    e.resetCalls();
    const out = await sink.deleteByIds('Svc_Segment__c', ids);
    expect(out.map(status)).toEqual(ids.map(() => 'deleted'));
    expect(e.calls().collections).toBe(3);
    expect(e.records('Svc_Segment__c')).toHaveLength(0);
  });

  it('Collections: a record already gone counts as deleted; an Id of no record fails alone', async () => {
    const { sink, emu: e, ids } = await seeded(3);
    expect(e.deleteRecord('Svc_Segment__c', 'Segment_2')).toBe(true);
    const unknown = 'a0A5g00000ZZZZZAAA';
    const out = await sink.deleteByIds('Svc_Segment__c', [ids[0], ids[1], unknown]);
    expect(out.map(status)).toEqual(['deleted', 'deleted', 'INVALID_CROSS_REFERENCE_KEY']);
    expect(e.records('Svc_Segment__c').map((r) => r.SvcId__c)).toEqual(['Segment_3']);
  });

  it('the emulator refuses more than 200 Ids and answers a malformed Id per record, as Salesforce does', async () => {
    const { emu: e, ids } = await seeded(2);
    const del = (query: string): Promise<Response> =>
      fetch(`${e.url}/services/data/v${e.apiVersion}/composite/sobjects?${query}`, { method: 'DELETE', headers: { Authorization: `Bearer ${e.accessToken}` } });
    const tooMany = await del(`ids=${Array.from({ length: 201 }, () => ids[0]).join(',')}`);
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toEqual([expect.objectContaining({ errorCode: 'EXCEEDED_ID_LIMIT' })]);
    expect((await del('')).status).toBe(400);
    const mixed = await del(`ids=${ids[0]},not-an-id&allOrNone=false`);
    expect(mixed.status).toBe(200);
    expect(await mixed.json()).toEqual([
      { id: ids[0], success: true, errors: [] },
      { id: null, success: false, errors: [expect.objectContaining({ statusCode: 'MALFORMED_ID' })] },
    ]);
    // allOrNone: one bad Id rolls the call back.
    const all = await del(`ids=${ids[1]},not-an-id&allOrNone=true`);
    expect(((await all.json()) as Array<{ success: boolean }>).map((r) => r.success)).toEqual([false, false]);
    expect(e.get('Svc_Segment__c', 'Segment_2')).toBeDefined();
  });

  it('deleting a parent clears the lookups pointing at it, as a lookup field does', async () => {
    const s = await setup();
    emu = s.emu;
    const [seg] = await s.sink.upsert('Svc_Segment__c', segments(1));
    const segId = seg.status === 'failed' ? '' : seg.id;
    await s.sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_1', Name: 'P', Svc_Segment__c: segId }]);
    await s.sink.deleteByIds('Svc_Segment__c', [segId]);
    expect(emu.get('Svc_Project__c', 'Project_1')?.Svc_Segment__c).toBeNull();
  });

  it('Bulk API 2.0 above the threshold: one delete job, outcomes matched by Id', async () => {
    const { sink, emu: e, ids } = await seeded(30, 10);
    e.resetCalls();
    const unknown = 'a0A5g00000ZZZZZAAA';
    const out = await sink.deleteByIds('Svc_Segment__c', [...ids, unknown]);
    expect(out.slice(0, 30).map(status)).toEqual(ids.map(() => 'deleted'));
    expect(status(out[30])).toBe('INVALID_CROSS_REFERENCE_KEY');
    expect(e.calls().collections).toBe(0);
    expect(e.bulkJobs()).toEqual([expect.objectContaining({ object: 'Svc_Segment__c', state: 'JobComplete', rows: 31 })]);
    expect(e.records('Svc_Segment__c')).toHaveLength(0);
  });

  it('scanKeys walks every record a page (2,000) at a time', async () => {
    const { sink, emu: e } = await seeded(4500);
    e.resetCalls();
    const pages: number[] = [];
    for await (const rows of sink.scanKeys('Svc_Segment__c')) pages.push(rows.length);
    expect(pages).toEqual([2000, 2000, 500]);
    expect(e.calls().query).toBe(3);
  });

  it('scanKeys above the bulk threshold: one Bulk API 2.0 query job, pages chained by Sforce-Locator', async () => {
    const { sink, emu: e } = await seeded(4500);
    e.resetCalls();
    const keys: string[] = [];
    for await (const rows of sink.scanKeys('Svc_Segment__c', [], 4500)) keys.push(...rows.map((r) => r.SvcId__c));
    expect(keys.sort()).toEqual(
      e
        .records('Svc_Segment__c')
        .map((r) => r.SvcId__c)
        .sort(),
    );
    expect(e.calls().query).toBe(0);
    // create, two polls (the emulator answers InProgress once), one results page of up to 10,000 rows.
    expect(e.calls().bulk).toBe(4);
    expect(sink.calls().bulk).toBe(4);

    const pages: number[] = [];
    for await (const rows of bulkQueryPages(sink.api, 'SELECT Id, SvcId__c, Title__c FROM Svc_Segment__c', { pollIntervalMs: 1, maxPollIntervalMs: 5, pollTimeoutMs: 5000, maxJobBytes: 1e8 }, 2000)) {
      pages.push(rows.length);
      expect(Object.keys(rows[0] ?? {}).sort()).toEqual(['Id', 'SvcId__c', 'Title__c']);
    }
    expect(pages).toEqual([2000, 2000, 500]);
  });

  it('the emulator refuses a bad locator, results before completion and unknown fields in a query job', async () => {
    const { emu: e } = await seeded(3);
    const call = (method: string, p: string, body?: unknown): Promise<Response> =>
      fetch(`${e.url}/services/data/v${e.apiVersion}/jobs/query${p}`, {
        method,
        headers: { Authorization: `Bearer ${e.accessToken}`, 'Content-Type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    expect((await call('POST', '', { operation: 'query', query: 'SELECT Nope__c FROM Svc_Segment__c' })).status).toBe(400);
    const job = (await (await call('POST', '', { operation: 'query', query: 'SELECT Id FROM Svc_Segment__c' })).json()) as { id: string };
    expect((await call('GET', `/${job.id}/results`)).status).toBe(400);
    await call('GET', `/${job.id}`);
    await call('GET', `/${job.id}`);
    const first = await call('GET', `/${job.id}/results?maxRecords=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('sforce-locator')).not.toBe('null');
    expect((await call('GET', `/${job.id}/results?locator=garbage!`)).status).toBe(400);
    const last = await call('GET', `/${job.id}/results?maxRecords=2&locator=${first.headers.get('sforce-locator') ?? ''}`);
    expect(last.headers.get('sforce-locator')).toBe('null');
  });
});
