/**
 * Records nested in a batch's holders (an action's answered questions), mapped from the holders' API
 * records before the holders are written: the engine then lets those API records go, a heavy
 * batch's largest copy (8 MB of HTML at BATCH_TEXT_BYTES), while the holders are written.
 */
import { mapNested } from '../../mapping/map.js';
import { SCHEMA } from '../../mapping/schema.js';
import type { MapResult } from '../../mapping/types.js';
import type { ApiRecordOf } from '../../model/apiRecords.js';
import type { ObjectType, SyncableType } from '../../model/objects.js';
import { keyFor } from '../../model/refs.js';

export interface NestedOf {
  type: ObjectType;
  /** Per holder's key, its nested records mapped. */
  byHolder: Array<{ key: string; nested: MapResult[] }>;
}

/** The nested records of `holders` (none when the type nests nothing or no holder is eligible). */
export function nestedOf<T extends SyncableType>(type: T, holders: readonly ApiRecordOf[T][]): NestedOf | undefined {
  const nested = SCHEMA[type].context.nested;
  if (!nested || holders.length === 0) return undefined;
  return { type: nested.type, byHolder: holders.map((r) => ({ key: keyFor(type, r.id), nested: mapNested(type, r) })) };
}
