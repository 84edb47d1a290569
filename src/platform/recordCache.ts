/** The platform source's run cache: records read, ids found gone, and which listed records are worth keeping. */
import type { ApiRecord, ApiRecordOf, ResourceType } from '../model/apiRecords.js';

/** A record of a type, as stored in the type-erased cache. */
export function asTyped<T extends ResourceType>(_type: T, record: ApiRecord): ApiRecordOf[T] {
  // The cache is keyed by type, so a record stored under `type` is an ApiRecordOf[type].
  return record as ApiRecordOf[T];
}

/**
 * Types no other record points at: a list page of them read to fetch some ids keeps only those
 * (a serve batch's changed-since list holds the whole backlog, about 1.1 KB a donation). Parents
 * and owners are kept whole: children of the run name them later.
 */
const LEAF_TYPES: ReadonlySet<ResourceType> = new Set<ResourceType>(['donation', 'newsletter_subscription']);

export class RecordCache {
  private readonly records = new Map<ResourceType, Map<number, ApiRecord>>();
  private readonly missing = new Map<ResourceType, Set<number>>();
  /** Ids of leaf types the run was told it will ask for (every ref of a batch, before its first fetch). */
  private readonly named = new Map<ResourceType, Set<number>>();

  get(type: ResourceType, id: number): ApiRecord | undefined {
    return this.records.get(type)?.get(id);
  }

  has(type: ResourceType, id: number): boolean {
    return this.records.get(type)?.has(id) === true;
  }

  gone(type: ResourceType, id: number): boolean {
    return this.missing.get(type)?.has(id) === true;
  }

  notFound(type: ResourceType, id: number): void {
    let gone = this.missing.get(type);
    if (!gone) this.missing.set(type, (gone = new Set()));
    gone.add(id);
  }

  name(type: ResourceType, ids: readonly number[]): void {
    if (!LEAF_TYPES.has(type)) return;
    let known = this.named.get(type);
    if (!known) this.named.set(type, (known = new Set()));
    for (const id of ids) known.add(id);
  }

  store(type: ResourceType, records: readonly ApiRecord[]): void {
    let byId = this.records.get(type);
    if (!byId) this.records.set(type, (byId = new Map()));
    for (const record of records) byId.set(record.id, record);
  }

  /** A list page read for a fetch: its records of a leaf type only when asked or named; false when some were left out. */
  storeListed(type: ResourceType, records: readonly ApiRecord[], asked: ReadonlySet<number>): boolean {
    if (!LEAF_TYPES.has(type)) {
      this.store(type, records);
      return true;
    }
    const named = this.named.get(type);
    const kept = records.filter((r) => asked.has(r.id) || named?.has(r.id) === true);
    this.store(type, kept);
    return kept.length === records.length;
  }
}
