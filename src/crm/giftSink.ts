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
import { giftValueFromOrg, giftValueToOrg, isGiftKeyField } from '../model/giftSiteKeys.js';

const failedWithoutResult = (key: string): UpsertOutcome => ({ key, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });

export class SalesforceGiftSink implements GiftSink {
  /** SVC_SITE_KEYS: the site whose prefix the gift-side keys carry in the org (giftSiteKeys.ts); absent: today's keys. */
  constructor(
    private readonly api: SalesforceApi,
    readonly siteKeys?: number | undefined,
  ) {}

  /** A record with its key fields as the org holds them. */
  private toOrg<R extends CrmRecord>(record: R): R {
    const site = this.siteKeys;
    if (site === undefined) return record;
    const out: CrmRecord = { ...record };
    for (const [f, v] of Object.entries(out)) if (typeof v === 'string' && isGiftKeyField(f)) out[f] = giftValueToOrg(site, f, v);
    return out as R;
  }

  /** An outcome keyed by the org's key, under the key the projection gave. */
  private keyFromOrg(keyField: string, o: UpsertOutcome): UpsertOutcome {
    return this.siteKeys === undefined ? o : { ...o, key: giftValueFromOrg(this.siteKeys, keyField, o.key) };
  }

  async upsertOn(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]> {
    const keys = [...new Set(records.map((r) => String(r[keyField])))];
    if (keys.length === 0) return [];
    const outcomes = await upsertViaCollections(
      this.api,
      object,
      records.map((r) => this.toOrg(r)),
      undefined,
      keyField,
    );
    return keys.map((k) => {
      const o = outcomes.get(this.siteKeys === undefined ? k : giftValueToOrg(this.siteKeys, keyField, k));
      return o ? this.keyFromOrg(keyField, o) : failedWithoutResult(k);
    });
  }

  async insertKeyed(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const outcomes = await insertViaCollections(
      this.api,
      object,
      records.map((r) => this.toOrg(r)),
      keyField,
    );
    return records.map((r) => {
      const k = String(r[keyField]);
      const o = outcomes.get(this.siteKeys === undefined ? k : giftValueToOrg(this.siteKeys, keyField, k));
      return o ? this.keyFromOrg(keyField, o) : failedWithoutResult(k);
    });
  }

  async updateByIds(object: GiftObject, records: Array<CrmRecord & { Id: string }>): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const outcomes = await updateViaCollections(
      this.api,
      object,
      records.map((r) => this.toOrg(r)),
    );
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
