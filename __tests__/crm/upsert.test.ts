import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { ApiLimitError } from '../../src/model/errors.js';
import type { CrmRecord } from '../../src/model/crmRecords.js';
import { segments, setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(...args: Parameters<typeof setup>): Promise<SalesforceSink> {
  const s = await setup(...args);
  emu = s.emu;
  return s.sink;
}

describe('Collections upsert', () => {
  it('upserts 450 records in 3 collection calls, then reports updates on a second run', async () => {
    const sink = await start();
    const first = await sink.upsert('Svc_Segment__c', segments(450));
    expect(first).toHaveLength(450);
    expect(first.every((o) => o.status === 'created')).toBe(true);
    expect(emu!.calls().collections).toBe(3);
    expect(sink.calls().collections).toBe(3);
    expect(emu!.records('Svc_Segment__c')).toHaveLength(450);

    const second = await sink.upsert(
      'Svc_Segment__c',
      segments(450, 1, () => ({ Title__c: 'renamed' })),
    );
    expect(second.every((o) => o.status === 'updated')).toBe(true);
    expect(second.map((o) => (o.status !== 'failed' ? o.id : ''))).toEqual(first.map((o) => (o.status !== 'failed' ? o.id : '')));
    expect(emu!.get('Svc_Segment__c', 'Segment_7')?.Title__c).toBe('renamed');
    expect(emu!.calls().collections).toBe(6);
  });

  it('isolates per-record failures and reports Salesforce code and message', async () => {
    const sink = await start();
    const records = segments(5);
    records[1].Title__c = 'x'.repeat(256);
    records[3].TargetAmount__c = 1e19;
    const out = await sink.upsert('Svc_Segment__c', records);
    expect(out.map((o) => o.status)).toEqual(['created', 'failed', 'created', 'failed', 'created']);
    const codes = out.map((o) => (o.status === 'failed' ? o.error.code : null));
    expect(codes).toEqual([null, 'STRING_TOO_LONG', null, 'NUMBER_OUTSIDE_VALID_RANGE', null]);
    const tooLong = out[1];
    expect(tooLong.status === 'failed' && tooLong.error.message).toContain('max length=255');
    expect(
      emu!
        .records('Svc_Segment__c')
        .map((r) => r.SvcId__c)
        .sort(),
    ).toEqual(['Segment_1', 'Segment_3', 'Segment_5']);
  });

  it.each([
    ['an unknown field', (r: CrmRecord): void => void (r.Bogus__c = 'nope'), 'INVALID_FIELD'],
    ['a date-time Salesforce cannot read', (r: CrmRecord): void => void (r.EndDate__c = '2024-13-45T00:00:00Z'), 'JSON_PARSER_ERROR'],
  ])('reports every record of a call refused whole for %s, and stores none', async (_label, spoil, code) => {
    const sink = await start();
    const records = segments(4);
    spoil(records[2]);
    const out = await sink.upsert('Svc_Segment__c', records);
    expect(out.map((o) => (o.status === 'failed' ? o.error.code : o.status))).toEqual([code, code, code, code]);
    expect(emu!.records('Svc_Segment__c')).toHaveLength(0);
  });

  it('rejects lookups of the wrong object or unknown Ids per record', async () => {
    const sink = await start();
    const [seg] = await sink.upsert('Svc_Segment__c', segments(1));
    const [proj] = await sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_1', Name: 'P', Visible__c: true, Svc_Segment__c: seg.status === 'created' ? seg.id : '' }]);
    expect(proj.status).toBe('created');
    const projId = proj.status === 'created' ? proj.id : '';
    const out = await sink.upsert('Svc_Team__c', [
      { SvcId__c: 'Team_1', Svc_Segment__c: projId },
      { SvcId__c: 'Team_2', Svc_Project__c: 'not-an-id' },
      { SvcId__c: 'Team_3', Svc_Project__c: projId.slice(0, 5) + 'ZZZZZZZZZZZZZ' },
      { SvcId__c: 'Team_4', Svc_Project__c: projId },
    ]);
    expect(out.map((o) => (o.status === 'failed' ? o.error.code : o.status))).toEqual(['FIELD_INTEGRITY_EXCEPTION', 'MALFORMED_ID', 'INVALID_CROSS_REFERENCE_KEY', 'created']);
  });

  it('merges records of one call with the same key (last wins) and sends them once', async () => {
    const sink = await start();
    const out = await sink.upsert('Svc_Segment__c', [
      { SvcId__c: 'Segment_1', Title__c: 'first', TargetAmount__c: 5 },
      { SvcId__c: 'Segment_2', Title__c: 'other' },
      { SvcId__c: 'Segment_1', Title__c: 'last' },
    ]);
    expect(out.map((o) => o.key)).toEqual(['Segment_1', 'Segment_2']);
    expect(emu!.get('Svc_Segment__c', 'Segment_1')).toMatchObject({ Title__c: 'last', TargetAmount__c: 5 });
    expect(emu!.calls().collections).toBe(1);
  });

  it('upserts a key with a dot through Collections, even alone', async () => {
    const sink = await start();
    const [a] = await sink.upsert('Svc_Action__c', [{ SvcId__c: 'Action_1', FirstName__c: 'A' }]);
    const actionId = a.status === 'created' ? a.id : '';
    const [q] = await sink.upsert('Svc_ActionQuestion__c', [{ SvcId__c: 'ActionQuestion_1.2', QuestionSvcId__c: 'Question_2', Answer__c: 'yes', Svc_Action__c: actionId }]);
    expect(q.status).toBe('created');
    expect(emu!.get('Svc_ActionQuestion__c', 'ActionQuestion_1.2')?.Svc_Action__c).toBe(actionId);
    expect(emu!.calls().collections).toBe(2);
  });

  it('retries lock errors for the affected records only', async () => {
    const sink = await start();
    emu!.failLocks({ next: 3 });
    const out = await sink.upsert('Svc_Segment__c', segments(10));
    expect(out.every((o) => o.status === 'created')).toBe(true);
    // one call for 10 records, one retry call carrying only the 3 locked ones
    expect(emu!.calls().collections).toBe(2);
    expect(emu!.records('Svc_Segment__c')).toHaveLength(10);
  });

  it('retries a fraction of lock errors and gives up after the attempts with the lock error', async () => {
    const sink = await start();
    emu!.failLocks({ fraction: 0.2 });
    const out = await sink.upsert('Svc_Segment__c', segments(300));
    const failed = out.filter((o) => o.status === 'failed');
    // 0.2^4 of 300: almost always zero; any leftover must carry the lock code
    expect(failed.every((o) => o.status === 'failed' && o.error.code === 'UNABLE_TO_LOCK_ROW')).toBe(true);
    expect(out.length - failed.length).toBe(emu!.records('Svc_Segment__c').length);
    expect(emu!.calls().collections).toBeGreaterThan(2);
  });

  it('retries a 503 and turns a DUPLICATE_VALUE race into an update', async () => {
    const sink = await start();
    emu!.failUnavailable(2);
    emu!.raceDuplicates(1);
    const out = await sink.upsert('Svc_Segment__c', segments(3));
    expect(out.map((o) => o.status)).toEqual(['updated', 'created', 'created']);
    expect(emu!.calls().collections).toBe(4); // 2 x 503, 1 answered, 1 retry of the raced record
  });

  it('backs off on the concurrent request limit but stops on the daily one', async () => {
    const sink = await start({ dailyLimit: 1000 });
    emu!.failConcurrentLimit(1);
    expect((await sink.upsert('Svc_Segment__c', segments(2))).every((o) => o.status === 'created')).toBe(true);
    emu!.setApiUsage(1000);
    await expect(sink.upsert('Svc_Segment__c', segments(2, 3))).rejects.toBeInstanceOf(ApiLimitError);
  });

  it('stops before the configured share of the daily allowance is used', async () => {
    const sink = await start({ dailyLimit: 100 }, { maxApiUsage: 0.5 });
    emu!.setApiUsage(49);
    await sink.upsert('Svc_Segment__c', segments(1)); // usage is now 50 of 100
    expect(sink.apiUsage()).toEqual({ used: 50, limit: 100 });
    const before = emu!.calls().total;
    await expect(sink.upsert('Svc_Segment__c', segments(1, 2))).rejects.toThrow(/50 of the org's 100 daily API requests/);
    expect(emu!.calls().total).toBe(before);
  });
});

describe('Bulk API 2.0 upsert', () => {
  it('upserts 5,000 records in one job, then reports updates', async () => {
    const sink = await start();
    const first = await sink.upsert('Svc_Segment__c', segments(5000));
    expect(first.filter((o) => o.status === 'created')).toHaveLength(5000);
    expect(emu!.bulkJobs()).toHaveLength(1);
    expect(emu!.bulkJobs()[0]).toMatchObject({ state: 'JobComplete', rows: 5000 });
    expect(emu!.calls().collections).toBe(0);
    const second = await sink.upsert(
      'Svc_Segment__c',
      segments(5000, 1, (i) => ({ Title__c: i % 2 ? null : 'even' })),
    );
    expect(second.every((o) => o.status === 'updated')).toBe(true);
    // #N/A cleared the odd titles; the even ones changed
    expect(emu!.get('Svc_Segment__c', 'Segment_1')?.Title__c).toBeNull();
    expect(emu!.get('Svc_Segment__c', 'Segment_2')?.Title__c).toBe('even');
    // results come back in reverse: they were matched by key, not by position
    expect(second[0].status !== 'failed' && second[0].id).toBe(emu!.get('Svc_Segment__c', 'Segment_1')?.Id);
  });

  it('gives every row the same columns and keeps absent fields unchanged', async () => {
    const sink = await start({}, { bulkThreshold: 2 });
    await sink.upsert(
      'Svc_Segment__c',
      segments(3, 1, () => ({ URL__c: 'https://x.example/a,b;c|d' })),
    );
    await sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_1', Title__c: 'only title' }, { SvcId__c: 'Segment_2', URL__c: 'new "url"' }, { SvcId__c: 'Segment_3' }]);
    expect(emu!.get('Svc_Segment__c', 'Segment_1')).toMatchObject({ Title__c: 'only title', URL__c: 'https://x.example/a,b;c|d' });
    expect(emu!.get('Svc_Segment__c', 'Segment_2')).toMatchObject({ Title__c: 'Title 2', URL__c: 'new "url"' });
  });

  it('reports failed rows of a complete job and retries locked rows', async () => {
    const sink = await start({}, { bulkThreshold: 10 });
    const records = segments(50);
    records[5].Title__c = 'y'.repeat(300);
    emu!.failLocks({ next: 4 });
    const out = await sink.upsert('Svc_Segment__c', records);
    const failed = out.filter((o) => o.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ key: 'Segment_6', error: { code: 'STRING_TOO_LONG' } });
    expect(emu!.records('Svc_Segment__c')).toHaveLength(49);
    expect(emu!.calls().collections).toBe(1); // the 4 locked rows, resent through Collections
  });

  it('fails every record of a job Salesforce fails, with its reason', async () => {
    const sink = await start({}, { bulkThreshold: 1 });
    const out = await sink.upsert(
      'Svc_Segment__c',
      segments(3, 1, () => ({ Nope__c: 'x' })),
    );
    expect(out.every((o) => o.status === 'failed' && o.error.code === 'BULK_JOB_FAILED' && /Nope__c/.test(o.error.message))).toBe(true);
  });

  it('reports a job still running at the poll timeout as pending, not failed by Salesforce', async () => {
    const sink = await start({ bulkPollsBeforeComplete: 1000 }, { bulkThreshold: 1, bulk: { pollIntervalMs: 5, maxPollIntervalMs: 5, pollTimeoutMs: 60 } });
    const out = await sink.upsert('Svc_Segment__c', segments(2));
    expect(out.every((o) => o.status === 'failed' && o.error.code === 'BULK_JOB_PENDING')).toBe(true);
  });
});
