/**
 * The engine: refs -> plan -> fetch -> map -> link -> write, level by level, parents first.
 * It talks to the platform and Salesforce only through RecordSource and CrmSink, and reports
 * every per-record outcome to a RunReport; it never prints.
 */
import type { FieldType } from '../mapping/fieldTypes.js';
import { linkRecords, parentFieldsToRead } from '../mapping/link.js';
import { mapQuestions, mapRecord, parentRef } from '../mapping/map.js';
import { LEVEL, NAME_FIELD, NAME_LENGTH, SCHEMA, lookupFields, writableFieldNames, type ObjectSchema } from '../mapping/schema.js';
import { parsePositiveId } from '../model/refs.js';
import type { MappedRecord, MapResult, ParentRef } from '../mapping/types.js';
import type { ApiAction, ApiRecordOf, ApiUser } from '../model/apiRecords.js';
import type { CrmRecord, StoredRecord, UpsertOutcome } from '../model/crmRecords.js';
import { isFatal, type PlatformError } from '../model/errors.js';
import { SYNC_ORDER, type ObjectRef, type ObjectType, type SObjectName, type SyncableType } from '../model/objects.js';
import type { Changes, MissingParent, OwnerPair, Progress } from '../model/outcomes.js';
import type { CrmSink, RecordSource, ScanFilter } from '../model/ports.js';
import { KEY_FIELD, keyFor } from '../model/refs.js';
import { RecordCache, pendingId } from './cache.js';
import { diffRecord } from './diff.js';
import { planRelink } from './relink.js';
import { RunReport } from './report.js';

export interface EngineOptions {
  dryRun: boolean;
  /** Write records even when Salesforce already holds the same values. */
  force: boolean;
  /** Skip children whose parent cannot be found, instead of writing them unlinked. */
  strictParents: boolean;
  /** Records of one type that go through the pipeline together (bounds memory on large sets). */
  batchSize: number;
  onProgress?: (p: Progress) => void;
}

export interface ScanHooks {
  /** Page to start a type at (resume); 1 when absent. */
  startPage?(type: SyncableType): number;
  /** Called after the records of pages up to `page` are written. */
  pageDone?(type: SyncableType, page: number): void | Promise<void>;
  typeDone?(type: SyncableType): void | Promise<void>;
}

const NOT_FOUND = 'not found on the platform (deleted or never existed)';
/** How the absence was established: a request that answered 404, or a complete list scan (no request). */
export const NOT_FOUND_BY_ID = `${NOT_FOUND}: 404 by id`;
export const NOT_FOUND_IN_SCAN = `${NOT_FOUND}: not in a complete list scan`;

export class SyncEngine {
  readonly report: RunReport;
  /** Action -> owner pairs seen in this run (the webhook worker re-syncs actions on users.update). */
  private readonly owners: OwnerPair[] = [];
  private readonly cache = new RecordCache();
  private readonly done = new Map<ObjectType, number>();
  /** Progress totals: ids asked for, or the scanned list's total_entries. */
  private readonly totals = new Map<ObjectType, number>();
  private readonly fieldTypes = new Map<SObjectName, Map<string, FieldType>>();
  /** Parents just read and not found in Salesforce: writing them needs no second read. */
  private readonly absentInSalesforce = new Set<string>();

  constructor(
    private readonly source: RecordSource,
    private readonly sink: CrmSink,
    private readonly opts: EngineOptions,
    report?: RunReport,
  ) {
    this.report = report ?? new RunReport();
  }

  /** The action -> owner pairs seen so far in this run, a copy. */
  ownersSeen(): OwnerPair[] {
    return this.owners.map((p) => ({ ...p }));
  }

  /**
   * Syncs the given objects (and any parent missing from Salesforce), each distinct ref once.
   * `changedSince`: the refs are known to have changed after it (webhooks), which lets the
   * platform side narrow a list scan; parents are fetched without it.
   */
  async syncRefs(refs: ObjectRef[], opts: { changedSince?: string } = {}): Promise<void> {
    const byType = new Map<SyncableType, Set<number>>();
    for (const ref of refs) byType.set(ref.type, (byType.get(ref.type) ?? new Set<number>()).add(ref.id));
    for (const type of SYNC_ORDER) {
      // A ref already synced in this run (as a parent) has its outcome; one merely read from
      // Salesforce as a parent has not, and is synced like any other.
      const ids = [...(byType.get(type) ?? [])].filter((id) => this.report.outcomeOf(keyFor(type, id)) === undefined);
      if (ids.length > 0) this.totals.set(type, ids.length);
      for (let i = 0; i < ids.length; i += this.opts.batchSize) {
        const records = await this.fetch(type, ids.slice(i, i + this.opts.batchSize), true, opts.changedSince);
        await this.processRecords(type, records);
      }
    }
  }

  /** Syncs whole collections from list scans (optionally narrowed by updated_after), page by page. */
  async syncScan(types: SyncableType[], filter: ScanFilter, hooks: ScanHooks = {}): Promise<void> {
    for (const type of SYNC_ORDER.filter((t) => types.includes(t))) {
      let buffer: ApiRecordOf[SyncableType][] = [];
      for await (const page of this.source.scan(type, { ...filter, fromPage: hooks.startPage?.(type) ?? 1 })) {
        this.totals.set(type, page.totalEntries);
        this.reportFailures(type, page.failed, true);
        buffer.push(...page.records);
        if (buffer.length >= this.opts.batchSize) {
          await this.processRecords(type, buffer);
          buffer = [];
          await hooks.pageDone?.(type, page.page);
        }
      }
      if (buffer.length > 0) await this.processRecords(type, buffer);
      await hooks.typeDone?.(type);
    }
  }

  /** Fetches records; 404s and failures become outcomes (when reported) and cache misses. */
  private async fetch<T extends SyncableType>(type: T, ids: number[], report: boolean, changedSince?: string): Promise<ApiRecordOf[T][]> {
    const res = await this.source.fetch(type, ids, changedSince === undefined ? {} : { updatedAfter: changedSince });
    const object = SCHEMA[type].apiName;
    for (const id of res.notFound) {
      const key = keyFor(type, id);
      const reason = res.absentFromScan?.has(id) ? NOT_FOUND_IN_SCAN : NOT_FOUND_BY_ID;
      this.cache.markMissing(type, key, reason);
      if (report) this.report.add({ object, key, action: 'skip', reason });
    }
    this.reportFailures(type, res.failed, report);
    return [...res.records.values()];
  }

  /** Platform failures per id: failed outcomes (retried next run), and parents that failed. */
  private reportFailures(type: SyncableType, failed: Map<number, PlatformError>, report: boolean): void {
    const object = SCHEMA[type].apiName;
    for (const [id, err] of failed) {
      if (isFatal(err)) throw err;
      const key = keyFor(type, id);
      this.cache.markMissing(type, key, `could not be fetched: ${err.message}`, true);
      if (report) this.report.add({ object, key, action: 'fail', error: { code: `PLATFORM_${err.kind.toUpperCase()}`, message: err.message } });
    }
  }

  private async processRecords<T extends SyncableType>(type: T, records: ApiRecordOf[T][]): Promise<void> {
    if (records.length === 0) return;
    // Each record's parent once: ensured first, then read back for the target's reference.
    const parentOf = new Map(records.map((r) => [r, parentRef(type, r)] as const));
    await this.ensureParents([...parentOf.values()].filter((p): p is ParentRef => p !== null));

    const users = type === 'action' ? await this.fetchOwners(records as ApiAction[]) : new Map<number, ApiUser>();
    const results = records.map((record) => {
      if (type === 'action') {
        const ownerId = parsePositiveId((record as ApiAction).owner?.id);
        return mapRecord('action', record as ApiAction, { user: ownerId === undefined ? null : users.get(ownerId) ?? null });
      }
      if (type === 'donation' || type === 'newsletter_subscription') {
        const parent = parentOf.get(record);
        const ref = parent ? this.cache.record(parent.key)?.ExternalReference__c : undefined;
        return mapRecord(type, record, { targetExternalReference: typeof ref === 'string' ? ref : null });
      }
      return mapRecord(type, record);
    });
    await this.writeResults(type, results);

    if (type === 'action') {
      const questions: MapResult[] = [];
      for (const action of records as ApiAction[]) {
        const key = keyFor('action', action.id);
        if (this.cache.record(key)) {
          questions.push(...mapQuestions(action));
        } else {
          for (const q of mapQuestions(action)) {
            this.report.add({ object: q.object, key: q.key, action: 'skip', reason: `action ${key} was not written` });
          }
        }
      }
      await this.writeResults('question', questions);
    }
  }

  /** The owners' user records of a batch of actions, fetched once per run (the source caches). */
  private async fetchOwners(actions: ApiAction[]): Promise<Map<number, ApiUser>> {
    const ids = new Set<number>();
    for (const a of actions) {
      const ownerId = parsePositiveId(a.owner?.id);
      if (ownerId !== undefined) {
        ids.add(ownerId);
        this.owners.push({ userId: ownerId, actionId: a.id });
      }
    }
    if (ids.size === 0) return new Map();
    const res = await this.source.fetch('user', [...ids]);
    for (const [id, err] of res.failed) {
      if (isFatal(err)) throw err;
      this.report.warn(`user ${id}: ${err.message}`);
    }
    return res.records;
  }

  /**
   * Makes sure every parent is known: read from Salesforce in batches, and those missing there
   * fetched from the platform and written first (higher levels before lower ones).
   */
  private async ensureParents(refs: ParentRef[]): Promise<void> {
    const byType = new Map<SyncableType, Map<string, number>>();
    for (const ref of refs) {
      if (this.cache.has(ref.key)) continue;
      const keys = byType.get(ref.type) ?? new Map<string, number>();
      keys.set(ref.key, ref.id);
      byType.set(ref.type, keys);
    }
    const types = [...byType.keys()].sort((a, b) => LEVEL[a] - LEVEL[b]);
    for (const type of types) {
      const wanted = [...(byType.get(type) ?? new Map<string, number>())].filter(([key]) => !this.cache.has(key));
      if (wanted.length === 0) continue;
      const schema = SCHEMA[type];
      const found = await this.sink.readByKeys(schema.apiName, wanted.map(([key]) => key), parentFieldsToRead(schema.apiName));
      for (const record of found.values()) this.cache.put(type, record);
      const missing = wanted.filter(([key]) => !found.has(key));
      if (missing.length === 0) continue;
      for (const [key] of missing) this.absentInSalesforce.add(key);
      const records = await this.fetch(type, missing.map(([, id]) => id), false);
      await this.processRecords(type, records);
    }
  }

  private typesOf(schema: ObjectSchema): Map<string, FieldType> {
    let types = this.fieldTypes.get(schema.apiName);
    if (!types) {
      types = new Map(schema.fields.map((f) => [f.name, f.type]));
      types.set(NAME_FIELD, { kind: 'text', length: NAME_LENGTH });
      this.fieldTypes.set(schema.apiName, types);
    }
    return types;
  }

  /** link -> diff -> write (or, in a dry-run, report what would be written). */
  private async writeResults(type: ObjectType, results: MapResult[]): Promise<void> {
    const schema = SCHEMA[type];
    const mapped = new Map<string, MappedRecord>();
    for (const r of results) {
      if (r.kind === 'skip') {
        this.cache.markMissing(r.type, r.key, r.reason);
        this.report.add({ object: r.object, key: r.key, action: 'skip', reason: r.reason });
      } else if (r.kind === 'invalid') {
        this.cache.markMissing(r.type, r.key, r.error.message, true);
        this.report.add({ object: r.object, key: r.key, action: 'fail', error: r.error });
      } else {
        mapped.set(r.key, r); // a key twice in one batch: the last one wins
      }
    }
    if (mapped.size > 0) {
      const parents = new Map<string, StoredRecord>();
      for (const m of mapped.values()) {
        const rec = m.parent ? this.cache.record(m.parent.key) : undefined;
        if (m.parent && rec) parents.set(m.parent.key, rec);
      }
      const linked = linkRecords([...mapped.values()], parents);
      const warnings = new Map<string, string[]>([...mapped.values()].map((m) => [m.key, [...m.warnings]]));
      const skipped = new Set<string>();
      for (const miss of linked.missing) {
        const why = this.cache.get(miss.parent);
        if (why?.state === 'missing' && why.failed) {
          // The parent exists but could not be fetched or written: retry both later, never link wrong.
          skipped.add(miss.key);
          this.cache.markMissing(type, miss.key, `parent ${miss.parent} failed`, true);
          this.report.add({ object: schema.apiName, key: miss.key, action: 'fail', error: { code: 'PARENT_FAILED', message: `parent ${miss.parent} failed: ${why.reason}` } });
          continue;
        }
        const reason = why?.state === 'missing' ? why.reason : 'not found in Salesforce';
        const text = why?.state === 'missing' ? `parent ${miss.parent} not found: ${reason}` : `parent ${miss.parent} not found in Salesforce`;
        this.unlinked(type, { object: schema.apiName, key: miss.key, parent: miss.parent, reason }, text, skipped, warnings);
      }
      // No parent could be named at all (no id, an unknown entity type, a malformed id): reported
      // like a missing parent, never written unlinked in silence.
      for (const m of mapped.values()) {
        if (m.parentProblem === undefined) continue;
        this.unlinked(type, { object: schema.apiName, key: m.key, parent: null, reason: m.parentProblem }, `no parent: ${m.parentProblem}`, skipped, warnings);
      }
      const records = linked.records.filter((r) => !skipped.has(String(r[KEY_FIELD])));
      await this.write(schema, records, warnings);
    }
    this.done.set(type, (this.done.get(type) ?? 0) + results.length);
    this.opts.onProgress?.({ type, done: this.done.get(type) ?? 0, total: this.totals.get(type) });
  }

  /** A record without its parent: listed in missingParents, then skipped (--strict-parents) or written unlinked with a warning. */
  private unlinked(type: ObjectType, missing: MissingParent, text: string, skipped: Set<string>, warnings: Map<string, string[]>): void {
    this.report.missingParent(missing);
    if (this.opts.strictParents) {
      skipped.add(missing.key);
      this.cache.markMissing(type, missing.key, text);
      this.report.add({ object: missing.object, key: missing.key, action: 'skip', reason: `${text} (--strict-parents)` });
    } else {
      warnings.get(missing.key)?.push(text);
    }
  }

  private async write(schema: ObjectSchema, records: CrmRecord[], warnings: Map<string, string[]>): Promise<void> {
    if (records.length === 0) return;
    const keys = records.map((r) => String(r[KEY_FIELD]));
    const toRead = keys.filter((k) => !this.absentInSalesforce.has(k));
    for (const k of keys) this.absentInSalesforce.delete(k);
    const current = toRead.length > 0 ? await this.sink.readByKeys(schema.apiName, toRead, compareFields(schema)) : new Map<string, StoredRecord>();
    const types = this.typesOf(schema);
    const toWrite: Array<{ record: CrmRecord; current?: StoredRecord; changes: Changes }> = [];
    for (const record of records) {
      const key = String(record[KEY_FIELD]);
      const cur = current.get(key);
      const changes = diffRecord(record, cur, types);
      const w = warnings.get(key) ?? [];
      for (const text of w) this.report.warn(`${key}: ${text}`);
      if (cur && Object.keys(changes).length === 0 && !this.opts.force) {
        this.cache.put(schema.type, cur);
        this.report.add({ object: schema.apiName, key, action: 'unchanged', ...(w.length ? { warnings: w } : {}) });
      } else {
        toWrite.push({ record, current: cur, changes });
      }
    }
    if (toWrite.length === 0) return;

    const outcomes: UpsertOutcome[] = this.opts.dryRun
      ? toWrite.map(({ record, current: cur }) =>
          cur ? { key: String(record[KEY_FIELD]), status: 'updated', id: cur.Id } : { key: String(record[KEY_FIELD]), status: 'created', id: pendingId(String(record[KEY_FIELD])) },
        )
      : await this.sink.upsert(schema.apiName, toWrite.map((w) => w.record));
    const byKey = new Map(outcomes.map((o) => [o.key, o]));
    const moved: StoredRecord[] = [];
    const lookupNames = lookupFields(schema).map((f) => f.name);
    for (const { record, current: cur, changes } of toWrite) {
      const key = String(record[KEY_FIELD]);
      const w = warnings.get(key) ?? [];
      const extra = w.length ? { warnings: w } : {};
      const outcome = byKey.get(key) ?? { key, status: 'failed' as const, error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } };
      if (outcome.status === 'failed') {
        this.cache.markMissing(schema.type, key, `${outcome.error.code}: ${outcome.error.message}`, true);
        this.report.add({ object: schema.apiName, key, action: 'fail', error: outcome.error, ...extra });
        continue;
      }
      const stored = { ...(cur ?? {}), ...record, Id: outcome.id, SvcId__c: key } as StoredRecord;
      this.cache.put(schema.type, stored);
      if (outcome.status === 'created' && !cur) {
        this.report.add({ object: schema.apiName, key, action: 'insert', ...extra });
      } else {
        this.report.add({ object: schema.apiName, key, action: 'update', changes, ...extra });
        if (cur && lookupNames.some((f) => f in changes)) moved.push(stored);
      }
    }
    if (moved.length > 0) await this.relink(schema.type, moved);
  }

  /** Carries changed lookups down to descendants already in Salesforce. */
  private async relink(type: ObjectType, moved: StoredRecord[]): Promise<void> {
    const updates = await planRelink(this.sink, type, moved);
    const byObject = new Map<SObjectName, typeof updates>();
    for (const u of updates) {
      const list = byObject.get(u.schema.apiName) ?? [];
      list.push(u);
      byObject.set(u.schema.apiName, list);
    }
    for (const [object, list] of byObject) {
      const outcomes: UpsertOutcome[] = this.opts.dryRun
        ? list.map((u) => ({ key: u.current.SvcId__c, status: 'updated', id: u.current.Id }))
        : await this.sink.upsert(object, list.map((u) => u.next));
      const byKey = new Map(outcomes.map((o) => [o.key, o]));
      for (const u of list) {
        const key = u.current.SvcId__c;
        const o = byKey.get(key);
        const changes: Changes = {};
        for (const [f, to] of Object.entries(u.next)) if (f !== KEY_FIELD) changes[f] = { from: u.current[f] ?? null, to };
        if (!o || o.status === 'failed') {
          this.report.add({ object, key, action: 'fail', error: o?.status === 'failed' ? o.error : { code: 'NO_RESULT', message: 'no result' } });
        } else {
          this.report.add({ object, key, action: 'update', changes, reason: 'parent moved: inherited lookups follow' });
        }
      }
    }
  }
}

/** What the diff compares: every field the mapping can send, lookups included. */
export function compareFields(schema: ObjectSchema): string[] {
  return ['Id', ...writableFieldNames(schema)];
}

