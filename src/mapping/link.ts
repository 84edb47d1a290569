/**
 * The lookup cascade (SPEC 1.1 and 2.4-2.9): a child's direct lookup is its parent's Salesforce
 * Id, its higher-level lookups are copied from the parent's record in Salesforce, never resolved
 * from the API. Every other lookup of the object is sent as null, so a record that moved does not
 * keep a stale lookup. The rules come from the ParentRule rows of schema.ts.
 */
import type { CrmRecord, StoredRecord } from '../model/crmRecords.js';
import type { SObjectName } from '../model/objects.js';
import { KEY_FIELD } from '../model/refs.js';
import { SCHEMAS, lookupFields, schemaByApiName, type ObjectSchema } from './schema.js';
import type { MappedRecord } from './types.js';

/** A child whose parent record was not given: it is written unlinked (or skipped) by the engine. */
interface MissingLink {
  /** The child's SvcId__c. */
  key: string;
  /** The parent's SvcId__c. */
  parent: string;
  /** The parent's object. */
  object: SObjectName;
}

export interface LinkResult {
  records: CrmRecord[];
  missing: MissingLink[];
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
  const missing: MissingLink[] = [];
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
