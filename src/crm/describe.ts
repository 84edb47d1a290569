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
  /** A picklist's active values (the gift projection checks the ones it sends). */
  picklistValues?: string[] | undefined;
}

export interface ObjectDescription {
  name: string;
  fields: FieldDescription[];
  /** The record types' developer names (Person Accounts need one with IsPersonType). */
  recordTypes?: string[] | undefined;
}

interface RawField extends Partial<Omit<FieldDescription, 'picklistValues'>> {
  name: string;
  type: string;
  picklistValues?: Array<{ value: string; active?: boolean }>;
}

export async function describeObject(api: SalesforceApi, object: string): Promise<ObjectDescription | undefined> {
  try {
    const d = await api.call<{ name: string; fields: RawField[]; recordTypeInfos?: Array<{ developerName?: string; active?: boolean }> }>({ method: 'GET', url: `/sobjects/${object}/describe` });
    const recordTypes = d.recordTypeInfos?.filter((r) => r.active !== false && typeof r.developerName === 'string').map((r) => r.developerName as string);
    return {
      name: d.name,
      ...(recordTypes === undefined ? {} : { recordTypes }),
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
        ...(f.picklistValues === undefined || f.picklistValues.length === 0 ? {} : { picklistValues: f.picklistValues.filter((v) => v.active !== false).map((v) => v.value) }),
      })),
    };
  } catch (err) {
    const e = toSalesforceError(err);
    if (e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}
