/**
 * `audit --fix`: the missing and stale records of each compared batch go through the normal
 * engine right away (parents first, lookups, batching, skip-unchanged), served from the records
 * the audit already holds, so fixing costs no second platform read of them.
 */
import type { ApiRecord, ApiRecordOf, ResourceType } from '../model/apiRecords.js';
import type { ObjectRef, SyncableType } from '../model/objects.js';
import type { CrmSink, FetchOptions, FetchResult, PlatformRequestCounts, RecordSource, ScanFilter, ScanPage } from '../model/ports.js';
import { refOfKey } from '../model/refs.js';
import type { DriftRow } from './auditTypes.js';
import { createEngine, type SyncEngine } from './compose.js';
import { RunReport } from './report.js';

/** A RecordSource that answers from records in hand first, and from the platform for the rest. */
class PrimedSource implements RecordSource {
  private primed = new Map<ResourceType, Map<number, ApiRecord>>();

  constructor(private readonly inner: RecordSource) {}

  prime(type: ResourceType, records: ApiRecord[]): void {
    this.primed.set(type, new Map(records.map((r) => [r.id, r])));
  }

  clear(): void {
    this.primed.clear();
  }

  async fetch<T extends ResourceType>(type: T, ids: number[], options?: FetchOptions): Promise<FetchResult<ApiRecordOf[T]>> {
    const inHand = this.primed.get(type);
    const rest = inHand ? ids.filter((id) => !inHand.has(id)) : ids;
    const res: FetchResult<ApiRecordOf[T]> = rest.length > 0 ? await this.inner.fetch(type, rest, options) : { records: new Map(), notFound: [], failed: new Map() };
    // Primed under `type`, so each is an ApiRecordOf[T].
    if (inHand) for (const id of ids) if (inHand.has(id)) res.records.set(id, inHand.get(id) as ApiRecordOf[T]);
    return res;
  }

  scan<T extends ResourceType>(type: T, filter: ScanFilter): AsyncIterable<ScanPage<ApiRecordOf[T]>> {
    return this.inner.scan(type, filter);
  }

  requests(): PlatformRequestCounts {
    return this.inner.requests();
  }
}

export class AuditFixer {
  readonly engine: SyncEngine;
  private readonly primed: PrimedSource;

  constructor(source: RecordSource, sink: CrmSink, opts: { dryRun: boolean; batchSize: number }) {
    this.primed = new PrimedSource(source);
    this.engine = createEngine({ source: this.primed, sink }, { dryRun: opts.dryRun, force: false, strictParents: false, batchSize: opts.batchSize }, new RunReport());
  }

  /** Writes the batch's missing and stale records (a question through its action). */
  async fixBatch<T extends SyncableType>(type: T, records: ApiRecordOf[T][], drift: DriftRow[]): Promise<void> {
    const refs = new Map<string, ObjectRef>();
    for (const row of drift) {
      if (row.kind === 'orphan') continue;
      const ref = refOfKey(row.key);
      if (ref) refs.set(`${ref.type}:${ref.id}`, ref);
    }
    if (refs.size === 0) return;
    this.primed.prime(type, records);
    try {
      await this.engine.syncRefs([...refs.values()]);
    } finally {
      this.primed.clear();
    }
  }

  /** Whether the engine wrote (or found already right) the record of a drift row. */
  fixed(row: DriftRow): boolean {
    const action = this.engine.report.outcomeOf(row.key)?.action;
    return action === 'insert' || action === 'update' || action === 'unchanged';
  }
}
