/**
 * The Salesforce side of the engine (CrmSink): batched upserts on SvcId__c (Collections below
 * the bulk threshold, Bulk API 2.0 above it), batched reads by key and by parent lookup, and the
 * calls made, by kind.
 */
import type { SObjectName } from '../model/objects.js';
import { KEY_FIELD } from '../model/refs.js';
import type { SalesforceSettings } from '../config/settings.js';
import { sleep } from '../model/sleep.js';
import { SALESFORCE_RETRY, SalesforceApi, backoff, type RetryPolicy } from './api.js';
import { DEFAULT_BULK, updateViaBulk, upsertViaBulk, type BulkOptions } from './bulk.js';
import { updateViaCollections, upsertViaCollections } from './collections.js';
import { connectSalesforce, type SalesforceSession } from './connection.js';
import { isTransientCode, notSalesforceApi } from './errors.js';
import { bulkQueryPages } from './bulkQuery.js';
import { deleteViaBulk, deleteViaCollections } from './delete.js';
import { queryAll, queryPages, queryUrlPrefix } from './query.js';
import { DEFAULT_MAX_URL_LENGTH, assertIdentifier, buildInQueries, soqlLiteral } from './soql.js';
import { SCHEMAS } from '../mapping/schema.js';
import type { CrmCallCounts, CrmRecord, DeleteOutcome, StoredRecord, UpsertOutcome } from '../model/crmRecords.js';
import type { KeySink } from '../model/ports.js';
import type { WriteStep } from '../model/outcomes.js';
import { describeObject, type ObjectDescription } from './describe.js';
import { SalesforceGiftSink } from './giftSink.js';
import { SiteKeyCodec } from './siteKeyCodec.js';

/** The org a run acts on, as its login found it. */
export interface OrgIdentity {
  instanceUrl: string;
  orgId?: string;
}

export interface SinkOptions {
  bulkThreshold: number;
  maxApiUsage: number;
  retry?: RetryPolicy;
  bulk?: Partial<BulkOptions>;
  maxUrlLength?: number;
  /** SVC_SITE_KEYS: the site whose qualified keys this sink writes and reads (siteKeyCodec.ts). */
  siteKeys?: number | undefined;
  /** The deployment's state folder: the org's daily allowance readings are shared there (orgAllowance.ts). */
  allowanceDir?: string | undefined;
}

/** Bare keys counted per object by an audit with site keys: one query each, enough to say how many to qualify. */
const BARE_LIMIT = 2000;

/** Merges records sharing a key, in order, later fields over earlier (last write wins). */
function mergeByKey(records: CrmRecord[]): { merged: CrmRecord[]; missingKey: number } {
  const byKey = new Map<string, CrmRecord>();
  let missingKey = 0;
  for (const r of records) {
    const key = r[KEY_FIELD];
    if (typeof key !== 'string' || key === '') {
      missingKey++;
      continue;
    }
    byKey.set(key, { ...(byKey.get(key) ?? {}), ...r });
  }
  return { merged: [...byKey.values()], missingKey };
}

export class SalesforceSink implements KeySink {
  readonly api: SalesforceApi;
  private readonly bulkOptions: BulkOptions;
  /** Site-qualified keys: written qualified, read back bare and only the site's own (absent: today's keys). */
  private readonly codec: SiteKeyCodec | undefined;

  constructor(
    readonly session: SalesforceSession,
    private readonly options: SinkOptions,
  ) {
    this.api = new SalesforceApi(session, options.maxApiUsage, options.retry ?? SALESFORCE_RETRY, options.allowanceDir);
    this.bulkOptions = { ...DEFAULT_BULK, ...options.bulk };
    this.codec = options.siteKeys === undefined ? undefined : new SiteKeyCodec(options.siteKeys);
  }

  /** `stop`: the run's stop, which ends its requests in flight (connection.ts's STOP_GRACE_MS). */
  static async connect(settings: SalesforceSettings, extra: Partial<SinkOptions> = {}, stop?: AbortSignal): Promise<SalesforceSink> {
    const session = await connectSalesforce(settings, stop);
    return new SalesforceSink(session, { bulkThreshold: settings.bulkThreshold, maxApiUsage: settings.maxApiUsage, siteKeys: settings.siteKeys, allowanceDir: settings.place?.stateRoot, ...extra });
  }

  calls(): CrmCallCounts {
    return this.api.calls();
  }

  /**
   * One call at the start of a run that writes: the org's limits. It proves the login (an expired
   * session is renewed here, or ends the run with exit 2 before the platform is read) and gives
   * the allowance guard its reading before the first write. Says which org the run acts on.
   */
  async verifySession(stop?: AbortSignal): Promise<OrgIdentity> {
    // Without jsforce when it answers plainly: jsforce is loaded at the first query or write.
    const limits = await this.api.getEarly<{ DailyApiRequests?: { Max?: number; Remaining?: number } } | null>('/limits', stop);
    // Every org's limits carry its daily allowance: an answer without it (`{}`, a string) is not the API's.
    const daily = limits !== null && typeof limits === 'object' ? limits.DailyApiRequests : undefined;
    if (daily === null || typeof daily !== 'object') {
      throw notSalesforceApi(`${this.session.instanceUrl()}/services/data/v${this.session.apiVersion}/limits`, 200, "JSON without the org's limits");
    }
    if (typeof daily?.Max === 'number' && typeof daily.Remaining === 'number') this.api.noteUsage(daily.Max - daily.Remaining, daily.Max);
    this.api.guard();
    const orgId = this.session.orgId();
    return { instanceUrl: this.session.instanceUrl(), ...(orgId === undefined ? {} : { orgId }) };
  }

  apiUsage(): { used: number; limit: number } | undefined {
    return this.api.apiUsage();
  }

  async upsert(object: SObjectName, records: CrmRecord[], onStep?: (step: WriteStep) => void): Promise<UpsertOutcome[]> {
    const { merged, missingKey } = mergeByKey(records);
    const out: UpsertOutcome[] = [];
    for (let i = 0; i < missingKey; i++) out.push({ key: '', status: 'failed', error: { code: 'MISSING_KEY', message: `a ${object} record without ${KEY_FIELD} was not sent` } });
    if (merged.length === 0) return out;
    const codec = this.codec;
    const sent = codec ? merged.map((r) => codec.toOrg(r)) : merged;

    const outcomes = sent.length > this.options.bulkThreshold ? await this.bulkWithRetries(object, sent, onStep) : await upsertViaCollections(this.api, object, sent, onStep);
    for (const r of sent) {
      const key = String(r[KEY_FIELD]);
      const o = outcomes.get(key) ?? { key, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } };
      out.push(codec ? codec.outcomeFromOrg(o) : o);
    }
    return out;
  }

  /** Rows of a job that failed transiently are sent again: by Collections when few, else a new job. */
  private async bulkWithRetries(object: SObjectName, records: CrmRecord[], onStep?: (step: WriteStep) => void): Promise<Map<string, UpsertOutcome>> {
    const outcomes = await upsertViaBulk(this.api, object, records, this.bulkOptions, onStep);
    const byKey = new Map(records.map((r) => [String(r[KEY_FIELD]), r]));
    for (let round = 1; round < this.api.retry.attempts; round++) {
      const again = [...outcomes.values()]
        .filter((o) => o.status === 'failed' && isTransientCode(o.error.code))
        .map((o) => byKey.get(o.key))
        .filter((r): r is CrmRecord => r !== undefined);
      if (again.length === 0) break;
      await sleep(backoff(this.api.retry, round - 1));
      const retried = again.length > this.options.bulkThreshold ? await upsertViaBulk(this.api, object, again, this.bulkOptions, onStep) : await upsertViaCollections(this.api, object, again, onStep);
      for (const [k, o] of retried) outcomes.set(k, o);
    }
    return outcomes;
  }

  async readByKeys(object: SObjectName, keys: string[], fields: string[]): Promise<Map<string, StoredRecord>> {
    const rows = await this.readIn(object, KEY_FIELD, this.codec ? this.codec.keysToOrg(keys) : keys, fields);
    return new Map(rows.map((r) => [r[KEY_FIELD], r]));
  }

  async readWhere(object: SObjectName, field: string, values: string[], fields: string[]): Promise<StoredRecord[]> {
    return this.readIn(object, field, this.codec ? this.codec.valuesToOrg(field, values) : values, fields);
  }

  /**
   * Every record of an object, page by page (Id, SvcId__c and `fields`): a REST query (one call
   * per 2,000 records) or, when about `expected` records are expected and that is above the bulk
   * threshold, a Bulk API 2.0 query job (a few calls, 10,000 rows a page). One page in memory.
   */
  async *scanKeys(object: SObjectName, fields: string[] = [], expected = 0): AsyncIterable<StoredRecord[]> {
    const codec = this.codec;
    for await (const rows of this.scanWhere(object, [KEY_FIELD, ...fields], codec?.filter(), expected)) yield codec ? codec.fromOrg(rows) : rows;
  }

  async *scanWhere(object: string, fields: string[], where: string | undefined, expected = 0): AsyncIterable<StoredRecord[]> {
    const select = [...new Set(['Id', ...fields])].map(assertIdentifier);
    const soql = `SELECT ${select.join(', ')} FROM ${assertIdentifier(object)}${where ? ` WHERE ${where}` : ''}`;
    const pages = expected > this.options.bulkThreshold ? bulkQueryPages(this.api, soql, this.bulkOptions) : queryPages(this.api, soql);
    for await (const rows of pages) yield rows as StoredRecord[];
  }

  async hasFields(object: string, fields: readonly string[]): Promise<boolean> {
    const d = await this.describe(object);
    return d !== undefined && fields.every((f) => d.fields.some((x) => x.name === f));
  }

  /** Deletes records by Id: Collections (200 a call) up to the bulk threshold, a Bulk API 2.0 delete job above it. */
  async deleteByIds(object: SObjectName, ids: string[]): Promise<DeleteOutcome[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const outcomes = unique.length > this.options.bulkThreshold ? await deleteViaBulk(this.api, object, unique, this.bulkOptions) : await deleteViaCollections(this.api, unique);
    return unique.map((id) => outcomes.get(id) ?? { id, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });
  }

  /**
   * Updates records by Id: Collections (200 a call) up to the bulk threshold, a Bulk API 2.0 update
   * job above it for the mirror's objects; the gift side and the run log always in Collections, as
   * the projection and the log write them.
   */
  async updateByIds(object: string, records: Array<CrmRecord & { Id: string }>): Promise<UpsertOutcome[]> {
    if (records.length === 0) return [];
    const bulk = records.length > this.options.bulkThreshold && SCHEMAS.some((s) => s.apiName === object);
    const outcomes = bulk ? await updateViaBulk(this.api, object, records, this.bulkOptions) : await updateViaCollections(this.api, object, records);
    return records.map((r) => outcomes.get(r.Id) ?? { key: r.Id, status: 'failed', error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });
  }

  /**
   * SVC_SITE_KEYS: records whose key has no site prefix, over the eight objects (one query each,
   * up to BARE_LIMIT counted): a bare key starts with its type's name, a qualified one with digits.
   */
  async bareKeyCount(): Promise<number | undefined> {
    if (this.codec === undefined) return undefined;
    let n = 0;
    for (const s of SCHEMAS) {
      const head = s.key.slice(0, s.key.indexOf('_'));
      n += (await queryAll(this.api, `SELECT Id FROM ${assertIdentifier(s.apiName)} WHERE ${KEY_FIELD} LIKE ${soqlLiteral(`${head}%`)} LIMIT ${BARE_LIMIT}`)).length;
    }
    return n;
  }

  /** The gift projection's side of this connection (its calls count with the mirror's). */
  gifts(): SalesforceGiftSink {
    return new SalesforceGiftSink(this.api, this.options.siteKeys);
  }

  /** Describes an object for `doctor`; undefined when the org does not have it. */
  async describe(object: string): Promise<ObjectDescription | undefined> {
    return describeObject(this.api, object);
  }

  private async readIn(object: SObjectName, field: string, values: string[], fields: string[]): Promise<StoredRecord[]> {
    if (values.length === 0) return [];
    const select = [...new Set(['Id', KEY_FIELD, ...fields])];
    // A read by a lookup or an email would find other sites' records too: kept to this site's keys.
    const and = this.codec?.filter();
    const queries = buildInQueries({ fields: select, object, field, values, ...(and ? { and } : {}) }, queryUrlPrefix(this.api).length, this.options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH);
    const out: StoredRecord[] = [];
    for (const q of queries) for (const row of await queryAll(this.api, q)) out.push(row as StoredRecord);
    return this.codec ? this.codec.fromOrg(out) : out;
  }
}
