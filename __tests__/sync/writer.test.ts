/**
 * The writer's outcomes for records Salesforce did not hold, over an in-memory CrmSink: an insert
 * carries no field-by-field diff, and an upsert that turns out to update (the record was created
 * meanwhile, or never read) shows every sent value as a change from nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { SCHEMA } from '../../src/mapping/schema.js';
import { recordKey, type CrmRecord, type StoredRecord, type UpsertOutcome } from '../../src/model/crmRecords.js';
import type { CrmSink } from '../../src/model/ports.js';
import { RecordCache } from '../../src/sync/run/cache.js';
import { RunReport } from '../../src/sync/report/report.js';
import { RecordWriter } from '../../src/sync/mirror/writer.js';

/** Holds no records; answers each upsert with the given status. */
function sink(status: 'created' | 'updated'): CrmSink & { reads: number } {
  const s = {
    reads: 0,
    async readByKeys(): Promise<Map<string, StoredRecord>> {
      s.reads++;
      return new Map();
    },
    async upsert(_object: string, records: CrmRecord[]): Promise<UpsertOutcome[]> {
      return records.map((r, i) => ({ key: recordKey(r), status, id: `a0S00000000000${i}AAA` }));
    },
    async readWhere(): Promise<StoredRecord[]> {
      return [];
    },
    calls: () => ({ total: 0, query: 0, collections: 0, bulk: 0, describe: 0, auth: 0 }),
  };
  return s;
}

const segment = { SvcId__c: 'Segment_7', Name: 'Autumn', Title__c: 'Autumn', CreatedAt__c: '2026-01-05T10:00:00Z' };

describe('writing records Salesforce does not hold', () => {
  it('reports a new record as an insert without a diff', async () => {
    const report = new RunReport();
    const crm = sink('created');
    await new RecordWriter(crm, { dryRun: false, force: false }, report, new RecordCache()).write(SCHEMA.segment, [segment], new Map());
    expect(crm.reads).toBe(1);
    expect(report.records).toEqual([{ object: 'Svc_Segment__c', key: 'Segment_7', action: 'insert' }]);
  });

  it('reports an upsert that updated a record it never read with every sent value as a change from nothing', async () => {
    const report = new RunReport();
    const crm = sink('updated');
    const writer = new RecordWriter(crm, { dryRun: false, force: false }, report, new RecordCache());
    writer.knownAbsent(['Segment_7']);
    await writer.write(SCHEMA.segment, [segment], new Map());
    expect(crm.reads).toBe(0);
    expect(report.records).toHaveLength(1);
    expect(report.records[0]?.action).toBe('update');
    expect(report.records[0]?.changes).toEqual({
      SvcId__c: { from: null, to: 'Segment_7' },
      Name: { from: null, to: 'Autumn' },
      Title__c: { from: null, to: 'Autumn' },
      CreatedAt__c: { from: null, to: '2026-01-05T10:00:00.000Z' },
    });
  });
});
