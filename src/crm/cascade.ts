/**
 * The lookup cascade (SPEC 1.1 and 2.4-2.9): a child's direct lookup is its parent's Salesforce
 * Id, its higher-level lookups are copied from the parent's record in Salesforce, never resolved
 * from the API. Every other lookup of the object is sent as null, so a record that moved does not
 * keep a stale lookup. The rules come from the ParentRule rows of schema.ts.
 */
import type { SObjectName } from '../mapping/objects.js';
import { KEY_FIELD, SCHEMAS, lookupFields, schemaByApiName, type ObjectSchema } from '../mapping/schema.js';
import type { MappedRecord } from '../mapping/types.js';
import type { CrmRecord, CrmSink, StoredRecord } from './types.js';

export interface MissingParent {
  /** The child's SvcId__c. */
  key: string;
  /** The parent's SvcId__c. */
  parent: string;
  /** The parent's object. */
  object: SObjectName;
}

export interface LinkResult {
  records: CrmRecord[];
  missing: MissingParent[];
}

function schemaOf(object: string): ObjectSchema {
  const s = schemaByApiName(object);
  if (!s) throw new Error(`unknown object ${object}`);
  return s;
}

/**
 * Fields to read from a parent object so its children can be linked: Id, SvcId__c,
 * ExternalReference__c where the object has it, and every lookup a child inherits from it.
 */
export function parentFieldsToRead(object: SObjectName): string[] {
  const parent = schemaOf(object);
  const fields = new Set<string>(['Id', KEY_FIELD]);
  if (parent.fields.some((f) => f.name === 'ExternalReference__c')) fields.add('ExternalReference__c');
  for (const child of SCHEMAS) {
    for (const rule of child.parents) if (rule.type === parent.type) rule.inherit.forEach((f) => fields.add(f));
  }
  return [...fields];
}

/**
 * Pure: the CRM records to write for mapped records, given their parents' stored records
 * (keyed by the parent's SvcId__c). A parent absent from the map is reported per child and the
 * child's lookups are all null.
 */
export function linkRecords(records: MappedRecord[], parents: Map<string, StoredRecord>): LinkResult {
  const out: CrmRecord[] = [];
  const missing: MissingParent[] = [];
  for (const record of records) {
    const schema = schemaOf(record.object);
    const linked: CrmRecord = { ...record.fields };
    for (const f of lookupFields(schema)) linked[f.name] = null;
    // The mapping's ParentRef carries its schema rule: the direct lookup and the inherited ones.
    const rule = record.parent;
    if (rule) {
      const stored = parents.get(rule.key);
      if (!stored) {
        missing.push({ key: record.key, parent: rule.key, object: rule.object });
      } else {
        linked[rule.direct] = stored.Id;
        for (const f of rule.inherit) {
          const v = stored[f];
          linked[f] = typeof v === 'string' && v !== '' ? v : null;
        }
      }
    }
    out.push(linked);
  }
  return { records: out, missing };
}

/**
 * Reads the parents of a batch from Salesforce: one readByKeys per parent object (chunked by URL
 * length inside), with just the fields linking needs. Keyed by the parent's SvcId__c.
 */
export async function readParents(sink: Pick<CrmSink, 'readByKeys'>, records: MappedRecord[]): Promise<Map<string, StoredRecord>> {
  const byObject = new Map<SObjectName, Set<string>>();
  for (const r of records) {
    if (!r.parent) continue;
    const keys = byObject.get(r.parent.object) ?? new Set<string>();
    keys.add(r.parent.key);
    byObject.set(r.parent.object, keys);
  }
  const parents = new Map<string, StoredRecord>();
  for (const [object, keys] of byObject) {
    const found = await sink.readByKeys(object, [...keys], parentFieldsToRead(object));
    for (const [k, v] of found) parents.set(k, v);
  }
  return parents;
}

/** readParents + linkRecords, for callers that do not keep parents of their own. */
export async function linkFromSalesforce(sink: Pick<CrmSink, 'readByKeys'>, records: MappedRecord[]): Promise<LinkResult> {
  return linkRecords(records, await readParents(sink, records));
}
