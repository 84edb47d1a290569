/**
 * The Salesforce emulator is a test instrument: where it is more lenient than Salesforce, bugs
 * hide behind it. These pin the behaviours a lenient fake most easily gets wrong.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(): Promise<SalesforceSink> {
  const s = await setup();
  emu = s.emu;
  return s.sink;
}

const codeOf = (o: { status: string; error?: { code: string } }): string => (o.status === 'failed' && o.error ? o.error.code : o.status);

describe('Salesforce emulator strictness', () => {
  it('fails a Bulk row with an impossible time-zone offset by itself, and keeps its good neighbour', async () => {
    const s = await setup({}, { bulkThreshold: 1 });
    emu = s.emu;
    const out = await s.sink.upsert('Svc_Segment__c', [
      { SvcId__c: 'Segment_1', EndDate__c: '2024-01-01T00:00:00+25:00' },
      { SvcId__c: 'Segment_2', EndDate__c: '2024-01-01T00:00:00+01:00' },
    ]);
    expect(s.sink.calls().bulk).toBeGreaterThan(0);
    expect(out.map(codeOf)).toEqual(['INVALID_TYPE_ON_FIELD_IN_RECORD', 'created']);
    expect(emu.get('Svc_Segment__c', 'Segment_2')?.EndDate__c).toBe('2023-12-31T23:00:00.000+0000');
  });

  it('checks number ranges by magnitude, exponent notation included', async () => {
    const sink = await start();
    const out = await sink.upsert('Svc_Segment__c', [
      { SvcId__c: 'Segment_1', TargetAmount__c: 1e21 },
      { SvcId__c: 'Segment_2', TotalAmount__c: 100_000_000 },
      { SvcId__c: 'Segment_3', TotalAmount__c: 99_999_999.99 },
    ]);
    expect(out.map(codeOf)).toEqual(['NUMBER_OUTSIDE_VALID_RANGE', 'NUMBER_OUTSIDE_VALID_RANGE', 'created']);
  });

  it('matches external ids case-insensitively, as SvcId__c is deployed', async () => {
    const sink = await start();
    const [first] = await sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_1', Title__c: 'a' }]);
    const [second] = await sink.upsert('Svc_Segment__c', [{ SvcId__c: 'SEGMENT_1', Title__c: 'b' }]);
    expect(first.status).toBe('created');
    expect(second.status).toBe('updated');
    expect(emu!.records('Svc_Segment__c')).toHaveLength(1);
    const dup = await sink.upsert('Svc_Segment__c', [
      { SvcId__c: 'Segment_9', Title__c: 'x' },
      { SvcId__c: 'segment_9', Title__c: 'y' },
    ]);
    expect(dup.map(codeOf)).toEqual(['DUPLICATE_EXTERNAL_ID', 'DUPLICATE_EXTERNAL_ID']);
  });

  it('stores an empty text as null and gives unsent checkboxes their defaults', async () => {
    const sink = await start();
    await sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_1', Title__c: '' }]);
    await sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_1', Name: 'P' }]);
    const seg = await sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Id', 'SvcId__c', 'Title__c']);
    expect(seg.get('Segment_1')?.Title__c).toBeNull();
    const proj = await sink.readByKeys('Svc_Project__c', ['Project_1'], ['Id', 'SvcId__c', 'Visible__c', 'Closed__c']);
    expect(proj.get('Project_1')).toMatchObject({ Visible__c: true, Closed__c: false });
  });
});

describe('Salesforce emulator Bulk API 2.0 strictness', () => {
  async function runJob(lineEnding: 'LF' | 'CRLF', csv: string): Promise<{ state: string; errorMessage?: string }> {
    const s = await setup();
    emu = s.emu;
    const base = `${emu.url}/services/data/v${emu.apiVersion}/jobs/ingest`;
    const headers = { Authorization: `Bearer ${emu.accessToken}`, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(base, { method: 'POST', headers, body: JSON.stringify({ object: 'Svc_Segment__c', operation: 'upsert', externalIdFieldName: 'SvcId__c', contentType: 'CSV', lineEnding }) })
    ).json()) as { id: string };
    await fetch(`${base}/${created.id}/batches`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'text/csv' }, body: csv });
    await fetch(`${base}/${created.id}`, { method: 'PATCH', headers, body: JSON.stringify({ state: 'UploadComplete' }) });
    let job: { state: string; errorMessage?: string } = { state: 'Open' };
    for (let i = 0; i < 10 && !['JobComplete', 'Failed'].includes(job.state); i++) {
      job = (await (await fetch(`${base}/${created.id}`, { headers })).json()) as typeof job;
    }
    return job;
  }

  it('fails a job whose data does not use the declared line ending', async () => {
    const job = await runJob('LF', 'SvcId__c,Title__c\r\nSegment_1,a\r\n');
    expect(job.state).toBe('Failed');
    expect(job.errorMessage).toMatch(/LineEnding is invalid on user data. Current LineEnding setting is LF/);
  });

  it('fails a job whose header names a column twice, and accepts a clean one', async () => {
    const bad = await runJob('LF', 'SvcId__c,Title__c,Title__c\nSegment_1,a,b\n');
    expect(bad.state).toBe('Failed');
    expect(bad.errorMessage).toMatch(/Duplicate field name in the header: Title__c/);
    await emu?.close();
    const good = await runJob('LF', 'SvcId__c,Title__c\nSegment_1,"two\r\nlines"\n');
    expect(good.state).toBe('JobComplete');
    expect(emu!.get('Svc_Segment__c', 'Segment_1')?.Title__c).toBe('two\r\nlines');
  });
});

describe('Salesforce emulator: field-level security of the connected user', () => {
  it('refuses a read-only field per record with INVALID_FIELD_FOR_INSERT_UPDATE, through Collections and Bulk alike', async () => {
    for (const bulkThreshold of [2000, 1]) {
      const s = await setup({}, { bulkThreshold });
      emu = s.emu;
      emu.setFieldAccess('Svc_Segment__c', 'Title__c', 'read');
      emu.setFieldAccess('Svc_Segment__c', 'EndDate__c', 'read');
      const out = await s.sink.upsert('Svc_Segment__c', [
        { SvcId__c: 'Segment_1', Title__c: 'a', EndDate__c: '2024-01-01T00:00:00Z' },
        { SvcId__c: 'Segment_2', TargetAmount__c: 10 },
      ]);
      expect(out.map(codeOf)).toEqual(['INVALID_FIELD_FOR_INSERT_UPDATE', 'created']);
      const failed = out[0];
      expect(failed.status === 'failed' && failed.error?.message).toMatch(
        /^Unable to create\/update fields: Title__c, EndDate__c\. Please check the security settings of this field and verify that it is read\/write for your profile or permission set\./,
      );
      // Reading it is still allowed; describe says the user cannot write it.
      expect(await s.sink.describe('Svc_Segment__c').then((d) => d?.fields.find((f) => f.name === 'Title__c'))).toMatchObject({ createable: false, updateable: false });
      await emu.close();
      emu = undefined;
    }
  });

  it('hides every optional custom field from a user without field-level security, as Salesforce does', async () => {
    const s = await setup({ fieldAccess: 'none' });
    emu = s.emu;
    const d = await s.sink.describe('Svc_Segment__c');
    expect(d?.fields.map((f) => f.name).sort()).toEqual(['Id', 'Name', 'SvcId__c']);
    expect(d?.fields.find((f) => f.name === 'SvcId__c')).toMatchObject({ createable: true, updateable: true });
    // An upsert naming a hidden field is refused whole, as an unknown column.
    const out = await s.sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_1', Title__c: 'a' }]);
    expect(out.map(codeOf)).toEqual(['INVALID_FIELD']);
    expect(emu.records('Svc_Segment__c')).toEqual([]);
    // The required key takes no field-level security at all.
    expect(() => emu!.setFieldAccess('Svc_Segment__c', 'SvcId__c', 'none')).toThrow(/takes no field-level security/);
  });
});
