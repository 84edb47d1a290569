/**
 * `keys qualify`: an org one site filled with bare keys (`Donation_123`) moved onto the site's
 * qualified keys (`6:Donation_123`) by updating each record by its Id, so nothing is inserted,
 * deleted or re-linked (SITES.md, "Migration"). A survey of every key comes first and decides:
 * keys of another site beside bare ones mean nobody can tell whose the bare keys are, and nothing
 * is written. Qualified keys are left alone: a second run writes nothing.
 */
import type { CrmError, CrmRecord, StoredRecord } from '../../model/crmRecords.js';
import type { SObjectName } from '../../model/objects.js';
import type { KeySink } from '../../model/ports.js';
import { RunReport } from '../report/report.js';
import { parseSiteKey, qualifyKey } from '../../model/siteKeys.js';
import { KEY_FIELDS, type KeyField, type KeySource } from './keyFields.js';

/** Per object: records read, and the keys among them by kind (a record may hold several keys). */
interface KeyCounts {
  records: number;
  /** Records with at least one bare key: the ones --apply updates. */
  bare: number;
  /** Records whose keys all carry this connection's site already. */
  qualified: number;
  /** Records holding a key of another site. */
  otherSites: number;
  /** --apply: records updated, and failed. */
  updated: number;
  failed: number;
}

/** One record's change, as the dry run shows a sample of them. */
interface KeyChange {
  object: string;
  id: string;
  field: string;
  from: string;
  to: string;
}

/** The `result` of `keys qualify --json` (documented in docs/administration.md). */
export interface QualifyResult {
  command: 'keys qualify';
  dryRun: boolean;
  siteId: number;
  /** The mirror's eight objects, then the gift side's and the run log's errors where the org has them. */
  objects: Partial<Record<SObjectName, KeyCounts>> & Record<string, KeyCounts>;
  /** Records with a bare key, over every object: what --apply rewrites. */
  bare: number;
  updated: number;
  failed: number;
  /** Up to ten changes, first found first. */
  sample: KeyChange[];
  /** The sites other than this one whose keys the org holds. */
  otherSites: number[];
  failures: Array<{ object: string; id: string; key: string; error: CrmError }>;
  /** Why nothing was written (exit 2). */
  refused?: string;
  requests: { salesforce: number };
}

interface QualifyOptions {
  siteId: number;
  apply: boolean;
  stop?: AbortSignal;
  /** Keys beyond the mirror's: the gift side's (with SVC_PROJECTION on) and the run log's errors; each only where the org has it. */
  extra?: readonly KeySource[];
}

const SAMPLE = 10;
/** The run log's errors: their keys move with the records', but they are no record of the run's report. */
const LOG_ERRORS = 'Svc_SyncError__c';

const emptyCounts = (): KeyCounts => ({ records: 0, bare: 0, qualified: 0, otherSites: 0, updated: 0, failed: 0 });

/** The key a field's value holds (after `D:` for a per-donation donor key); undefined when it holds none. */
function keyIn(f: KeyField, v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  if (f.after === undefined) return v;
  return v.startsWith(f.after) && v.length > f.after.length ? v.slice(f.after.length) : undefined;
}

/** The record's keys rewritten with the site, or a reason it cannot be (a key would not fit its field). */
function changeOf(row: StoredRecord, fields: readonly KeyField[], siteId: number): { values: CrmRecord; changes: Array<[string, string, string]> } | { tooLong: string } | undefined {
  const values: CrmRecord = {};
  const changes: Array<[string, string, string]> = [];
  for (const f of fields) {
    const v = row[f.name];
    const key = keyIn(f, v);
    if (typeof v !== 'string' || key === undefined || parseSiteKey(key).site !== undefined) continue;
    const to = (f.after ?? '') + qualifyKey(siteId, key);
    if (to.length > f.length) return { tooLong: `${f.name} ${to} is longer than the field's ${f.length} characters` };
    values[f.name] = to;
    changes.push([f.name, v, to]);
  }
  return changes.length === 0 ? undefined : { values, changes };
}

export class KeyQualifier {
  readonly report = new RunReport();
  private readonly result: QualifyResult;
  private readonly others = new Set<number>();

  constructor(
    private readonly sink: KeySink,
    private readonly opts: QualifyOptions,
  ) {
    this.result = {
      command: 'keys qualify',
      dryRun: !opts.apply,
      siteId: opts.siteId,
      objects: {},
      bare: 0,
      updated: 0,
      failed: 0,
      sample: [],
      otherSites: [],
      failures: [],
      requests: { salesforce: 0 },
    };
  }

  /** The survey, then (with --apply, and nothing refused) the updates. */
  async run(): Promise<QualifyResult> {
    const sources: KeySource[] = [...KEY_FIELDS];
    for (const s of this.opts.extra ?? [])
      if (
        await this.sink.hasFields(
          s.object,
          s.fields.map((f) => f.name),
        )
      )
        sources.push(s);
    for (const s of sources) await this.survey(s);
    const r = this.result;
    r.otherSites = [...this.others].sort((a, b) => a - b);
    if (r.bare > 0 && r.otherSites.length > 0) {
      const sites = r.otherSites.map((s) => `site ${s}`).join(', ');
      r.refused = `the org holds keys of ${sites} beside ${r.bare} records with bare keys: cannot tell whose bare keys they are; nothing was written`;
    }
    if (this.opts.apply && r.refused === undefined && r.bare > 0) {
      for (const s of sources) if ((r.objects[s.object]?.bare ?? 0) > 0) await this.rewrite(s);
    }
    r.requests.salesforce = this.sink.calls().total;
    return r;
  }

  private async survey({ object, fields, where }: KeySource): Promise<void> {
    const counts = emptyCounts();
    this.result.objects[object] = counts;
    for await (const page of this.sink.scanWhere(
      object,
      fields.map((f) => f.name),
      where,
    )) {
      this.opts.stop?.throwIfAborted();
      for (const row of page) {
        counts.records++;
        const sites = fields.flatMap((f) => {
          const key = keyIn(f, row[f.name]);
          return key === undefined ? [] : [parseSiteKey(key).site];
        });
        const foreign = sites.filter((s): s is number => s !== undefined && s !== this.opts.siteId);
        for (const s of foreign) this.others.add(s);
        if (foreign.length > 0) counts.otherSites++;
        if (sites.includes(undefined)) counts.bare++;
        else if (foreign.length === 0) counts.qualified++;
        const change = sites.includes(undefined) ? changeOf(row, fields, this.opts.siteId) : undefined;
        if (change && 'changes' in change) {
          for (const [field, from, to] of change.changes) if (this.result.sample.length < SAMPLE) this.result.sample.push({ object, id: row.Id, field, from, to });
        }
      }
    }
    this.result.bare += counts.bare;
  }

  /** Every record with a bare key, updated by Id page by page (Collections of 200, or Bulk above the threshold). */
  private async rewrite({ object, fields, where }: KeySource): Promise<void> {
    const counts = this.result.objects[object] ?? emptyCounts();
    for await (const page of this.sink.scanWhere(
      object,
      fields.map((f) => f.name),
      where,
      counts.records,
    )) {
      this.opts.stop?.throwIfAborted();
      const updates: Array<CrmRecord & { Id: string }> = [];
      const keyOf = new Map<string, string>();
      for (const row of page) {
        const change = changeOf(row, fields, this.opts.siteId);
        if (change === undefined) continue;
        if ('tooLong' in change) {
          this.fail(object, row.Id, String(row[(fields[0] as KeyField).name]), { code: 'KEY_TOO_LONG', message: change.tooLong });
          continue;
        }
        updates.push({ Id: row.Id, ...change.values });
        const main = (fields[0] as KeyField).name;
        keyOf.set(row.Id, String(change.values[main] ?? row[main]));
      }
      for (const o of await this.sink.updateByIds(object, updates)) {
        const key = keyOf.get(o.key) ?? o.key;
        if (o.status === 'failed') this.fail(object, o.key, key, o.error);
        else {
          counts.updated++;
          this.result.updated++;
          if (object !== LOG_ERRORS) this.report.add({ object, key, action: 'update' });
        }
      }
    }
  }

  private fail(object: KeySource['object'], id: string, key: string, error: CrmError): void {
    const counts = this.result.objects[object];
    if (counts) counts.failed++;
    this.result.failed++;
    this.result.failures.push({ object, id, key, error });
    if (object !== LOG_ERRORS) this.report.add({ object, key, action: 'fail', error });
  }
}
