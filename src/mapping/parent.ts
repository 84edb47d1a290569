/**
 * Which parent a record hangs from (SPEC 2.3-2.9), or why none can be named. A record whose
 * object has parent rules but whose parent reference cannot be read (no id, an unknown entity
 * type, a malformed id) is never linked silently: the reason travels with it to the report.
 */
import type { ApiNewsletterSubscription } from '../model/apiRecords.js';
import { parseObjectType } from '../model/objects.js';
import { keyFor, parsePositiveId } from '../model/refs.js';
import { isBlank } from './convert.js';
import { getPath, type Context } from './context.js';
import { SCHEMA, type ObjectSchema } from './schema.js';
import type { ParentRef } from './types.js';

/** The parent, or null with the reason it could not be derived (`problem`); no rules: neither. */
export interface DerivedParent {
  parent: ParentRef | null;
  problem?: string;
  /** A parent outside the spec's objects ("donation form 7", "the site"): no lookups, and no problem. */
  outside?: string;
}

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** The field name of a rule's idPath as the API spells it (record.team_id -> team_id). */
const fieldOf = (path: string): string => path.replace(/^record\./, '');

/**
 * The parent by the schema's rules, most specific first: the first rule whose id is given decides,
 * with no fallback to a less specific one. A given id that is not a positive whole number is a
 * problem, not a reason to look further.
 */
export function deriveParent(schema: ObjectSchema, ctx: Context): DerivedParent {
  if (schema.parents.length === 0) return { parent: null };
  for (const rule of schema.parents) {
    const raw = getPath(ctx, rule.idPath);
    if (isBlank(raw)) continue;
    const id = parsePositiveId(raw);
    if (id === undefined) return { parent: null, problem: `malformed ${fieldOf(rule.idPath)} ${shown(raw)}: not a positive whole number` };
    return { parent: { type: rule.type, object: SCHEMA[rule.type].apiName, id, key: keyFor(rule.type, id), direct: rule.direct, inherit: rule.inherit } };
  }
  for (const rule of schema.outside ?? []) {
    if (rule.idPath === undefined) return { parent: null, outside: rule.what };
    const id = parsePositiveId(getPath(ctx, rule.idPath));
    if (id !== undefined) return { parent: null, outside: `${rule.what} ${id}` };
  }
  return { parent: null, problem: `no parent id: ${schema.parents.map((r) => fieldOf(r.idPath)).join(', ')} all blank` };
}

/** A subscription's entity read into the project_id / segment_id form, or why it cannot be. */
export interface SubscriptionEntity {
  record: ApiNewsletterSubscription;
  problem?: string;
}

/** SPEC 2.9: the entity is a Project or a Segment. */
const ENTITY_TYPES = new Set(['project', 'segment']);

function fromPair(type: unknown, rawId: unknown, where: string): { kind: 'project' | 'segment'; id: number } | { problem: string } {
  if (isBlank(type)) return { problem: `${where}entity_id ${shown(rawId)} has no entity_type` };
  // Case and surrounding blanks do not matter (project, Project, PROJECT), nor a plural.
  const kind = typeof type === 'string' ? parseObjectType(type) : undefined;
  if (kind === undefined || !ENTITY_TYPES.has(kind)) {
    return { problem: `unknown ${where}entity_type ${shown(type)}: a subscription's entity is a Project or a Segment` };
  }
  if (isBlank(rawId)) return { problem: `${where}entity_type ${shown(type)} has no entity_id` };
  const id = parsePositiveId(rawId);
  if (id === undefined) return { problem: `malformed ${where}entity_id ${shown(rawId)}: not a positive whole number` };
  return { kind: kind as 'project' | 'segment', id };
}

const given = (link: { entity_type?: unknown; entity_id?: unknown }): boolean => !isBlank(link.entity_type) || !isBlank(link.entity_id);

/**
 * Reads a subscription's entity from every form the platform sends, in this order: the nested
 * `entity` object, top-level `entity_type` + `entity_id`, then `project_id` / `segment_id`. The
 * first form that is given decides; a broken one is reported rather than passed over for the
 * next, which could name a different entity. The result carries only project_id / segment_id,
 * which the schema's parent rules read.
 */
export function readSubscriptionEntity(record: ApiNewsletterSubscription): SubscriptionEntity {
  const { entity, entity_type, entity_id, ...rest } = record;
  const clean = { ...rest, project_id: undefined, segment_id: undefined };
  let found: ReturnType<typeof fromPair> | undefined;
  if (entity !== null && entity !== undefined) {
    if (typeof entity !== 'object' || Array.isArray(entity)) return { record: clean, problem: `malformed entity ${shown(entity)}: not an object` };
    if (given(entity)) found = fromPair(entity.entity_type, entity.entity_id, 'entity.');
  }
  if (found === undefined && given({ entity_type, entity_id })) found = fromPair(entity_type, entity_id, '');
  if (found === undefined) {
    if (isBlank(record.project_id) && isBlank(record.segment_id)) {
      return { record: clean, problem: 'no entity: entity, entity_type / entity_id, project_id and segment_id all blank' };
    }
    return { record: { ...clean, project_id: record.project_id, segment_id: record.segment_id } };
  }
  if ('problem' in found) return { record: clean, problem: found.problem };
  return { record: found.kind === 'project' ? { ...clean, project_id: found.id } : { ...clean, segment_id: found.id } };
}
