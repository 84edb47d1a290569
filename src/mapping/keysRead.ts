/**
 * The top-level keys of a platform record that the mapping of its type reads, from the schema
 * table: what a partial list page (an older list payload) would lack. The platform source compares
 * a list record with the by-id form of the same record on these keys only. Keys read as one value
 * in alternative forms are one entry, joined by `|`: a record carrying any of them carries it.
 */
import type { ResourceType } from '../model/apiRecords.js';
import { SCHEMA } from './schema.js';

/** The keys a subscription's link may come in (mapping/link.ts reads whichever is there). */
const ENTITY_LINK = ['entity', 'entity_type', 'entity_id', 'project_id', 'segment_id'];

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
    if (s.context.entityForm) {
      // A subscription's link: SPEC.md's entity form or the real API's project_id / segment_id,
      // whichever the platform sends; one question for the list-shape check, not five.
      for (const k of ENTITY_LINK) keys.delete(k);
      keys.add(ENTITY_LINK.join('|'));
    }
  }
  const out = [...keys].sort();
  cache.set(type, out);
  return out;
}
