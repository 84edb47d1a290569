/**
 * `audit --fix`: once the whole comparison is done and the guards allow it (auditGuard.ts), the
 * missing and stale records go through the normal engine (parents first, lookups, batching,
 * skip-unchanged). The records behind the drift are kept from the comparison, up to HOLD_LIMIT,
 * so a usual fix costs no second platform read; past that the engine's planner fetches the rest.
 */
import type { ApiRecord, ApiRecordOf, ResourceType } from '../../model/apiRecords.js';
import type { ObjectRef, SyncableType } from '../../model/objects.js';
import type { CrmSink, FetchOptions, FetchResult, PlatformRequestCounts, RecordSource, ScanFilter, ScanPage } from '../../model/ports.js';
import { refOfKey } from '../../model/refs.js';
import type { DriftRow } from './auditTypes.js';
import { createEngine, type SyncEngine } from '../compose.js';
import { RunReport } from '../report/report.js';

/** A RecordSource that answers from records in hand first, and from the platform for the rest. */
class PrimedSource implements RecordSource {
  private primed = new Map<ResourceType, Map<number, ApiRecord>>();

  constructor(private readonly inner: RecordSource) {}

  /** Records kept so far. */
  get size(): number {
    let n = 0;
    for (const m of this.primed.values()) n += m.size;
    return n;
  }

  add(type: ResourceType, records: ApiRecord[]): void {
    let m = this.primed.get(type);
    if (!m) this.primed.set(type, (m = new Map()));
    for (const r of records) m.set(r.id, r);
  }

  clear(): void {
    this.primed.clear();
  }

  async fetch<T extends ResourceType>(type: T, ids: number[], options?: FetchOptions): Promise<FetchResult<ApiRecordOf[T]>> {
    const inHand = this.primed.get(type);
    const rest = inHand ? ids.filter((id) => !inHand.has(id)) : ids;
    const res: FetchResult<ApiRecordOf[T]> = rest.length > 0 ? await this.inner.fetch(type, rest, options) : { records: new Map(), notFound: [], failed: new Map() };
    if (!inHand) return res;
    for (const id of ids) {
      const record = inHand.get(id);
      if (record === undefined) continue;
      // Primed under `type`, so each is an ApiRecordOf[T].
      res.records.set(id, record as ApiRecordOf[T]);
      // The engine asks for each record once (a written one is in its cache): handed over, it is
      // not held here for the rest of the fix (a fundraising page's HTML alone can be 30 KB).
      inHand.delete(id);
    }
    return res;
  }

  scan<T extends ResourceType>(type: T, filter: ScanFilter): AsyncIterable<ScanPage<ApiRecordOf[T]>> {
    return this.inner.scan(type, filter);
  }

  requests(): PlatformRequestCounts {
    return this.inner.requests();
  }
}

/** Records of drift kept from the comparison for the fix (about 2 KB each); the rest is fetched again. */
const HOLD_LIMIT = 5000;

export class AuditFixer {
  readonly engine: SyncEngine;
  private readonly primed: PrimedSource;

  constructor(source: RecordSource, sink: CrmSink, opts: { dryRun: boolean; batchSize: number; stop?: AbortSignal }) {
    this.primed = new PrimedSource(source);
    this.engine = createEngine(
      { source: this.primed, sink },
      { dryRun: opts.dryRun, force: false, strictParents: false, batchSize: opts.batchSize, ...(opts.stop ? { stop: opts.stop } : {}) },
      new RunReport(),
    );
  }

  /** Keeps the batch's records that have drift to fix (a question's through its action). */
  hold<T extends SyncableType>(type: T, records: ApiRecordOf[T][], drift: DriftRow[]): void {
    const ids = new Set<number>();
    for (const row of drift) {
      if (row.kind === 'orphan') continue;
      const ref = refOfKey(row.key);
      if (ref && ref.type === type) ids.add(ref.id);
    }
    if (ids.size === 0 || this.primed.size + ids.size > HOLD_LIMIT) return;
    this.primed.add(
      type,
      records.filter((r) => ids.has(r.id)),
    );
  }

  /** Writes every missing and stale record of the audit, parents first. */
  async fixAll(drift: DriftRow[]): Promise<void> {
    const refs = new Map<string, ObjectRef>();
    for (const row of drift) {
      if (row.kind === 'orphan') continue;
      const ref = refOfKey(row.key);
      if (ref) refs.set(`${ref.type}:${ref.id}`, ref);
    }
    try {
      if (refs.size > 0) await this.engine.syncRefs([...refs.values()]);
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
