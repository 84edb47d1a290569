/**
 * What a record's owner fields (an action's `user.*` fields: address, phone, birthday...) held
 * when they were written: a fingerprint of the values sent, so a later batch can tell, from the
 * record in Salesforce alone, that they are still exactly what the owner's user record gave.
 */
import { createHash } from 'node:crypto';
import { canonicalValue } from '../../mapping/canonical.js';
import type { FieldDef } from '../../mapping/fieldTypes.js';
import type { ObjectSchema } from '../../mapping/schema.js';
import type { CrmRecord } from '../../model/crmRecords.js';

/** The fields sent (a bit per user field, in schema order) and a hash of their canonical values. */
export interface OwnerFingerprint {
  sent: number;
  hash: string;
}

/** The schema's fields read from the owner's user record. */
export function userFields(schema: ObjectSchema): FieldDef[] {
  return schema.fields.filter((f) => f.source?.startsWith('user.') === true);
}

/**
 * The schema's fields read from the owner link the record itself carries (an action's
 * `owner.email`): in Salesforce they say whose user fields the record was written with.
 */
export function ownerLinkFields(schema: ObjectSchema): FieldDef[] {
  const idPath = schema.context.owner?.idPath;
  if (idPath === undefined) return [];
  const prefix = idPath.slice(0, idPath.lastIndexOf('.') + 1);
  return schema.fields.filter((f) => f.source?.startsWith(prefix) === true);
}

/**
 * The fingerprint of `values` over the user fields in `sent` (default: those `values` carries, as a
 * mapped record carries only what it sends; blank values are never sent and never clear a field).
 */
export function fingerprintOf(schema: ObjectSchema, values: Readonly<CrmRecord>, sent?: number): OwnerFingerprint {
  const fields = userFields(schema);
  let mask = 0;
  const parts: string[] = [];
  fields.forEach((f, i) => {
    const bit = 2 ** i;
    if (sent === undefined ? values[f.name] === undefined : (sent & bit) === 0) return;
    mask |= bit;
    parts.push(`${f.name}=${JSON.stringify(canonicalValue(f.type, values[f.name] ?? null))}`);
  });
  return { sent: mask, hash: createHash('sha256').update(parts.join('\n')).digest('base64') };
}
