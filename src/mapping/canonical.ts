/**
 * One canonical form per CRM field type, for comparing and showing values whatever side they
 * come from: Salesforce answers a DateTime as 2026-01-05T10:00:00.000+0000 where the mapping
 * sends 2026-01-05T10:00:00.000Z, an amount as 20 where the platform wrote "20.0". Equal
 * meaning must never show as a change, nor cause a write.
 */
import type { CrmValue } from '../model/crmRecords.js';
import { toDateTime } from './convert.js';
import type { FieldType } from './fieldTypes.js';

function canonicalDateTime(value: string): string {
  try {
    return toDateTime(value);
  } catch {
    return value;
  }
}

function canonicalNumber(value: string | number | boolean): CrmValue {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : NaN;
  return Number.isFinite(n) ? (Object.is(n, -0) ? 0 : n) : value;
}

function canonicalCheckbox(value: string | number | boolean): CrmValue {
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  return value;
}

/**
 * The value in its one form: DateTime as ISO 8601 UTC with milliseconds (2026-01-05T10:00:00.000Z),
 * Date as YYYY-MM-DD, Number as a number, Checkbox as a boolean (empty is false, as Salesforce
 * stores it), empty text as null. A value that cannot be read so is left as it is.
 */
export function canonicalValue(type: FieldType | undefined, value: CrmValue | undefined): CrmValue {
  if (value === undefined || value === null || value === '') return type?.kind === 'checkbox' ? false : null;
  switch (type?.kind) {
    case 'datetime':
      return typeof value === 'string' ? canonicalDateTime(value) : value;
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}([T ]|$)/.test(value.trim()) ? value.trim().slice(0, 10) : value;
    case 'number':
      return canonicalNumber(value);
    case 'checkbox':
      return canonicalCheckbox(value);
    default:
      return value;
  }
}

/** Same meaning: equal in canonical form. */
export function sameValue(type: FieldType | undefined, a: CrmValue | undefined, b: CrmValue | undefined): boolean {
  return canonicalValue(type, a) === canonicalValue(type, b);
}
