/**
 * The projection: what Salesforce should hold for a batch of platform records. Parents, owner
 * users, map, link and compare are written here once; the engine writes what it projects, the
 * writer compares through it, and the audit counts the difference. Two copies of these steps
 * could drift apart, and then a fresh sync would no longer audit clean.
 */
import type { FieldType } from '../mapping/fieldTypes.js';
import { linkRecords, type LinkResult } from '../mapping/link.js';
import { filteredOut, mapInContext, ownerIdOf, parentRef } from '../mapping/map.js';
import { NAME_FIELD, NAME_LENGTH, SCHEMA, SCHEMAS, writableFieldNames, type ObjectSchema } from '../mapping/schema.js';
import type { MappedRecord, MapResult, ParentRef } from '../mapping/types.js';
import type { ApiRecordOf, ApiUser } from '../model/apiRecords.js';
import type { CrmRecord, StoredRecord } from '../model/crmRecords.js';
import { isFatal } from '../model/errors.js';
import type { SObjectName, SyncableType } from '../model/objects.js';
import type { Changes, OwnerPair } from '../model/outcomes.js';
import type { CrmSink, RecordSource } from '../model/ports.js';
import type { RecordCache } from './cache.js';
import { diffRecord } from './diff.js';

/** How a run makes a batch's parents known before mapping it, and what it tells on the way. */
interface ProjectionHooks {
  /** The engine reads parents and writes those Salesforce lacks; the audit only reads them. */
  ensureParents(refs: ParentRef[]): Promise<void>;
  /** After the parents, before the owners: the engine's "map" progress. */
  mapping?(type: SyncableType): void;
  /** An owner's user record could not be fetched (the record is mapped without user fields). */
  warn(text: string): void;
  /** Each record's owner, as met (the webhook worker re-syncs actions on users.update). */
  owner?(pair: OwnerPair): void;
}

export class Projection {
  constructor(
    private readonly source: Pick<RecordSource, 'fetch'>,
    private readonly sink: Pick<CrmSink, 'readByKeys'>,
    /** Parents by key: read from Salesforce, or written (or to be written) in this run. */
    private readonly parents: RecordCache,
    private readonly hooks: ProjectionHooks,
  ) {}

  /**
   * map: records a filter leaves out on their own fields become skips before any parent is
   * looked at (a left-out record never causes a parent write); the rest get their parents
   * ensured, their owners fetched, and are mapped in that context. `eligible`: the records mapped.
   */
  async map<T extends SyncableType>(type: T, records: readonly ApiRecordOf[T][]): Promise<{ results: MapResult[]; eligible: ApiRecordOf[T][] }> {
    const results: MapResult[] = [];
    const eligible: ApiRecordOf[T][] = [];
    for (const record of records) {
      const skip = filteredOut(type, record);
      if (skip) results.push(skip);
      else eligible.push(record);
    }
    if (eligible.length === 0) return { results, eligible };
    // Each record's parent once: ensured first, then read back for the target's reference.
    const parentOf = new Map(eligible.map((r) => [r, parentRef(type, r)] as const));
    await this.hooks.ensureParents([...parentOf.values()].filter((p): p is ParentRef => p !== null));
    this.hooks.mapping?.(type);
    const users = SCHEMA[type].context.owner ? await this.owners(type, eligible) : new Map<number, ApiUser>();
    for (const record of eligible) {
      const parent = parentOf.get(record);
      results.push(mapInContext(type, record, users, parent ? this.parents.record(parent.key) : undefined));
    }
    return { results, eligible };
  }

  /** link: each record's lookups from its parent's stored record; parents not known are listed in `missing`. */
  link(mapped: readonly MappedRecord[]): LinkResult {
    const parents = new Map<string, StoredRecord>();
    for (const m of mapped) {
      const stored = m.parent ? this.parents.record(m.parent.key) : undefined;
      if (m.parent && stored) parents.set(m.parent.key, stored);
    }
    return linkRecords([...mapped], parents);
  }

  /** compare, first half: what Salesforce holds of these keys, in the fields the diff compares. */
  current(schema: ObjectSchema, keys: string[]): Promise<Map<string, StoredRecord>> {
    return currentOf(this.sink, schema, keys);
  }

  /** The owners' user records of a batch (the source fetches each user once per run). */
  private async owners<T extends SyncableType>(type: T, records: readonly ApiRecordOf[T][]): Promise<ReadonlyMap<number, ApiUser>> {
    const ids = new Set<number>();
    for (const r of records) {
      const ownerId = ownerIdOf(type, r);
      if (ownerId === undefined) continue;
      ids.add(ownerId);
      this.hooks.owner?.({ userId: ownerId, actionId: r.id });
    }
    if (ids.size === 0) return new Map();
    const res = await this.source.fetch('user', [...ids]);
    for (const [id, err] of res.failed) {
      if (isFatal(err)) throw err;
      this.hooks.warn(`user ${id}: ${err.message}`);
    }
    return res.records;
  }
}

/** What the diff compares: every field the mapping can send, lookups included. */
function compareFields(schema: ObjectSchema): string[] {
  return ['Id', ...writableFieldNames(schema)];
}

/** compare, first half, for a writer that holds only the sink. */
export function currentOf(sink: Pick<CrmSink, 'readByKeys'>, schema: ObjectSchema, keys: string[]): Promise<Map<string, StoredRecord>> {
  return sink.readByKeys(schema.apiName, keys, compareFields(schema));
}

/** Each object's field types, by field name: the diff compares values in their type's canonical form. */
const FIELD_TYPES: ReadonlyMap<SObjectName, Map<string, FieldType>> = new Map(
  SCHEMAS.map((s) => {
    const types = new Map<string, FieldType>(s.fields.map((f) => [f.name, f.type]));
    types.set(NAME_FIELD, { kind: 'text', length: NAME_LENGTH });
    return [s.apiName, types] as const;
  }),
);

/** compare, second half: the fields a write would change (every sent field for a record Salesforce lacks). */
export function changesOf(schema: ObjectSchema, record: CrmRecord, current: StoredRecord | undefined): Changes {
  return diffRecord(record, current, FIELD_TYPES.get(schema.apiName) ?? new Map<string, FieldType>());
}
