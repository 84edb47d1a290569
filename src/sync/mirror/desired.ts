/**
 * The desired state: what Salesforce should hold for a batch of platform records. Parents, owner
 * users, map, link and compare are written here once; the engine writes what it holds, the
 * writer compares through it, and the audit counts the difference. Two copies of these steps
 * could drift apart, and then a fresh sync would no longer audit clean.
 */
import { sameValue } from '../../mapping/canonical.js';
import { isBlank } from '../../mapping/convert.js';
import type { FieldDef, FieldType } from '../../mapping/fieldTypes.js';
import { linkRecords, type LinkResult } from '../../mapping/link.js';
import { filteredOut, mapInContext, ownerIdOf, parentRef } from '../../mapping/map.js';
import { NAME_FIELD, NAME_LENGTH, SCHEMA, SCHEMAS, writableFieldNames, type ObjectSchema } from '../../mapping/schema.js';
import type { MappedRecord, MapResult, ParentRef } from '../../mapping/types.js';
import type { ApiRecordOf, ApiUser } from '../../model/apiRecords.js';
import type { CrmRecord, StoredRecord } from '../../model/crmRecords.js';
import { isFatal } from '../../model/errors.js';
import type { SObjectName, SyncableType } from '../../model/objects.js';
import type { Changes, OwnerPair } from '../../model/outcomes.js';
import type { CrmSink, RecordSource } from '../../model/ports.js';
import type { RecordCache } from '../run/cache.js';
import { diffRecord } from './diff.js';
import { fingerprintOf, ownerLinkFields, userFields, type OwnerFingerprint } from './ownerFields.js';

/** How a run makes a batch's parents known before mapping it, and what it tells on the way. */
interface DesiredStateHooks {
  /** The engine reads parents and writes those Salesforce lacks; the audit only reads them. */
  /** `namedBefore`: the latest created_at of the records naming them (undefined when one has none). */
  ensureParents(refs: ParentRef[], namedBefore?: string): Promise<void>;
  /** After the parents, before the owners: the engine's "map" progress. */
  mapping?(type: SyncableType): void;
  /** An owner's user record could not be fetched (the record is mapped without user fields). */
  warn(text: string): void;
  /** Each record's owner, as met (the webhook worker re-syncs actions on users.update). */
  owner?(pair: OwnerPair): void;
  /**
   * What this process last wrote to the record's owner fields from this user, when the user has
   * no change in the batch (`serve`): Salesforce still holding exactly that stands for a read of
   * the user (ownerKept checks it).
   */
  keptOwner?(recordId: number, userId: number): OwnerFingerprint | undefined;
  /**
   * `serve`, for a record this process has not written: whether this user's fields may stand as
   * Salesforce holds them when the record there names the same owner (its email). True only where
   * a change of the user reaches the mirror as its own event (users.update), never for a user
   * changed in the batch, and only when the record's owner fields are known to be this user's
   * (owners.json): two users may share one email.
   */
  ownerFromMirror?(recordId: number, userId: number): boolean;
  /** Each record whose owner fields are settled here (read from the platform, or kept as written): what they hold. */
  ownerSettled?(pair: OwnerPair, fields: OwnerFingerprint): void;
  /** Records just read from Salesforce with every field the diff compares (absent keys: not there): the write need not read them again. */
  justRead?(keys: readonly string[], stored: ReadonlyMap<string, StoredRecord>): void;
}

/** A batch's owners: user records read from the platform, and the records whose owner fields Salesforce keeps. */
interface Owners {
  users: ReadonlyMap<number, ApiUser>;
  /** Records mapped with their owner fields left as the mirror holds them, by record. */
  kept: ReadonlyMap<object, MapResult>;
  /** Of those, the ones kept under the same owner link (not written by this process): what their owner fields hold. */
  mirrored: ReadonlyMap<object, OwnerFingerprint>;
}

export class DesiredState {
  constructor(
    private readonly source: Pick<RecordSource, 'fetch'>,
    private readonly sink: Pick<CrmSink, 'readByKeys'>,
    /** Parents by key: read from Salesforce, or written (or to be written) in this run. */
    private readonly parents: RecordCache,
    private readonly hooks: DesiredStateHooks,
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
    await this.hooks.ensureParents(
      [...parentOf.values()].filter((p): p is ParentRef => p !== null),
      latestCreated(eligible),
    );
    this.hooks.mapping?.(type);
    const owners: Owners = SCHEMA[type].context.owner ? await this.owners(type, eligible) : { users: new Map(), kept: new Map(), mirrored: new Map() };
    const mapped = eligible.map((record) => {
      const parent = parentOf.get(record);
      return owners.kept.get(record) ?? mapInContext(type, record, owners.users, parent ? this.parents.record(parent.key) : undefined);
    });
    if (SCHEMA[type].context.owner) this.settleOwners(type, eligible, mapped, owners);
    results.push(...mapped);
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
   * Salesforce still holds what this process wrote from the same user (keptOwner, ownerKept).
   */
  private async owners<T extends SyncableType>(type: T, records: readonly ApiRecordOf[T][]): Promise<Owners> {
    const candidates = new Map<ApiRecordOf[T], OwnerFingerprint | 'mirror'>();
    const pairs = new Map<ApiRecordOf[T], OwnerPair>();
    for (const r of records) {
      const ownerId = ownerIdOf(type, r);
      if (ownerId === undefined) continue;
      const pair = { userId: ownerId, actionId: r.id };
      pairs.set(r, pair);
      this.hooks.owner?.(pair);
      const written = this.hooks.keptOwner?.(r.id, ownerId);
      if (written !== undefined) candidates.set(r, written);
      else if (this.hooks.ownerFromMirror?.(r.id, ownerId) === true) candidates.set(r, 'mirror');
    }
    const { kept, mirrored } = await this.ownerKept(type, candidates);
    const ids = new Set([...pairs].filter(([r]) => !kept.has(r)).map(([, p]) => p.userId));
    const res = ids.size === 0 ? undefined : await this.source.fetch('user', [...ids]);
    for (const [id, err] of res?.failed ?? []) {
      if (isFatal(err)) throw err;
      this.hooks.warn(`user ${id}: ${err.message}`);
    }
    return { users: res?.records ?? new Map<number, ApiUser>(), kept, mirrored };
  }

  /**
   * Of the candidates, the records whose owner fields Salesforce holds as they stand: exactly as
   * this process wrote them (the same fields set, the same values), or, for a record it has not
   * written ('mirror'), under the same owner link (the email the record carries now). Those are
   * mapped with the owner fields left as they are; any other (the record missing there, edited
   * by hand since this process wrote it, another owner) reads its user.
   */
  private async ownerKept<T extends SyncableType>(type: T, candidates: ReadonlyMap<ApiRecordOf[T], OwnerFingerprint | 'mirror'>): Promise<Pick<Owners, 'kept' | 'mirrored'>> {
    const kept = new Map<object, MapResult>();
    const mirrored = new Map<object, OwnerFingerprint>();
    const schema = SCHEMA[type];
    if (candidates.size === 0) return { kept, mirrored };
    const mapped = new Map([...candidates.keys()].map((r) => [r, mapInContext(type, r, new Map(), undefined, true)] as const));
    const keys = [...mapped.values()].flatMap((m) => (m.kind === 'record' ? [m.key] : []));
    const links = ownerLinkFields(schema);
    // Every field the diff compares (the owner fields among them): the write then reads none of these again.
    const stored = await currentOf(this.sink, schema, keys);
    this.hooks.justRead?.(keys, stored);
    for (const [r, m] of mapped) {
      const current = m.kind === 'record' ? stored.get(m.key) : undefined;
      const written = candidates.get(r);
      if (current === undefined || written === undefined || m.kind !== 'record') continue;
      if (written !== 'mirror') {
        if (fingerprintOf(schema, current, written.sent).hash === written.hash) kept.set(r, m);
      } else if (sameOwnerLink(links, m.fields, current)) {
        kept.set(r, m);
        // What they hold now: a hand edit after this batch then shows (the fingerprint check).
        mirrored.set(r, fingerprintOf(schema, Object.fromEntries(userFields(schema).map((f) => [f.name, current[f.name] ?? null]))));
      }
    }
    return { kept, mirrored };
  }

  /** After mapping: the owner fields each record's write will leave in Salesforce, for those whose user was read or kept. */
  private settleOwners<T extends SyncableType>(type: T, eligible: readonly ApiRecordOf[T][], results: readonly MapResult[], owners: Owners): void {
    const settled = this.hooks.ownerSettled;
    if (settled === undefined) return;
    const schema = SCHEMA[type];
    eligible.forEach((r, i) => {
      const ownerId = ownerIdOf(type, r);
      const m = results[i];
      if (ownerId === undefined || m?.kind !== 'record') return;
      const pair = { userId: ownerId, actionId: r.id };
      const kept = this.hooks.keptOwner?.(r.id, ownerId) ?? owners.mirrored.get(r);
      if (owners.kept.has(r) && kept !== undefined) settled(pair, kept);
      // A user not read (a 404, a failure) settles nothing: the next batch reads it again.
      else if (owners.users.has(ownerId)) settled(pair, fingerprintOf(schema, m.fields));
    });
  }
}

/** Salesforce's record names the owner the platform's record names now: every owner link field set, and equal. */
function sameOwnerLink(links: readonly FieldDef[], mapped: Readonly<CrmRecord>, stored: Readonly<StoredRecord>): boolean {
  return links.length > 0 && links.every((f) => !isBlank(mapped[f.name]) && sameValue(f.type, mapped[f.name], stored[f.name]));
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

/** The latest created_at of records, or undefined when one has none (a kept absence then holds for fewer ids). */
function latestCreated(records: readonly object[]): string | undefined {
  let latest: number | undefined = -Infinity;
  for (const r of records) {
    const at = Object.hasOwn(r, 'created_at') ? Date.parse(String((r as { created_at?: unknown }).created_at)) : NaN;
    if (Number.isNaN(at)) return undefined;
    latest = Math.max(latest, at);
  }
  return latest === -Infinity ? undefined : new Date(latest).toISOString();
}
