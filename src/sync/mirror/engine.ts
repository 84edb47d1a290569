/**
 * The engine: refs -> plan -> fetch -> map -> link -> write, level by level, parents first; the
 * desired state (parents, users, map, link, compare) is desired.ts, shared with the audit. It talks to the platform and Salesforce only through RecordSource and CrmSink (writing through
 * writer.ts), and reports every per-record outcome to a RunReport; it never prints.
 */
import { parentFieldsToRead } from '../../mapping/link.js';
import { ownerIdOf } from '../../mapping/map.js';
import { LEVEL, SCHEMA } from '../../mapping/schema.js';
import type { MappedRecord, MapResult, ParentRef } from '../../mapping/types.js';
import type { ApiDonation, ApiRecordOf } from '../../model/apiRecords.js';
import { recordKey } from '../../model/crmRecords.js';
import { isFatal, type PlatformError } from '../../model/errors.js';
import { SYNC_ORDER, type ObjectRef, type ObjectType, type SObjectName, type SyncableType } from '../../model/objects.js';
import type { MissingParent, OwnerPair, Progress } from '../../model/outcomes.js';
import type { CrmSink, RecordSource, ScanFilter, ObjectCheck } from '../../model/ports.js';
import { keyFor, refOfKey } from '../../model/refs.js';
import { nextPage, ScanBatch } from './scanBatch.js';
import { nestedOf, type NestedOf } from './nested.js';
import { isParentType, RecordCache } from '../run/cache.js';
import type { OwnerFingerprint } from './ownerFields.js';
import { DesiredState } from './desired.js';
import { RunReport } from '../report/report.js';
import type { AbsentParent } from '../run/state.js';
import { RecordWriter } from './writer.js';

export interface EngineOptions {
  dryRun: boolean;
  /** Write records even when Salesforce already holds the same values. */
  force: boolean;
  /** Skip children whose parent cannot be found, instead of writing them unlinked. */
  strictParents: boolean;
  /** Records of one type that go through the pipeline together (bounds memory on large sets). */
  batchSize: number;
  onProgress?: (p: Progress) => void;
  /** The user asked to stop: no new batch or request starts; the signal's reason is thrown. */
  stop?: AbortSignal;
  /** Keys whose Salesforce Id the run keeps for salesforceRecord (`object`). */
  keepIdsOf?: ReadonlySet<string>;
  /** doctor's checks of one object, asked when a whole batch of it failed for a cause a retry cannot fix (writer.ts). */
  setupCheck?: ObjectCheck;
  /** `serve`: what this process last wrote to an action's owner fields from this user (DesiredState's keptOwner). */
  keptOwner?: (actionId: number, userId: number) => OwnerFingerprint | undefined;
  /** `serve`: whether a user's fields may stand as Salesforce holds them under the same owner link (DesiredState's ownerFromMirror). */
  ownerFromMirror?: (actionId: number, userId: number) => boolean;
  /** The gift projection: the donations of a batch the mirror wrote (a dry run: would write), after that write. */
  afterDonations?: (records: ApiDonation[], report: RunReport) => Promise<void>;
  /** The gift projection: the keys of parents (segments ... actions) this batch updated (a dry run: would), after that write. */
  afterParents?: (keys: string[], report: RunReport) => Promise<void>;
}

interface ScanHooks {
  /** Page to start a type at (resume); 1 when absent. */
  startPage?(type: SyncableType): number;
  /** Called after the records of pages up to `page` are written. */
  pageDone?(type: SyncableType, page: number): void | Promise<void>;
  typeDone?(type: SyncableType): void | Promise<void>;
  /** Each scanned page as listed (and the ids that could not be fetched), before it is written. */
  pageRecords?: (<T extends SyncableType>(type: T, records: ApiRecordOf[T][], failedIds: number[]) => void) | undefined;
}

/** An action whose owner fields a run settled: the owner, and what the write leaves in those fields. */
interface SettledOwner extends OwnerPair {
  fields: OwnerFingerprint;
}

const NOT_FOUND = 'not found on the platform (deleted or never existed)';
/** How the absence was established: a request that answered 404, or a complete list scan (no request). */
const NOT_FOUND_BY_ID = `${NOT_FOUND}: 404 by id`;
const NOT_FOUND_IN_SCAN = `${NOT_FOUND}: not in a complete list scan`;

export class SyncEngine {
  readonly report: RunReport;
  /** Action -> owner pairs seen in this run (the webhook worker re-syncs actions on users.update). */
  private readonly owners: OwnerPair[] = [];
  /** Action -> owner pairs whose owner fields this run read from the platform or kept as written, with what they hold. */
  private readonly settled: SettledOwner[] = [];
  private readonly cache = new RecordCache();
  private readonly done = new Map<ObjectType, number>();
  /** Ids fetched so far per type (the fetch phase's progress). */
  private readonly fetched = new Map<ObjectType, number>();
  /** Progress totals: ids asked for, or the scanned list's total_entries. */
  private readonly totals = new Map<ObjectType, number>();
  private readonly writer: RecordWriter;
  private readonly desired: DesiredState;
  /** Parents this run found absent from the platform (by a 404 or a complete list scan), kept for a resumed run. */
  private readonly absent = new Map<string, AbsentParent['by']>();

  constructor(
    private readonly source: RecordSource,
    private readonly sink: CrmSink,
    private readonly opts: EngineOptions,
    report?: RunReport,
  ) {
    this.report = report ?? new RunReport();
    this.writer = new RecordWriter(sink, opts, this.report, this.cache);
    this.desired = new DesiredState(source, sink, this.cache, {
      ensureParents: (refs, namedBefore) => this.ensureParents(refs, namedBefore),
      mapping: (type) => this.opts.onProgress?.({ type, phase: 'map', done: this.done.get(type) ?? 0, total: this.totals.get(type) }),
      warn: (text) => this.report.warn(text),
      owner: (pair) => this.owners.push(pair),
      ownerSettled: (pair, fields) => this.settled.push({ ...pair, fields }),
      ...(opts.keptOwner === undefined ? {} : { keptOwner: opts.keptOwner }),
      ...(opts.ownerFromMirror === undefined ? {} : { ownerFromMirror: opts.ownerFromMirror }),
      justRead: (keys, stored) => this.writer.justRead(keys, stored),
    });
  }

  /** The parents this run found absent from the platform so far (a resumed run starts from them). */
  absentParents(): AbsentParent[] {
    return [...this.absent].map(([key, by]) => ({ key, by }));
  }

  /**
   * Parents an earlier attempt of this run found absent (a resumed run): taken as found, so the
   * records still to do do not ask the platform again what this run already established. Other
   * parents the mirror lacks are still asked for.
   */
  absentBefore(parents: readonly AbsentParent[]): void {
    for (const { key, by } of parents) {
      const ref = refOfKey(key);
      if (ref === undefined) continue;
      this.absent.set(key, by);
      this.cache.markMissing(ref.type, key, by === 'id' ? NOT_FOUND_BY_ID : NOT_FOUND_IN_SCAN);
    }
  }

  /** The Salesforce object and Id of a kept record (keepIdsOf) this run wrote or found unchanged; undefined when none (or a dry run's insert). */
  salesforceRecord(ref: ObjectRef): { object: SObjectName; id: string } | undefined {
    const key = keyFor(ref.type, ref.id);
    const id = this.writer.keptIds.get(key);
    return id === undefined ? undefined : { object: SCHEMA[ref.type].apiName, id };
  }

  /** The action -> owner pairs seen so far in this run, a copy. */
  ownersSeen(): OwnerPair[] {
    return this.owners.map((p) => ({ ...p }));
  }

  /** The pairs whose owner fields this run settled (read from the platform, or kept as written), with what they hold. */
  ownersSettled(): SettledOwner[] {
    return this.settled.map((p) => ({ ...p }));
  }

  /**
   * Syncs the given objects (and any parent missing from Salesforce), each distinct ref once.
   * `changedSince`: the refs are known to have changed after it (webhooks; `changedSinceByType`
   * per type), which lets the platform side narrow a list scan; parents are fetched without it.
   */
  async syncRefs(refs: ObjectRef[], opts: { changedSince?: string; changedSinceByType?: Partial<Record<SyncableType, string>> } = {}): Promise<void> {
    const byType = new Map<SyncableType, Set<number>>();
    for (const ref of refs) byType.set(ref.type, (byType.get(ref.type) ?? new Set<number>()).add(ref.id));
    for (const type of SYNC_ORDER) {
      // A ref already synced in this run (as a parent) has its outcome; one merely read from
      // Salesforce as a parent has not, nor one only re-linked under a moved parent of this batch
      // (its own change is still to be written): those are synced like any other.
      const ids = [...(byType.get(type) ?? [])].filter((id) => !this.synced(keyFor(type, id)));
      if (ids.length > 0) this.totals.set(type, ids.length);
      this.source.named?.(type, ids);
      for (let i = 0; i < ids.length; i += this.opts.batchSize) {
        this.checkStop();
        await this.processRecords(type, { records: await this.fetch(type, ids.slice(i, i + this.opts.batchSize), true, opts.changedSinceByType?.[type] ?? opts.changedSince) });
      }
    }
  }

  /** Syncs whole collections from list scans (maybe narrowed by updated_after), page by page; a stop writes and saves the pages read, then is thrown. */
  async syncScan(types: readonly SyncableType[], filter: ScanFilter, hooks: ScanHooks = {}): Promise<void> {
    for (const type of SYNC_ORDER.filter((t) => types.includes(t))) {
      const batch = new ScanBatch<ApiRecordOf[SyncableType]>();
      const flush = async (): Promise<void> => {
        const taken = batch.take();
        this.finishing = true;
        await this.processRecords(type, taken).finally(() => (this.finishing = false));
        if (taken.last !== undefined) await hooks.pageDone?.(type, taken.last);
      };
      const pages = this.source.scan(type, { ...filter, fromPage: hooks.startPage?.(type) ?? 1 })[Symbol.asyncIterator]();
      let next = await nextPage(pages, this.opts.stop);
      for (; next !== undefined && next.done !== true; next = await nextPage(pages, this.opts.stop)) {
        const page = next.value;
        this.totals.set(type, page.totalEntries);
        batch.add(page.records, page.page, page.text);
        this.opts.onProgress?.({ type, phase: 'scan', done: batch.scanned, total: page.totalEntries });
        this.reportFailures(type, page.failed, true);
        hooks.pageRecords?.(type, page.records, [...page.failed.keys()]);
        // Stopped: the pages asked for ahead still come in (their requests may finish), no more is asked; then they are written.
        if (this.opts.stop?.aborted !== true) {
          if (batch.full(this.opts.batchSize)) await flush();
        } else if (batch.pastStop()) break;
      }
      const whole = next?.done === true;
      if (!whole) await pages.return?.();
      await flush();
      if (whole) await hooks.typeDone?.(type);
      this.checkStop();
    }
  }

  /**
   * Syncs the actions any of `userIds` owns, found by one complete scan of the action list
   * (owner.id): replay's users.update has no owners table, and a scan costs one request per page
   * for all its users together, where asking per user is not possible at all. Returns how many
   * owned actions were found (ones this run already synced are not written twice).
   */
  async syncActionsOwnedBy(userIds: ReadonlySet<number>): Promise<number> {
    let found = 0;
    let buffer: ApiRecordOf['action'][] = [];
    for await (const page of this.source.scan('action', {})) {
      this.checkStop();
      this.reportFailures('action', page.failed, true);
      for (const r of page.records) {
        const owner = ownerIdOf('action', r);
        if (owner === undefined || !userIds.has(owner)) continue;
        found++;
        if (!this.synced(keyFor('action', r.id))) buffer.push(r);
      }
      if (buffer.length >= this.opts.batchSize) {
        const handed = { records: buffer };
        buffer = [];
        await this.processRecords('action', handed);
      }
    }
    if (buffer.length > 0) await this.processRecords('action', { records: buffer });
    return found;
  }

  /** Whether this run has synced the record from the platform already (a re-link alone does not count). */
  synced(key: string): boolean {
    return this.report.outcomeOf(key) !== undefined && !this.writer.onlyRelinked(key);
  }

  private finishing = false; // a scan's batch of pages already read is being written: a stop waits for it
  private checkStop(): void {
    if (!this.finishing) this.opts.stop?.throwIfAborted();
  }

  /** Fetches records; 404s and failures become outcomes (when reported) and cache misses. */
  private async fetch<T extends SyncableType>(type: T, ids: number[], report: boolean, changedSince?: string, namedBefore?: string): Promise<ApiRecordOf[T][]> {
    this.checkStop();
    const res = await this.source.fetch(type, ids, { ...(changedSince === undefined ? {} : { updatedAfter: changedSince }), ...(namedBefore === undefined ? {} : { namedBefore }) });
    const fetched = (this.fetched.get(type) ?? 0) + ids.length;
    this.fetched.set(type, fetched);
    this.opts.onProgress?.({ type, phase: 'fetch', done: fetched, ...(report ? { total: this.totals.get(type) } : {}) });
    const object = SCHEMA[type].apiName;
    for (const id of res.notFound) {
      const key = keyFor(type, id);
      const byScan = res.absentFromScan?.has(id) === true;
      this.cache.markMissing(type, key, byScan ? NOT_FOUND_IN_SCAN : NOT_FOUND_BY_ID);
      if (isParentType(type)) this.absent.set(key, byScan ? 'scan' : 'id');
      if (report) this.report.add({ object, key, action: 'skip', reason: byScan ? NOT_FOUND_IN_SCAN : NOT_FOUND_BY_ID });
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

  /**
   * Maps, writes and follows up one batch. `handed.records` is emptied once mapped: the batch's API
   * records (a heavy batch's HTML) are not held while it is written; donations go on to the gifts.
   */
  private async processRecords<T extends SyncableType>(type: T, handed: { records: ApiRecordOf[T][] }): Promise<void> {
    if (handed.records.length === 0) return;
    const { results, keys, nested, donations } = await this.mapBatch(type, handed);
    await this.writeResults(type, results);
    if (donations !== undefined && this.opts.afterDonations) await this.afterDonations(donations, this.opts.afterDonations);
    if (isParentType(type) && this.opts.afterParents) {
      // Updates only (a dry run's too): a row inserted now has no campaign or gift yet.
      const changed = keys.filter((k) => this.report.outcomeOf(k)?.action === 'update');
      if (changed.length > 0) await this.opts.afterParents(changed, this.report);
    }
    if (nested) await this.writeNested(type, nested);
  }

  /** The batch mapped, with what its follow-ups need of the API records (their keys, nested records, donations). */
  private async mapBatch<T extends SyncableType>(type: T, handed: { records: ApiRecordOf[T][] }) {
    const { results, eligible } = await this.desired.map(type, handed.records);
    handed.records = [];
    const donations = type === 'donation' ? (eligible as ApiDonation[]) : undefined;
    return { results, keys: eligible.map((r) => keyFor(type, r.id)), nested: nestedOf(type, eligible), donations };
  }

  /** Only the donations whose mirror row stands (written or unchanged) go on to the projection. */
  private async afterDonations(records: ApiDonation[], project: NonNullable<EngineOptions['afterDonations']>): Promise<void> {
    const written = records.filter((d) => ['insert', 'update', 'unchanged'].includes(this.report.outcomeOf(keyFor('donation', d.id))?.action ?? 'fail'));
    if (written.length > 0) await project(written, this.report);
  }

  /** Records nested in those just written (an action's questions): written after their holder, or skipped with it. */
  private async writeNested(type: SyncableType, { type: nestedType, byHolder }: NestedOf): Promise<void> {
    const nested: MapResult[] = [];
    for (const { key, nested: records } of byHolder) {
      if (this.cache.record(key)) nested.push(...records);
      else for (const n of records) this.report.add({ object: n.object, key: n.key, action: 'skip', reason: `${type} ${key} was not written` });
    }
    await this.writeResults(nestedType, nested);
  }

  /**
   * Makes sure every parent is known: read from Salesforce in batches, and those missing there
   * fetched from the platform and written first (higher levels before lower ones).
   */
  private async ensureParents(refs: ParentRef[], namedBefore?: string): Promise<void> {
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
      const found = await this.sink.readByKeys(
        schema.apiName,
        wanted.map(([key]) => key),
        parentFieldsToRead(schema.apiName),
      );
      for (const record of found.values()) this.cache.put(type, record);
      const missing = wanted.filter(([key]) => !found.has(key));
      if (missing.length === 0) continue;
      this.writer.knownAbsent(missing.map(([key]) => key));
      const ids = missing.map(([, id]) => id);
      await this.processRecords(type, { records: await this.fetch(type, ids, false, undefined, namedBefore) });
    }
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
      const linked = this.desired.link([...mapped.values()]);
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
        // A donation to a donation form or the site: written with no lookups, counted, never a problem.
        if (m.outsideParent !== undefined) this.report.outsideParents.push({ object: schema.apiName, key: m.key, parent: m.outsideParent });
        if (m.parentProblem === undefined) continue;
        this.unlinked(type, { object: schema.apiName, key: m.key, parent: null, reason: m.parentProblem }, `no parent: ${m.parentProblem}`, skipped, warnings);
      }
      const records = linked.records.filter((r) => !skipped.has(recordKey(r)));
      this.checkStop();
      const done = this.done.get(type) ?? 0;
      const total = this.totals.get(type);
      const onProgress = this.opts.onProgress;
      await this.writer.write(schema, records, warnings, onProgress && ((step) => onProgress({ type, phase: 'write', done, total, step })));
    }
    this.done.set(type, (this.done.get(type) ?? 0) + results.length);
    this.opts.onProgress?.({ type, phase: 'write', done: this.done.get(type) ?? 0, total: this.totals.get(type) });
  }
}
