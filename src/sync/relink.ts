/**
 * When a write changes a record's lookups, its descendants already in Salesforce take the new
 * inherited lookups too (a team moved to another project carries its actions and their
 * donations along), read and written through Salesforce alone: no platform request.
 */
import type { CrmRecord, StoredRecord } from '../model/crmRecords.js';
import type { CrmSink } from '../model/ports.js';
import type { ObjectType } from '../model/objects.js';
import { KEY_FIELD } from '../model/refs.js';
import { SCHEMAS, lookupFields, type ObjectSchema, type ParentRule } from '../mapping/schema.js';

interface RelinkUpdate {
  schema: ObjectSchema;
  current: StoredRecord;
  next: CrmRecord;
}

/** Which (child object, rule) pairs hang directly from a parent type and inherit something from it. */
function childRules(parentType: ObjectType): Array<{ schema: ObjectSchema; rule: ParentRule; more: ParentRule[] }> {
  const out: Array<{ schema: ObjectSchema; rule: ParentRule; more: ParentRule[] }> = [];
  for (const schema of SCHEMAS) {
    schema.parents.forEach((rule, i) => {
      if (rule.type === parentType && rule.inherit.length > 0) out.push({ schema, rule, more: schema.parents.slice(0, i) });
    });
  }
  return out;
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
        const fields = ['Id', KEY_FIELD, ...lookupFields(schema).map((f) => f.name)];
        const children = await sink.readChildren(schema.apiName, rule.direct, [...byId.keys()], fields);
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
