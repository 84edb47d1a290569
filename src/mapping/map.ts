/**
 * API record -> CRM record, driven by the schema table. Pure: no I/O. Lookups are left to the CRM
 * writer; the mapping says which parent each record hangs from (ParentRef).
 */
import type { CrmRecord } from '../model/crmRecords.js';
import type { ApiAction, ApiNewsletterSubscription, ApiQuestion, ApiRecordOf, ApiUser } from '../model/apiRecords.js';
import type { ObjectType, SyncableType } from '../model/objects.js';
import { parsePositiveId } from '../model/refs.js';
import { escapeControls } from '../model/lineSafe.js';
import { ConversionError, convertValue, isBlank, toCheckbox, truncate } from './convert.js';
import { fillTemplate, getPath, isTemplate, selectConsent, type Context } from './context.js';
import { deriveParent, readSubscriptionEntity, type DerivedParent, type SubscriptionEntity } from './parent.js';
import { NAME_FIELD, NAME_LENGTH, SCHEMA, type ObjectSchema } from './schema.js';
import type { MapResult, ParentRef } from './types.js';

interface MapExtras {
  /** Actions: the owner's full user record; null when it could not be fetched (404). */
  user?: ApiUser | null;
  /** Actions: the user fields are left as Salesforce holds them, taken from this owner (no warning). */
  userFromMirror?: boolean;
  /** Donations and subscriptions: the external_reference of the target entity, when known. */
  targetExternalReference?: string | null;
}

/** The record's SvcId__c from its context; undefined when an id in it is blank. */
function keyFromContext(type: ObjectType, ctx: Context): string | undefined {
  return fillTemplate(SCHEMA[type].key, ctx);
}

function nameOf(schema: ObjectSchema, ctx: Context): string | undefined {
  for (const alternative of schema.name) {
    const parts = alternative
      .map((p) => getPath(ctx, p))
      .filter((v): v is string | number => !isBlank(v) && (typeof v === 'string' || typeof v === 'number'))
      .map((v) => String(v).trim());
    if (parts.length > 0) return truncate(parts.join(' '), NAME_LENGTH);
  }
  return undefined;
}

function filterReason(schema: ObjectSchema, ctx: Context): string | undefined {
  for (const f of schema.filters) {
    const v = getPath(ctx, f.path);
    const field = f.path.replace(/^record\./, '');
    // Statuses match whatever their case or surrounding blanks ("Paid", " paid").
    if (f.oneOf && !(typeof v === 'string' && f.oneOf.includes(v.trim().toLowerCase()))) {
      return `${f.reason}: ${field} ${isBlank(v) ? 'is blank' : `'${escapeControls(String(v))}'`} (synced: ${f.oneOf.join(', ')})`;
    }
    if (f.nonZero) {
      if (isBlank(v)) return `${f.reason}: ${field} is blank`;
      // Zero in any spelling is left out; a value that is no number at all is not "zero": the
      // mapping fails the record for it, so it is fixed rather than quietly skipped.
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : NaN;
      if (n === 0) return `${f.reason}: ${field} is ${escapeControls(String(v))}`;
    }
    if (f.notBlank && isBlank(v)) return f.reason;
  }
  return undefined;
}

/**
 * The record with its id read as a whole number ("12" -> 12), so the key is the same whatever
 * form the id came in; undefined when the id is missing or malformed.
 */
function withId<T extends { id?: unknown }>(record: T): T {
  return { ...record, id: parsePositiveId(record.id) };
}

/** Maps one context by its schema: the shared core of records and questions. */
function mapWith(schema: ObjectSchema, ctx: Context, warnings: string[], rawId: unknown, entityProblem?: string): MapResult {
  const base = { type: schema.type, object: schema.apiName };
  const key = keyFromContext(schema.type, ctx);
  if (key === undefined) {
    const message = isBlank(rawId) ? 'the record has no id' : `the record's id ${JSON.stringify(rawId)} is not a positive whole number`;
    return { kind: 'invalid', ...base, key: '(no id)', error: { code: 'MISSING_ID', message } };
  }
  const reason = filterReason(schema, ctx);
  if (reason) return { kind: 'skip', ...base, key, reason };

  const { parent, problem, outside } = entityProblem === undefined ? deriveParent(schema, ctx) : { parent: null, problem: entityProblem, outside: undefined };
  const full: Context = { ...ctx, key, parent: parent ? { key: parent.key } : undefined };
  const fields: CrmRecord = {};
  const name = nameOf(schema, full);
  if (name !== undefined) fields[NAME_FIELD] = name;
  const problems: string[] = [];
  for (const def of schema.fields) {
    if (def.type.kind === 'lookup' || def.source === undefined) continue;
    if (def.onlyIf !== undefined && !isTrue(getPath(full, def.onlyIf))) continue;
    const raw = isTemplate(def.source) ? fillTemplate(def.source, full) : getPath(full, def.source);
    try {
      const value = convertValue(def.type, raw);
      if (value !== undefined) fields[def.name] = value;
    } catch (e) {
      if (!(e instanceof ConversionError)) throw e;
      problems.push(`${def.name}: ${e.message}`);
    }
  }
  if (problems.length > 0) {
    return { kind: 'invalid', ...base, key, error: { code: 'INVALID_VALUE', message: problems.join('; ') } };
  }
  return { kind: 'record', ...base, key, fields, parent, ...(problem === undefined ? {} : { parentProblem: problem }), ...(outside === undefined ? {} : { outsideParent: outside }), warnings };
}

/** A condition flag read as a checkbox is ("true", 1 ...); anything unreadable is false. */
function isTrue(value: unknown): boolean {
  try {
    return toCheckbox(value, false);
  } catch {
    return false;
  }
}

/** The entity form read into the parent rules' id paths, for types whose context rules say so. */
function entityOf<T extends SyncableType>(type: T, record: ApiRecordOf[T]): SubscriptionEntity | undefined {
  return SCHEMA[type].context.entityForm ? readSubscriptionEntity(record as ApiNewsletterSubscription) : undefined;
}

/** The id of the record's owner (a user), for types whose context reads one. */
export function ownerIdOf<T extends SyncableType>(type: T, record: ApiRecordOf[T]): number | undefined {
  const rule = SCHEMA[type].context.owner;
  return rule ? parsePositiveId(getPath({ record }, rule.idPath)) : undefined;
}

/**
 * The skip a spec filter decides from the record's own fields alone (a pending donation, a zero
 * total), or undefined: decided before its parents are fetched or written, so a record that is
 * left out never causes a parent to be written just for it. The same filter runs in mapRecord.
 */
export function filteredOut<T extends SyncableType>(type: T, record: ApiRecordOf[T]): MapResult | undefined {
  const schema = SCHEMA[type];
  if (!schema.filters.every((f) => f.path.startsWith('record.'))) return undefined;
  const entity = entityOf(type, record);
  const ctx: Context = { record: withId(entity?.record ?? record) };
  const key = keyFromContext(type, ctx);
  const reason = key === undefined ? undefined : filterReason(schema, ctx);
  return key !== undefined && reason !== undefined ? { kind: 'skip', type: schema.type, object: schema.apiName, key, reason } : undefined;
}

/** Maps an API record of one of the seven fetchable types (nested records: mapNested). */
export function mapRecord<T extends SyncableType>(type: T, record: ApiRecordOf[T], extras: MapExtras = {}): MapResult {
  const schema = SCHEMA[type];
  const warnings: string[] = [];
  const entity = entityOf(type, record);
  const ctx: Context = { record: withId(entity?.record ?? record) };
  if (schema.consentType) ctx.consent = selectConsent((record as { consents?: unknown }).consents, schema.consentType);
  if (schema.context.owner) {
    const ownerId = ownerIdOf(type, record);
    if (ownerId === undefined) warnings.push(`${type} has no owner: user fields left out`);
    else if (extras.userFromMirror === true) {
      // The mirror holds this owner's fields already: left out, so the write keeps them.
    } else if (!extras.user) warnings.push(`owner user ${ownerId} could not be fetched: user fields left out`);
    else ctx.user = extras.user;
  }
  if (schema.context.target) ctx.target = { external_reference: extras.targetExternalReference ?? undefined };
  return mapWith(schema, ctx, warnings, record.id, entity?.problem);
}

/**
 * Maps a record with what its schema's context rules ask for besides the record: the owner's user
 * (from `users`, which the caller fetched) and the external reference of its target's Salesforce
 * record. The engine and the audit both map through here, so they compare like with like.
 */
export function mapInContext<T extends SyncableType>(
  type: T,
  record: ApiRecordOf[T],
  users: ReadonlyMap<number, ApiUser>,
  target: Readonly<Record<string, unknown>> | null | undefined,
  userFromMirror = false,
): MapResult {
  const rules = SCHEMA[type].context;
  const extras: MapExtras = {};
  if (rules.owner && userFromMirror) extras.userFromMirror = true;
  else if (rules.owner) {
    const ownerId = ownerIdOf(type, record);
    extras.user = ownerId === undefined ? null : (users.get(ownerId) ?? null);
  }
  if (rules.target) {
    const ref = target?.ExternalReference__c;
    extras.targetExternalReference = typeof ref === 'string' ? ref : null;
  }
  return mapRecord(type, record, extras);
}

/** The records nested in one (an action's questions, SPEC 2.6), one result each; blank answers become skips. */
export function mapNested<T extends SyncableType>(type: T, record: ApiRecordOf[T]): MapResult[] {
  const rule = SCHEMA[type].context.nested;
  if (!rule) return [];
  const items = getPath({ record }, rule.path);
  return (Array.isArray(items) ? items : []).map((item: { id?: unknown }) => mapWith(SCHEMA[rule.type], { record: withId(item), [rule.as]: withId(record) }, [], item?.id));
}

/** The questions of an action: its nested records. */
export const mapQuestions = (action: ApiAction): MapResult[] => mapNested('action', action);

/** The parent a record would link to, or why none can be named, without mapping it (the engine ensures parents first). */
export function parentOfRecord<T extends SyncableType>(type: T, record: ApiRecordOf[T]): DerivedParent {
  const entity = entityOf(type, record);
  if (entity?.problem !== undefined) return { parent: null, problem: entity.problem };
  return deriveParent(SCHEMA[type], { record: entity?.record ?? record });
}

/** The parent a record would link to, without mapping it (the engine ensures parents first). */
export function parentRef<T extends SyncableType>(type: T, record: ApiRecordOf[T]): ParentRef | null {
  return parentOfRecord(type, record).parent;
}

/**
 * Why the spec's filters leave a record (or an action's question) out, without mapping it;
 * undefined when it is synced. Cheap: no HTML stripping, no conversions.
 */
export function excludedBy<T extends SyncableType>(type: T, record: ApiRecordOf[T]): string | undefined {
  return filterReason(SCHEMA[type], { record });
}

export function questionExcludedBy(action: ApiAction, question: ApiQuestion): string | undefined {
  return filterReason(SCHEMA.question, { record: question, action });
}
