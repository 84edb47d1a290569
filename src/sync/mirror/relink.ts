/**
 * When a write changes a record's lookups, its descendants already in Salesforce take the new
 * inherited lookups too (a team moved to another project carries its actions and their
 * donations along), read and written through Salesforce alone: no platform request. A new
 * external reference goes the same way to the children that copy their target's (donations,
 * subscriptions): a child synced while the mirror still held its parent's old copy is put right
 * when the parent's own change is written.
 */
import type { CrmRecord, StoredRecord } from '../../model/crmRecords.js';
import type { CrmSink } from '../../model/ports.js';
import type { ObjectType } from '../../model/objects.js';
import { KEY_FIELD } from '../../model/refs.js';
import { SCHEMAS, lookupFields, type ObjectSchema, type ParentRule } from '../../mapping/schema.js';

interface RelinkUpdate {
  schema: ObjectSchema;
  current: StoredRecord;
  next: CrmRecord;
}

/** The field a child copies from its target's record (SPEC 2.7, 2.9: "external_reference of the target entity"). */
const TARGET_REFERENCE = 'ExternalReference__c';

/** Which (child object, rule) pairs hang directly from a parent type and copy something from it. */
function childRules(parentType: ObjectType): Array<{ schema: ObjectSchema; rule: ParentRule; more: ParentRule[] }> {
  const out: Array<{ schema: ObjectSchema; rule: ParentRule; more: ParentRule[] }> = [];
  for (const schema of SCHEMAS) {
    schema.parents.forEach((rule, i) => {
      if (rule.type === parentType && (rule.inherit.length > 0 || schema.context.target === true)) out.push({ schema, rule, more: schema.parents.slice(0, i) });
    });
  }
  return out;
}

/** Whether a written change reaches the record's descendants: a lookup, or the reference its target-children copy. */
export function carriedDown(type: ObjectType, changed: readonly string[], lookups: readonly string[]): boolean {
  return changed.some((f) => lookups.includes(f) || (f === TARGET_REFERENCE && childRules(type).some((c) => c.schema.context.target === true)));
}

/**
 * Finds the descendants of `moved` (records of `type` whose lookups changed, with their new values
 * and Ids) whose inherited lookups now differ, level after level, and returns the updates.
 */
export async function planRelink(sink: CrmSink, type: ObjectType, moved: StoredRecord[]): Promise<RelinkUpdate[]> {
  const updates: RelinkUpdate[] = [];
  let frontier: Array<{ type: ObjectType; records: StoredRecord[] }> = [{ type, records: moved }];
  while (frontier.length > 0) {
    const next: Array<{ type: ObjectType; records: StoredRecord[] }> = [];
    for (const { type: parentType, records } of frontier) {
      const byId = new Map(records.map((r) => [r.Id, r]));
      for (const { schema, rule, more } of childRules(parentType)) {
        const copiesTarget = schema.context.target === true;
        const fields = ['Id', KEY_FIELD, ...lookupFields(schema).map((f) => f.name), ...(copiesTarget ? [TARGET_REFERENCE] : [])];
        const children = await sink.readWhere(schema.apiName, rule.direct, [...byId.keys()], fields);
        const changed: StoredRecord[] = [];
        for (const child of children) {
          // A child whose more specific lookup is set hangs from that record, not from this one.
          if (more.some((r) => child[r.direct])) continue;
          const parent = byId.get(String(child[rule.direct]));
          if (!parent) continue;
          const patch: CrmRecord = { [KEY_FIELD]: child[KEY_FIELD] };
          let differs = false;
          for (const f of rule.inherit) {
            const want = parent[f] ?? null;
            patch[f] = want;
            if ((child[f] ?? null) !== want) differs = true;
          }
          // A blank reference is not sent by the mapping either (blank values never clear a field).
          const reference = parent[TARGET_REFERENCE];
          if (copiesTarget && typeof reference === 'string' && reference !== '' && child[TARGET_REFERENCE] !== reference) {
            patch[TARGET_REFERENCE] = reference;
            differs = true;
          }
          if (!differs) continue;
          updates.push({ schema, current: child, next: patch });
          changed.push({ ...child, ...patch } as StoredRecord);
        }
        if (changed.length > 0) next.push({ type: schema.type, records: changed });
      }
    }
    frontier = next;
  }
  return updates;
}
