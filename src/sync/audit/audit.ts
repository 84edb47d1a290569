/**
 * `audit`: is Salesforce an exact mirror? Every record of the platform (complete, unfiltered list
 * scans) is mapped and linked as a sync would, and compared with Salesforce in batches with the
 * comparison skip-unchanged uses, so a fresh sync always audits clean. Then each object's keys in
 * Salesforce are walked page by page, and those the scan did not list are confirmed gone with one
 * by-id request each (a 404) before they are called orphans. Memory: one batch of records, one
 * page of keys, the parents' linking fields (as a sync keeps them) and 8 bytes per listed id.
 *
 * No record is called an orphan on a list page's word: one that a list page shows as no longer
 * eligible (a filter field blank or absent there) is judged again on its by-id record, and a
 * question whose action could not be fetched is "unknown", never an orphan. A type the platform
 * lists nothing of while Salesforce holds records, or whose candidates pass the deletion limit,
 * is not confirmed one by one (that would spend the hourly budget proving a wrong setting).
 */
import { parentFieldsToRead } from '../../mapping/link.js';
import { mapNested } from '../../mapping/map.js';
import { SCHEMA, type ObjectSchema } from '../../mapping/schema.js';
import type { MapResult, MappedRecord, ParentRef } from '../../mapping/types.js';
import type { ApiRecordOf } from '../../model/apiRecords.js';
import type { StoredRecord } from '../../model/crmRecords.js';
import { InterruptedError, isFatal } from '../../model/errors.js';
import { SYNC_ORDER, type ObjectType, type SObjectName, type SyncableType } from '../../model/objects.js';
import type { Progress } from '../../model/outcomes.js';
import type { AuditSink, RecordSource } from '../../model/ports.js';
import { keyFor, parsePositiveId, refOfKey } from '../../model/refs.js';
import { IdSet, PairSet, questionIdsOf } from './auditLedger.js';
import { emptyAuditCounts, type AuditCounts, type Candidate, type DriftRow, type OrphanRow, type QuestionCandidate } from './auditTypes.js';
import { BATCH_TEXT_BYTES, textSize } from '../mirror/batchBytes.js';
import { pendingId, RecordCache } from '../run/cache.js';
import { changesOf, DesiredState } from '../mirror/desired.js';

const GONE = 'gone from the platform: not listed, GET by id 404';

interface AuditOptions {
  /** Records compared together (one batch of reads per object per batch). */
  batchSize: number;
  /**
   * With --delete-orphans: the most orphans an object may have, given its mirror's size so far.
   * Candidates past it are counted but not confirmed by id (the run will be refused anyway).
   */
  orphanLimit?: (object: SObjectName, mirrored: number) => number;
  /** Confirm candidates even when the platform lists nothing of a type (an explicit --max-delete 100%). */
  confirmWhenEmpty?: boolean;
  /** Ctrl-C / SIGTERM: no new batch starts once aborted (its reason, an InterruptedError, is thrown). */
  stop?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /**
   * Called once a batch is compared, with the batch's records and their drift: `--fix` writes the
   * missing and stale ones right then, from records already in hand (no second platform read).
   */
  onBatch?: <T extends SyncableType>(type: T, records: ApiRecordOf[T][], drift: DriftRow[]) => Promise<void>;
}

export class Auditor {
  readonly drift: DriftRow[] = [];
  readonly orphans: OrphanRow[] = [];
  readonly counts = new Map<SObjectName, AuditCounts>();
  /** Records the audit could not judge (a fetch failed, a value cannot be mapped): the audit is incomplete. */
  readonly problems: string[] = [];
  readonly warnings: string[] = [];
  /**
   * Parents' linking fields as they will be once drift is fixed (a parent missing from Salesforce
   * has a stand-in Id): children are compared with what a sync would write, parents first.
   */
  private readonly parents = new RecordCache();
  private readonly desired: DesiredState;
  private readonly done = new Map<ObjectType, number>();
  private readonly questionsSeen = new PairSet();
  /** Per object: records the complete scan listed, and records Salesforce holds (the guards' figures). */
  readonly listedCount = new Map<SObjectName, number>();
  readonly mirrorCount = new Map<SObjectName, number>();
  /** Objects whose orphan candidates were not all confirmed: the platform listed none, or they passed the limit. */
  readonly unconfirmed = new Map<SObjectName, { candidates: number; why: 'empty' | 'limit' }>();
  /** Ids whose by-id or list fetch failed: their children are "unknown", never orphans. */
  private readonly failedIds = new Map<SyncableType, Set<number>>();
  /** Listed records a list page shows as no longer eligible: judged on their by-id record before they can be orphans. */
  private readonly ineligible = new Map<SyncableType, Array<{ id: number; key: string; sfId: string }>>();
  /** Questions a list page shows with a blank answer: judged on their action's by-id record. */
  private blankQuestions: Array<{ actionId: number; questionId: number; key: string; sfId: string }> = [];

  constructor(
    private readonly source: RecordSource,
    private readonly sink: AuditSink,
    private readonly opts: AuditOptions,
  ) {
    this.desired = new DesiredState(source, sink, this.parents, {
      ensureParents: (refs) => this.loadParents(refs),
      warn: (text) => this.warnings.push(text),
    });
  }

  /** Audits the given types (an action's questions with it), parents first. */
  async run(types: SyncableType[]): Promise<void> {
    for (const type of SYNC_ORDER.filter((t) => types.includes(t))) await this.auditType(type);
  }

  private checkStop(): void {
    const stop = this.opts.stop;
    if (stop?.aborted) throw stop.reason instanceof InterruptedError ? stop.reason : new InterruptedError('SIGINT');
  }

  private failed(type: SyncableType): Set<number> {
    let s = this.failedIds.get(type);
    if (!s) this.failedIds.set(type, (s = new Set()));
    return s;
  }

  private async auditType<T extends SyncableType>(type: T): Promise<void> {
    const listed = new IdSet();
    let buffer: ApiRecordOf[T][] = [];
    let bytes = 0;
    let total: number | undefined;
    for await (const page of this.source.scan(type, {})) {
      total = page.totalEntries;
      for (const r of page.records) listed.add(r.id);
      for (const [id, err] of page.failed) {
        // Listed, so not gone; but not compared either, and its children cannot be judged.
        listed.add(id);
        if (isFatal(err)) throw err;
        this.failed(type).add(id);
        this.problems.push(`${keyFor(type, id)}: could not be fetched: ${err.message}`);
      }
      buffer.push(...page.records);
      bytes += textSize(page.records);
      if (buffer.length >= this.opts.batchSize || bytes >= BATCH_TEXT_BYTES) {
        this.checkStop();
        await this.batch(type, buffer, total);
        buffer = [];
        bytes = 0;
      }
    }
    this.checkStop();
    if (buffer.length > 0) await this.batch(type, buffer, total);
    this.listedCount.set(SCHEMA[type].apiName, listed.count);
    await this.walk(type, listed);
    if (type === 'action') await this.walkQuestions(listed, this.questionsSeen.count);
  }

  private async batch<T extends SyncableType>(type: T, records: ApiRecordOf[T][], total?: number, confirmed = false): Promise<void> {
    const drift = await this.compare(type, records, confirmed);
    await this.opts.onBatch?.(type, records, drift);
    this.done.set(type, (this.done.get(type) ?? 0) + records.length);
    this.opts.onProgress?.({ type, done: this.done.get(type) ?? 0, total });
  }

  private count(object: SObjectName, kind: keyof AuditCounts): void {
    const c = this.counts.get(object) ?? emptyAuditCounts();
    c[kind]++;
    this.counts.set(object, c);
  }

  private add(row: DriftRow, id?: string): DriftRow {
    this.drift.push(row);
    this.count(row.object, row.kind);
    if (row.kind === 'orphan' && id) this.orphans.push({ ...row, kind: 'orphan', id });
    return row;
  }

  /** Maps one batch to its desired state (desired.ts, as a sync would) and compares it; returns its drift (also kept in `drift`). */
  private async compare<T extends SyncableType>(type: T, records: ApiRecordOf[T][], confirmed: boolean, onlyNested?: ReadonlySet<string>): Promise<DriftRow[]> {
    // Questions judged again from a by-id action: the action itself was compared already.
    const drift = onlyNested ? [] : await this.classify(SCHEMA[type], (await this.desired.map(type, records)).results, confirmed);
    const nestedRule = SCHEMA[type].context.nested;
    if (nestedRule) {
      // An action's questions: compared after their action, whose expected Id they link to.
      const nested = records.flatMap((r) => mapNested(type, r)).filter((q) => !onlyNested || onlyNested.has(q.key));
      for (const q of nested) {
        const ids = questionIdsOf(q.key);
        if (ids && !onlyNested) this.questionsSeen.add(ids.actionId, ids.questionId);
      }
      drift.push(...(await this.classify(SCHEMA[nestedRule.type], nested, confirmed)));
    }
    return drift;
  }

  /** Parents not met yet in this run are read from Salesforce (a sync links to what is there). */
  private async loadParents(refs: ParentRef[]): Promise<void> {
    const byType = new Map<SyncableType, Set<string>>();
    for (const ref of refs) {
      if (this.parents.has(ref.key)) continue;
      const keys = byType.get(ref.type) ?? new Set<string>();
      byType.set(ref.type, keys.add(ref.key));
    }
    for (const [type, keys] of byType) {
      const object = SCHEMA[type].apiName;
      const found = await this.sink.readByKeys(object, [...keys], parentFieldsToRead(object));
      for (const key of keys) {
        const record = found.get(key);
        if (record) this.parents.put(type, record);
        else this.parents.markMissing(type, key, 'not in Salesforce');
      }
    }
  }

  /** Sorts mapped results into in sync / missing / stale, and filtered-out ones Salesforce still holds into orphans. */
  private async classify(schema: ObjectSchema, results: MapResult[], confirmed: boolean): Promise<DriftRow[]> {
    const mapped: MappedRecord[] = [];
    const skipped: Array<{ key: string; reason: string }> = [];
    for (const r of results) {
      if (r.kind === 'record') mapped.push(r);
      else if (r.kind === 'skip') skipped.push({ key: r.key, reason: r.reason });
      else this.problems.push(`${r.object} ${r.key}: cannot be mapped (${r.error.code}: ${r.error.message})`);
    }
    const keys = [...mapped.map((m) => m.key), ...skipped.map((s) => s.key)];
    if (keys.length === 0) return [];
    const current = await this.desired.current(schema, keys);
    const linked = this.desired.link(mapped).records;
    const drift: DriftRow[] = [];
    mapped.forEach((m, i) => {
      const record = linked[i];
      const cur = current.get(m.key);
      if (!cur) drift.push(this.add({ object: schema.apiName, key: m.key, kind: 'missing' }));
      else {
        const fields = Object.keys(changesOf(schema, record, cur));
        if (fields.length > 0) drift.push(this.add({ object: schema.apiName, key: m.key, kind: 'stale', fields }));
        else this.count(schema.apiName, 'inSync');
      }
      // What a sync will leave in Salesforce: the children that follow link to it (the cache keeps parents' linking fields only).
      this.parents.put(schema.type, { ...(cur ?? {}), ...record, Id: cur?.Id ?? pendingId(m.key), SvcId__c: m.key } as StoredRecord);
    });
    for (const s of skipped) {
      const cur = current.get(s.key);
      if (!cur) continue;
      if (confirmed) {
        drift.push(this.add({ object: schema.apiName, key: s.key, kind: 'orphan', reason: `no longer eligible: ${s.reason} (by-id record)` }, cur.Id));
        continue;
      }
      // A list page's blank may be a field the list leaves out: the by-id record decides.
      const ref = refOfKey(s.key);
      const q = questionIdsOf(s.key);
      if (q) this.blankQuestions.push({ ...q, key: s.key, sfId: cur.Id });
      else if (ref) {
        const list = this.ineligible.get(ref.type) ?? [];
        this.ineligible.set(ref.type, list);
        list.push({ id: ref.id, key: s.key, sfId: cur.Id });
      }
    }
    return drift;
  }

  /** Salesforce's keys of one object, page by page: those the complete scan did not list are candidates. */
  private async walk<T extends SyncableType>(type: T, listed: IdSet): Promise<void> {
    const object = SCHEMA[type].apiName;
    const gate = this.candidateGate(object, listed.count === 0);
    // Listed but shown ineligible: a list page's word, not a sign of a wrong site; always judged by id.
    const ineligible = this.ineligible.get(type) ?? [];
    this.ineligible.delete(type);
    for (let i = 0; i < ineligible.length; i += this.opts.batchSize) await this.confirm(type, ineligible.slice(i, i + this.opts.batchSize));
    let candidates: Candidate[] = [];
    let mirrored = 0;
    for await (const rows of this.sink.scanKeys(object, [], listed.count)) {
      mirrored += rows.length;
      for (const row of rows) {
        const ref = refOfKey(row.SvcId__c);
        if (!ref || ref.type !== type) {
          this.warnings.push(`${object} ${row.SvcId__c}: not a key this tool writes; left alone`);
          continue;
        }
        if (!listed.has(ref.id)) candidates.push({ id: ref.id, key: row.SvcId__c, sfId: row.Id });
      }
      if (candidates.length >= this.opts.batchSize) {
        await this.confirm(type, gate(candidates, mirrored));
        candidates = [];
      }
    }
    if (candidates.length > 0) await this.confirm(type, gate(candidates, mirrored));
    this.mirrorCount.set(object, mirrored);
  }

  /**
   * Which candidates get a by-id request: none when the platform listed nothing of the type (a
   * wrong site or key, most likely), and none past the deletion limit; those are only counted.
   */
  private candidateGate(object: SObjectName, listedNothing: boolean): <C>(candidates: C[], mirrored: number) => C[] {
    let seen = 0;
    return <C>(candidates: C[], mirrored: number): C[] => {
      seen += candidates.length;
      const limit = this.opts.orphanLimit?.(object, mirrored);
      const why = listedNothing && !this.opts.confirmWhenEmpty ? 'empty' : limit !== undefined && seen > limit ? 'limit' : undefined;
      if (why === undefined) return candidates;
      this.unconfirmed.set(object, { candidates: seen, why });
      return [];
    };
  }

  /** One by-id request per candidate: a 404 makes it an orphan; a record found is compared like any other. */
  private async confirm<T extends SyncableType>(type: T, candidates: Candidate[]): Promise<void> {
    if (candidates.length === 0) return;
    this.checkStop();
    const res = await this.source.fetch(
      type,
      candidates.map((c) => c.id),
      { byId: true },
    );
    const gone = new Set(res.notFound);
    for (const c of candidates) {
      if (gone.has(c.id)) this.add({ object: SCHEMA[type].apiName, key: c.key, kind: 'orphan', reason: GONE }, c.sfId);
      const err = res.failed.get(c.id);
      if (err) {
        if (isFatal(err)) throw err;
        this.problems.push(`${c.key}: not in the list scan, and GET by id failed: ${err.message}`);
      }
    }
    // Found by id (created meanwhile, or shown ineligible by a partial list page): judged on the by-id record.
    if (res.records.size > 0) await this.batch(type, [...res.records.values()], undefined, true);
  }

  /** Questions in Salesforce that no scanned action has (any more), and those a list page shows blank. */
  private async walkQuestions(listedActions: IdSet, expected: number): Promise<void> {
    const object = SCHEMA.question.apiName;
    const gate = this.candidateGate(object, listedActions.count === 0);
    let pending: QuestionCandidate[] = this.blankQuestions;
    this.blankQuestions = [];
    let mirrored = 0;
    for await (const rows of this.sink.scanKeys(object, [], expected)) {
      mirrored += rows.length;
      for (const row of rows) {
        const ids = questionIdsOf(row.SvcId__c);
        if (!ids) {
          this.warnings.push(`${object} ${row.SvcId__c}: not a key this tool writes; left alone`);
          continue;
        }
        if (!this.questionsSeen.has(ids.actionId, ids.questionId)) pending.push({ ...ids, key: row.SvcId__c, sfId: row.Id });
      }
      if (pending.length >= this.opts.batchSize) {
        await this.settleQuestions(listedActions, gate(pending, mirrored));
        pending = [];
      }
    }
    if (pending.length > 0) await this.settleQuestions(listedActions, gate(pending, mirrored));
    this.mirrorCount.set(object, mirrored);
  }

  /**
   * Each candidate question is judged on its action's by-id record. An action that could not be
   * fetched (in the scan or now) leaves its questions unknown: never orphans.
   */
  private async settleQuestions(listedActions: IdSet, pending: QuestionCandidate[]): Promise<void> {
    if (pending.length === 0) return;
    this.checkStop();
    const object = SCHEMA.question.apiName;
    const failedInScan = this.failed('action');
    const wanted = [...new Set(pending.filter((p) => !failedInScan.has(p.actionId)).map((p) => p.actionId))];
    const res = wanted.length > 0 ? await this.source.fetch('action', wanted, { byId: true }) : undefined;
    const found = [...(res?.records.values() ?? [])];
    // Not in the list scan (created meanwhile): compared whole, as any action.
    const unlisted = found.filter((a) => !listedActions.has(a.id));
    if (unlisted.length > 0) await this.batch('action', unlisted, undefined, true);
    // Listed: only the questions in doubt, on the by-id record (the action itself was compared).
    const listed = found.filter((a) => listedActions.has(a.id));
    if (listed.length > 0) {
      const drift = await this.compare('action', listed, true, new Set(pending.map((p) => p.key)));
      await this.opts.onBatch?.('action', listed, drift);
    }
    const gone = new Set(res?.notFound ?? []);
    for (const p of pending) {
      const actionKey = keyFor('action', p.actionId);
      const action = res?.records.get(p.actionId);
      const err = res?.failed.get(p.actionId);
      if (err && isFatal(err)) throw err;
      if (action) {
        // Present in the by-id action: compared above, or an orphan there for its blank answer.
        if ((action.questions ?? []).some((q) => parsePositiveId(q?.id) === p.questionId)) continue;
        this.add({ object, key: p.key, kind: 'orphan', reason: `no longer in its action's questions (${actionKey}, by-id record)` }, p.sfId);
      } else if (gone.has(p.actionId)) {
        this.add({ object, key: p.key, kind: 'orphan', reason: `gone from the platform: its action ${actionKey} answers 404` }, p.sfId);
      } else {
        const why = err ? `GET ${actionKey} by id failed: ${err.message}` : `its action ${actionKey} could not be fetched`;
        this.problems.push(`${p.key}: unknown: parent not fetched (${why})`);
      }
    }
  }
}
