/**
 * The top-level keys of a platform record that the mapping of its type reads, from the schema
 * table: what a partial list page (an older list payload) would lack. The platform source compares
 * a list record with the by-id form of the same record on these keys only.
 */
import type { ResourceType } from '../model/apiRecords.js';
import { SCHEMA } from './schema.js';

const cache = new Map<ResourceType, readonly string[]>();

export function keysRead(type: ResourceType): readonly string[] {
  const known = cache.get(type);
  if (known) return known;
  const keys = new Set<string>();
  if (type !== 'user') {
    const s = SCHEMA[type];
    const paths = [
      ...s.fields.flatMap((f) => [f.source, f.onlyIf]),
      ...s.name.flat(),
      ...s.filters.map((f) => f.path),
      ...s.parents.map((p) => p.idPath),
      s.context.owner?.idPath,
      s.context.nested?.path,
    ];
    for (const p of paths) if (p?.startsWith('record.')) keys.add(p.split('.')[1] as string);
    if (s.consentType) keys.add('consents');
    // SPEC.md's form of a subscription's entity, beside the real API's project_id / segment_id.
    if (s.context.entityForm) for (const k of ['entity', 'entity_type', 'entity_id']) keys.add(k);
  }
  const out = [...keys].sort();
  cache.set(type, out);
  return out;
}
