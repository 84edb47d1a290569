/**
 * The Salesforce side of the gift projection (GiftSink): the Nonprofit Cloud objects written by
 * their own key fields in sObject Collections of 200, updates by Id, deletes and SOQL reads, on
 * the mirror's connection, so its calls count in the run's figures and its allowance guard.
 */
import type { CrmCallCounts, CrmRecord, DeleteOutcome, UpsertOutcome } from '../model/crmRecords.js';
import type { GiftObject } from '../model/objects.js';
import type { GiftSink } from '../model/ports.js';
import type { SalesforceApi } from './api.js';
import { insertViaCollections, updateViaCollections, upsertViaCollections } from './collections.js';
import { deleteViaCollections } from './delete.js';
import { queryAll } from './query.js';

const failedWithoutResult = (key: string): UpsertOutcome => ({ key, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });

export class SalesforceGiftSink implements GiftSink {
  constructor(private readonly api: SalesforceApi) {}

  async upsertOn(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]> {
    const keys = [...new Set(records.map((r) => String(r[keyField])))];
    if (keys.length === 0) return [];
    const outcomes = await upsertViaCollections(this.api, object, records, undefined, keyField);
    return keys.map((k) => outcomes.get(k) ?? failedWithoutResult(k));
  }

  async insertKeyed(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const outcomes = await insertViaCollections(this.api, object, records, keyField);
    return records.map((r) => outcomes.get(String(r[keyField])) ?? failedWithoutResult(String(r[keyField])));
  }

  async updateByIds(object: GiftObject, records: Array<CrmRecord & { Id: string }>): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const outcomes = await updateViaCollections(this.api, object, records);
    return records.map((r) => outcomes.get(r.Id) ?? failedWithoutResult(r.Id));
  }

  async deleteByIds(_object: GiftObject, ids: string[]): Promise<DeleteOutcome[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const outcomes = await deleteViaCollections(this.api, unique);
    return unique.map((id) => outcomes.get(id) ?? { id, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });
  }

  query(soql: string, withDeleted = false): Promise<CrmRecord[]> {
    return queryAll(this.api, soql, withDeleted ? 'queryAll' : 'query');
  }

  calls(): CrmCallCounts {
    return this.api.calls();
  }
}
