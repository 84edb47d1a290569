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
  /**
   * Whether Salesforce may hold the record's owner fields from this user already, unchanged since
   * (`serve`: this process wrote them, and the user has no change in the batch). A candidate only:
   * the mirror's record is checked before the platform's user read is left out.
   */
  ownerFromMirror?(recordId: number, userId: number): boolean;
  /** Each record whose owner fields are settled in this projection: read from the platform, or kept from the mirror. */
  ownerSettled?(pair: OwnerPair): void;
}

/** A batch's owners: user records read from the platform, and the records whose owner fields Salesforce keeps. */
interface Owners {
  users: ReadonlyMap<number, ApiUser>;
  /** Records mapped with their owner fields left as the mirror holds them, by record. */
  kept: ReadonlyMap<object, MapResult>;
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
    const { users, kept }: Owners = SCHEMA[type].context.owner ? await this.owners(type, eligible) : { users: new Map(), kept: new Map() };
    for (const record of eligible) {
      const parent = parentOf.get(record);
      results.push(kept.get(record) ?? mapInContext(type, record, users, parent ? this.parents.record(parent.key) : undefined));
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

  /**
   * The owners' user records of a batch (the source fetches each user once per run), except where
   * the mirror keeps the owner's fields (ownerFromMirror, confirmed by ownerKept).
   */
  private async owners<T extends SyncableType>(type: T, records: readonly ApiRecordOf[T][]): Promise<Owners> {
    const candidates: Array<ApiRecordOf[T]> = [];
    const pairs = new Map<ApiRecordOf[T], OwnerPair>();
    for (const r of records) {
      const ownerId = ownerIdOf(type, r);
      if (ownerId === undefined) continue;
      const pair = { userId: ownerId, actionId: r.id };
      pairs.set(r, pair);
      this.hooks.owner?.(pair);
      if (this.hooks.ownerFromMirror?.(r.id, ownerId) === true) candidates.push(r);
    }
    const kept = await this.ownerKept(type, candidates);
    const ids = new Set([...pairs].filter(([r]) => !kept.has(r)).map(([, p]) => p.userId));
    const res = ids.size === 0 ? undefined : await this.source.fetch('user', [...ids]);
    for (const [id, err] of res?.failed ?? []) {
      if (isFatal(err)) throw err;
      this.hooks.warn(`user ${id}: ${err.message}`);
    }
    // A user not read (a 404, a failure) settles nothing: the next batch reads it again.
    for (const [r, pair] of pairs) if (kept.has(r) || res?.records.has(pair.userId) === true) this.hooks.ownerSettled?.(pair);
    return { users: res?.records ?? new Map<number, ApiUser>(), kept };
  }

  /**
   * Of the candidates, the records Salesforce holds with the owner's own fields (`record.owner.*`:
   * an action's Email__c) as the platform gives them now, none blank: the owner is the one whose
   * fields the mirror keeps. Any other (the record missing there, another owner) reads its user.
   */
  private async ownerKept<T extends SyncableType>(type: T, candidates: readonly ApiRecordOf[T][]): Promise<Map<object, MapResult>> {
    const kept = new Map<object, MapResult>();
    const schema = SCHEMA[type];
    const ownerFields = schema.fields.filter((f) => f.source?.startsWith('record.owner.') === true).map((f) => f.name);
    if (candidates.length === 0 || ownerFields.length === 0) return kept;
    const mapped = new Map(candidates.map((r) => [r, mapInContext(type, r, new Map(), undefined, true)] as const));
    const keys = [...mapped.values()].flatMap((m) => (m.kind === 'record' ? [m.key] : []));
    const stored = await this.sink.readByKeys(schema.apiName, keys, ['Id', ...ownerFields]);
    for (const [r, m] of mapped) {
      const current = m.kind === 'record' ? stored.get(m.key) : undefined;
      if (m.kind !== 'record' || current === undefined) continue;
      const given: CrmRecord = {};
      for (const f of ownerFields) given[f] = m.fields[f];
      if (ownerFields.some((f) => given[f] === undefined)) continue;
      if (Object.keys(changesOf(schema, given, current)).length === 0) kept.set(r, m);
    }
    return kept;
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
