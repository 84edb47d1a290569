/**
 * In-memory fakes of the engine's two ports, for fast unit tests of its decisions. Strict like
 * the real sides: the sink refuses fields an object does not have and lookups to records it does
 * not hold, reads return only the fields asked for, and every call is logged and counted.
 */
import { SCHEMAS, lookupFields, writableFieldNames } from '../../src/mapping/schema.js';
import type { ApiRecord, ApiRecordOf, ResourceType } from '../../src/model/apiRecords.js';
import type { CrmCallCounts, CrmError, CrmRecord, StoredRecord, UpsertOutcome } from '../../src/model/crmRecords.js';
import { PlatformError } from '../../src/model/errors.js';
import type { SObjectName } from '../../src/model/objects.js';
import type { CrmSink, FetchOptions, FetchResult, PlatformRequestCounts, RecordSource, ScanFilter, ScanPage } from '../../src/model/ports.js';
import { KEY_FIELD } from '../../src/model/refs.js';

export class FakeSource implements RecordSource {
  private readonly records = new Map<ResourceType, Map<number, ApiRecord>>();
  private readonly failures = new Map<string, PlatformError>();
  /** Every fetch, in order: the type and the ids asked for. */
  readonly fetches: Array<{ type: ResourceType; ids: number[] }> = [];
  private readonly counts: PlatformRequestCounts = { total: 0, byId: 0, list: 0, retries: 0, rateLimitWaits: 0, waitedMs: 0 };

  constructor(readonly pageSize = 100) {}

  add<T extends ResourceType>(type: T, ...records: ApiRecordOf[T][]): this {
    const byId = this.records.get(type) ?? new Map<number, ApiRecord>();
    for (const r of records) byId.set(r.id, r);
    this.records.set(type, byId);
    return this;
  }

  /** The record answers with this error from now on (a 5xx after retries, a 401 ...). */
  failWith(type: ResourceType, id: number, error: PlatformError): this {
    this.failures.set(`${type}:${id}`, error);
    return this;
  }

  async fetch<T extends ResourceType>(type: T, ids: number[], _options: FetchOptions = {}): Promise<FetchResult<ApiRecordOf[T]>> {
    this.fetches.push({ type, ids: [...ids] });
    const result: FetchResult<ApiRecordOf[T]> = { records: new Map(), notFound: [], failed: new Map() };
    for (const id of new Set(ids)) {
      this.counts.total++;
      this.counts.byId++;
      const failure = this.failures.get(`${type}:${id}`);
      const record = this.records.get(type)?.get(id);
      if (failure) {
        // A fatal answer stops everything, as the real source rethrows it.
        if (failure.fatal) throw failure;
        result.failed.set(id, failure);
      } else if (record) result.records.set(id, record as ApiRecordOf[T]);
      else result.notFound.push(id);
    }
    return result;
  }

  async *scan<T extends ResourceType>(type: T, filter: ScanFilter): AsyncIterable<ScanPage<ApiRecordOf[T]>> {
    const all = [...(this.records.get(type)?.values() ?? [])].filter((r) => !filter.updatedAfter || (r.updated_at ?? '') > filter.updatedAfter) as ApiRecordOf[T][];
    const totalPages = Math.max(1, Math.ceil(all.length / this.pageSize));
    for (let page = Math.max(1, filter.fromPage ?? 1); page <= totalPages; page++) {
      this.counts.total++;
      this.counts.list++;
      yield { records: all.slice((page - 1) * this.pageSize, page * this.pageSize), failed: new Map(), page, totalPages, totalEntries: all.length };
    }
  }

  requests(): PlatformRequestCounts {
    return { ...this.counts };
  }
}

const KNOWN_FIELDS = new Map<string, Set<string>>(SCHEMAS.map((s) => [s.apiName, new Set(writableFieldNames(s))]));
const LOOKUP_TARGETS = new Map<string, Map<string, SObjectName>>(SCHEMAS.map((s) => [s.apiName, new Map(lookupFields(s).map((f) => [f.name, (f.type as { to: SObjectName }).to]))]));

export type SinkCall =
  | { op: 'readByKeys'; object: SObjectName; keys: string[]; fields: string[] }
  | { op: 'upsert'; object: SObjectName; keys: string[] }
  | { op: 'readWhere'; object: SObjectName; field: string; values: string[] };

export class FakeSink implements CrmSink {
  private readonly objects = new Map<SObjectName, Map<string, StoredRecord>>();
  private readonly failures = new Map<string, CrmError>();
  private nextId = 1;
  /** Every call, in order. */
  readonly log: SinkCall[] = [];

  /** Holds a record as if an earlier run had written it; returns its Id. */
  seed(object: SObjectName, record: CrmRecord): string {
    const key = String(record[KEY_FIELD]);
    const stored = { ...record, Id: this.newId(object), [KEY_FIELD]: key } as StoredRecord;
    this.table(object).set(key, stored);
    return stored.Id;
  }

  get(object: SObjectName, key: string): StoredRecord | undefined {
    const r = this.table(object).get(key);
    return r ? { ...r } : undefined;
  }

  idOf(object: SObjectName, key: string): string {
    const r = this.table(object).get(key);
    if (!r) throw new Error(`${object} ${key} is not in the fake sink`);
    return r.Id;
  }

  /** Upserts of this key fail with this error from now on (a validation rule, a locked row ...). */
  failKey(key: string, error: CrmError): this {
    this.failures.set(key, error);
    return this;
  }

  upserts(): SinkCall[] {
    return this.log.filter((c) => c.op === 'upsert');
  }

  async readByKeys(object: SObjectName, keys: string[], fields: string[]): Promise<Map<string, StoredRecord>> {
    this.log.push({ op: 'readByKeys', object, keys: [...keys], fields: [...fields] });
    const out = new Map<string, StoredRecord>();
    for (const key of keys) {
      const r = this.table(object).get(key);
      if (r) out.set(key, this.pick(r, fields));
    }
    return out;
  }

  async upsert(object: SObjectName, records: CrmRecord[]): Promise<UpsertOutcome[]> {
    this.log.push({ op: 'upsert', object, keys: records.map((r) => String(r[KEY_FIELD])) });
    return records.map((record) => {
      const key = String(record[KEY_FIELD]);
      const refused = this.failures.get(key) ?? this.invalid(object, record);
      if (refused) return { key, status: 'failed', error: refused };
      const current = this.table(object).get(key);
      const stored = { ...(current ?? {}), ...record, Id: current?.Id ?? this.newId(object), [KEY_FIELD]: key } as StoredRecord;
      this.table(object).set(key, stored);
      return { key, status: current ? 'updated' : 'created', id: stored.Id };
    });
  }

  async readWhere(object: SObjectName, field: string, values: string[], fields: string[]): Promise<StoredRecord[]> {
    this.log.push({ op: 'readWhere', object, field, values: [...values] });
    // Salesforce compares text ignoring case.
    const wanted = new Set(values.map((v) => v.toLowerCase()));
    return [...this.table(object).values()].filter((r) => wanted.has(String(r[field]).toLowerCase())).map((r) => this.pick(r, fields));
  }

  calls(): CrmCallCounts {
    const query = this.log.filter((c) => c.op !== 'upsert').length;
    const collections = this.log.length - query;
    return { total: this.log.length, query, collections, bulk: 0, describe: 0, auth: 0 };
  }

  /** Salesforce's answer to a field the object lacks, or a lookup to a record that does not exist. */
  private invalid(object: SObjectName, record: CrmRecord): CrmError | undefined {
    const known = KNOWN_FIELDS.get(object);
    if (!known) return { code: 'INVALID_TYPE', message: `sObject type '${object}' is not supported` };
    for (const [field, value] of Object.entries(record)) {
      if (!known.has(field)) return { code: 'INVALID_FIELD', message: `No such column '${field}' on entity '${object}'`, fields: [field] };
      const target = LOOKUP_TARGETS.get(object)?.get(field);
      if (target && value !== null && ![...this.table(target).values()].some((r) => r.Id === value)) {
        return { code: 'INVALID_CROSS_REFERENCE_KEY', message: `invalid cross reference id ${String(value)}`, fields: [field] };
      }
    }
    return undefined;
  }

  private pick(record: StoredRecord, fields: string[]): StoredRecord {
    const out: CrmRecord = {};
    for (const f of fields) if (f in record) out[f] = record[f] as CrmRecord[string];
    return { ...out, Id: record.Id, [KEY_FIELD]: record[KEY_FIELD] } as StoredRecord;
  }

  private table(object: SObjectName): Map<string, StoredRecord> {
    let t = this.objects.get(object);
    if (!t) this.objects.set(object, (t = new Map()));
    return t;
  }

  private newId(object: SObjectName): string {
    return `${object.slice(4, 7)}${String(this.nextId++).padStart(12, '0')}`;
  }
}

export const serverError = (path: string): PlatformError => new PlatformError('server', 'GET', path, 503, 'Service Unavailable');
export const authError = (path: string): PlatformError => new PlatformError('auth', 'GET', path, 401, 'Invalid API key provided.');
