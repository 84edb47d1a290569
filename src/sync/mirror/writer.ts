/**
 * write: what Salesforce holds against what the mapping made (skip-unchanged, the dry-run diff),
 * batched upserts with per-record outcomes, and the re-link of descendants when a record's
 * lookups change. Talks to Salesforce only through the CrmSink port.
 */
import { lookupFields, type ObjectSchema } from '../../mapping/schema.js';
import { recordKey, type CrmRecord, type StoredRecord, type UpsertOutcome } from '../../model/crmRecords.js';
import type { ObjectType, SObjectName } from '../../model/objects.js';
import type { Changes, WriteStep } from '../../model/outcomes.js';
import { OrgSetupError } from '../../model/errors.js';
import type { CrmSink, ObjectCheck } from '../../model/ports.js';
import { KEY_FIELD } from '../../model/refs.js';
import { pendingId, type RecordCache } from '../run/cache.js';
import { changesOf, currentOf } from './desired.js';
import { carriedDown, planRelink } from './relink.js';
import { mayBeOrgSetup } from '../report/failureGroups.js';
import type { RunReport } from '../report/report.js';

interface WriterOptions {
  dryRun: boolean;
  /** Write records even when Salesforce already holds the same values. */
  force: boolean;
  /** Keys whose Salesforce Id the run keeps (`object` prints it); none for a scan of millions. */
  keepIdsOf?: ReadonlySet<string> | undefined;
  /** doctor's checks of one object: asked when a whole batch of it failed for a cause a retry cannot fix. */
  setupCheck?: ObjectCheck | undefined;
}

export class RecordWriter {
  /** Parents just read and not found in Salesforce: writing them needs no second read. */
  private readonly absentInSalesforce = new Set<string>();
  /** Keys just read with every compared field: their write's diff uses that read (taken once). */
  private readonly readBefore = new Map<string, StoredRecord>();
  /** The Salesforce Id of each kept key (keepIdsOf) this run wrote or found unchanged. */
  readonly keptIds = new Map<string, string>();

  private keepId(key: string, id: string): void {
    if (this.opts.keepIdsOf?.has(key) && id !== pendingId(key)) this.keptIds.set(key, id);
  }

  constructor(
    private readonly sink: CrmSink,
    private readonly opts: WriterOptions,
    private readonly report: RunReport,
    private readonly cache: RecordCache,
  ) {}

  /** Keys whose only write in this run was a re-link (a parent moved): not synced from the platform yet. */
  private readonly relinkedOnly = new Set<string>();

  /** Whether this key's outcome so far is a re-link alone: the record's own sync is still to come. */
  onlyRelinked(key: string): boolean {
    return this.relinkedOnly.has(key);
  }

  /** Keys just read and found absent from Salesforce: their write skips the read before it. */
  knownAbsent(keys: string[]): void {
    for (const k of keys) this.absentInSalesforce.add(k);
  }

  /** Keys just read with every field the diff compares (the owner check's read): their write compares with that. */
  justRead(keys: readonly string[], stored: ReadonlyMap<string, StoredRecord>): void {
    for (const k of keys) {
      const record = stored.get(k);
      if (record === undefined) this.absentInSalesforce.add(k);
      else this.readBefore.set(k, record);
    }
  }

  /** diff -> upsert (or, in a dry run, the outcomes it would have) -> re-link of moved records' descendants. */
  async write(schema: ObjectSchema, records: CrmRecord[], warnings: Map<string, string[]>, onStep?: (step: WriteStep) => void): Promise<void> {
    if (records.length === 0) return;
    const keys = records.map((r) => recordKey(r));
    for (const k of keys) this.relinkedOnly.delete(k);
    const known = new Map<string, StoredRecord>();
    for (const k of keys) {
      const record = this.readBefore.get(k);
      if (record !== undefined) known.set(k, record);
      this.readBefore.delete(k);
    }
    const toRead = keys.filter((k) => !this.absentInSalesforce.has(k) && !known.has(k));
    for (const k of keys) this.absentInSalesforce.delete(k);
    const current = toRead.length > 0 ? await currentOf(this.sink, schema, toRead) : new Map<string, StoredRecord>();
    for (const [k, record] of known) current.set(k, record);
    const toWrite: Array<{ record: CrmRecord; current: StoredRecord | undefined; changes: Changes }> = [];
    for (const record of records) {
      const key = recordKey(record);
      const cur = current.get(key);
      // A record Salesforce does not hold is an insert: its field-by-field diff is only made if the
      // upsert says it updated after all (a batch of 5,000 new records would build 100,000 of them).
      const changes = cur ? changesOf(schema, record, cur) : {};
      const w = warnings.get(key) ?? [];
      for (const text of w) this.report.warn(`${key}: ${text}`);
      if (cur && Object.keys(changes).length === 0 && !this.opts.force) {
        this.cache.put(schema.type, cur);
        this.keepId(key, cur.Id);
        this.report.add({ object: schema.apiName, key, action: 'unchanged', ...(w.length ? { warnings: w } : {}) });
      } else {
        toWrite.push({ record, current: cur, changes });
      }
    }
    if (toWrite.length === 0) return;

    const outcomes: UpsertOutcome[] = this.opts.dryRun
      ? toWrite.map(({ record, current: cur }) => (cur ? { key: recordKey(record), status: 'updated', id: cur.Id } : { key: recordKey(record), status: 'created', id: pendingId(recordKey(record)) }))
      : await this.sink.upsert(
          schema.apiName,
          toWrite.map((w) => w.record),
          onStep,
        );
    const byKey = new Map(outcomes.map((o) => [o.key, o]));
    const moved: StoredRecord[] = [];
    const lookupNames = lookupFields(schema).map((f) => f.name);
    for (const { record, current: cur, changes } of toWrite) {
      const key = recordKey(record);
      const w = warnings.get(key) ?? [];
      const extra = w.length ? { warnings: w } : {};
      const outcome = byKey.get(key) ?? { key, status: 'failed' as const, error: { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } };
      if (outcome.status === 'failed') {
        this.cache.markMissing(schema.type, key, `${outcome.error.code}: ${outcome.error.message}`, true);
        this.report.add({ object: schema.apiName, key, action: 'fail', error: outcome.error, ...extra });
        continue;
      }
      const stored = { ...(cur ?? {}), ...record, Id: outcome.id, [KEY_FIELD]: key } as StoredRecord;
      this.cache.put(schema.type, stored);
      this.keepId(key, outcome.id);
      if (outcome.status === 'created' && !cur) {
        this.report.add({ object: schema.apiName, key, action: 'insert', ...extra });
      } else {
        this.report.add({ object: schema.apiName, key, action: 'update', changes: cur ? changes : changesOf(schema, record, undefined), ...extra });
        if (cur && carriedDown(schema.type, Object.keys(changes), lookupNames)) moved.push(stored);
      }
    }
    await this.stopIfEveryWriteFails(schema.apiName, toWrite.length, outcomes);
    if (moved.length > 0) await this.relink(schema.type, moved);
  }

  /** Objects doctor's checks were asked about in this run: once each, so a clean answer costs one call. */
  private readonly setupChecked = new Set<SObjectName>();

  /**
   * A whole batch refused for a cause a retry cannot fix (a field missing or read-only, no access):
   * doctor's checks of the object (one describe call), and when they confirm that every write of
   * it fails, the run stops here, before its next write. A healthy run never asks.
   */
  private async stopIfEveryWriteFails(object: SObjectName, sent: number, outcomes: readonly UpsertOutcome[]): Promise<void> {
    const check = this.opts.setupCheck;
    if (check === undefined || this.opts.dryRun || this.setupChecked.has(object)) return;
    const refused = outcomes.filter((o) => o.status === 'failed' && mayBeOrgSetup(o.error.code));
    if (refused.length === 0 || refused.length < sent) return;
    this.setupChecked.add(object);
    const problem = await check(object);
    if (problem === undefined) return;
    const more = problem.findings > 1 ? ` (and ${problem.findings - 1} more such problems)` : '';
    throw new OrgSetupError(object, `every write of ${object} fails: ${problem.cause}${more}; the run stopped before its next write; next: svc-sync doctor`);
  }

  /** Carries changed lookups (and a target's new external reference) down to descendants already in Salesforce. */
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
        ? list.map((u) => ({ key: u.current[KEY_FIELD], status: 'updated', id: u.current.Id }))
        : await this.sink.upsert(
            object,
            list.map((u) => u.next),
          );
      const byKey = new Map(outcomes.map((o) => [o.key, o]));
      for (const u of list) {
        const key = u.current[KEY_FIELD];
        const o = byKey.get(key);
        const changes: Changes = {};
        for (const [f, to] of Object.entries(u.next)) if (f !== KEY_FIELD) changes[f] = { from: u.current[f] ?? null, to };
        if (!o || o.status === 'failed') {
          this.report.add({ object, key, action: 'fail', error: o?.status === 'failed' ? o.error : { code: 'NO_RESULT', message: 'no result' } });
        } else {
          this.relinkedOnly.add(key);
          const moved = Object.entries(changes).some(([f, c]) => f !== 'ExternalReference__c' && c.from !== c.to);
          this.report.add({ object, key, action: 'update', changes, reason: moved ? 'parent moved: inherited lookups follow' : 'target changed: its external reference follows' });
        }
      }
    }
  }
}
