/** The part of Salesforce's sObject describe that `doctor` reads: as the connected user sees the object. */
import type { SalesforceApi } from './api.js';
import { toSalesforceError } from './errors.js';

export interface FieldDescription {
  name: string;
  type: string;
  length: number;
  precision: number;
  scale: number;
  externalId: boolean;
  unique: boolean;
  referenceTo: string[];
  /** For the connected user: false when field-level security makes the field read-only. */
  createable: boolean;
  updateable: boolean;
}

export interface ObjectDescription {
  name: string;
  fields: FieldDescription[];
}

export async function describeObject(api: SalesforceApi, object: string): Promise<ObjectDescription | undefined> {
  try {
    const d = await api.call<{ name: string; fields: Array<Partial<FieldDescription> & { name: string; type: string }> }>({ method: 'GET', url: `/sobjects/${object}/describe` });
    return {
      name: d.name,
      fields: d.fields.map((f) => ({
        name: f.name,
        type: f.type,
        length: f.length ?? 0,
        precision: f.precision ?? 0,
        scale: f.scale ?? 0,
        externalId: f.externalId ?? false,
        unique: f.unique ?? false,
        referenceTo: f.referenceTo ?? [],
        // Salesforce always sends both; a describe without them is not taken as read-only.
        createable: f.createable !== false,
        updateable: f.updateable !== false,
      })),
    };
  } catch (err) {
    const e = toSalesforceError(err);
    if (e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}
