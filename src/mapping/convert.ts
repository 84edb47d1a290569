/**
 * Field converters: one per CRM type of SPEC.md 1.1. Each returns the value to send, `undefined`
 * for "leave out" (blank), or a ConversionError when the value cannot be stored faithfully.
 */
import type { CrmValue } from '../model/crmRecords.js';
import type { FieldType } from './fieldTypes.js';
import { stripHtml } from './html.js';

export class ConversionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/**
 * Cuts to `length` UTF-16 code units, as Salesforce counts, never leaving half a surrogate pair:
 * an emoji that straddles the limit is dropped whole.
 */
export function truncate(value: string, length: number): string {
  if (value.length <= length) return value;
  let cut = value.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  throw new ConversionError('INVALID_TEXT', `expected text, got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Plain decimal digits of a number or numeric string, sign separated, no exponent. */
function decimalParts(value: unknown): { negative: boolean; int: string; frac: string } {
  let s: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ConversionError('INVALID_NUMBER', `not a finite number: ${value}`);
    // String() gives the shortest exact form ("12.345"), except for exponents, which toFixed spells out.
    s = /e/i.test(String(value)) ? value.toFixed(20) : String(value);
  } else if (typeof value === 'string') {
    s = value.trim();
  } else {
    throw new ConversionError('INVALID_NUMBER', `expected a number, got ${describe(value)}`);
  }
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new ConversionError('INVALID_NUMBER', `not a number: ${JSON.stringify(value)}`);
  return { negative: m[1] === '-', int: (m[2] ?? '').replace(/^0+(?=\d)/, '') || '0', frac: m[3] ?? '' };
}

/**
 * Rounds half away from zero on the decimal digits (not on binary floats, where "1.005" would
 * round down), then checks that the integer part fits precision - scale digits.
 */
export function toNumber(value: unknown, precision: number, scale: number): number {
  const { negative, int, frac } = decimalParts(value);
  let digits = (int + frac.padEnd(scale, '0').slice(0, scale)).split('').map(Number);
  if (Number(frac[scale] ?? '0') >= 5) {
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === 9) digits[i--] = 0;
    if (i >= 0) digits[i] = (digits[i] ?? 0) + 1;
    else digits = [1, ...digits];
  }
  const all = digits.join('');
  const intPart = all.slice(0, all.length - scale).replace(/^0+(?=\d)/, '') || '0';
  const fracPart = all.slice(all.length - scale);
  if (intPart.length > precision - scale) {
    throw new ConversionError('NUMBER_OUTSIDE_VALID_RANGE', `${JSON.stringify(value)} does not fit Number(${precision},${scale})`);
  }
  const result = Number(`${negative ? '-' : ''}${intPart}${scale > 0 ? `.${fracPart}` : ''}`);
  return Object.is(result, -0) ? 0 : result;
}

export function toCheckbox(value: unknown, defaultValue: boolean): boolean {
  // Blank (null, undefined, empty or whitespace-only) is "missing": the default is sent (SPEC 1.1).
  if (isBlank(value)) return defaultValue;
  if (typeof value === 'boolean') return value;
  // Form posts and CSV exports spell booleans as text: "true", "True", " 1 ".
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (text === 'true' || text === 1 || text === '1') return true;
  if (text === 'false' || text === 0 || text === '0') return false;
  throw new ConversionError('INVALID_CHECKBOX', `expected a boolean, got ${describe(value)}`);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/**
 * An ISO 8601 date-time: date, T or a space, hh:mm with optional seconds and fraction, and a zone
 * (Z, +01:00, +0100, +01) or none. Only this shape: Date.parse accepts loose forms ("March 5")
 * that would hide bad data, rolls 30 February over into March, and reads a zone-less time in the
 * machine's own zone.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** YYYY-MM-DD; a date-time input keeps the calendar date it was written with. */
export function toDate(value: unknown): string {
  const s = asText(value).trim();
  const head = s.slice(0, 10);
  const m = DATE_ONLY.exec(head);
  if (!m || (s.length > 10 && !DATE_TIME.test(s)) || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new ConversionError('INVALID_DATE', `not a date: ${JSON.stringify(value)}`);
  }
  return head;
}

/**
 * ISO 8601 date-time in UTC with milliseconds (2026-01-05T10:00:00.000Z): the one form the
 * mapping sends and the diff compares. A bare date is midnight UTC of that day; a time without a
 * zone is UTC, as the platform's timestamps are (SPEC 1.1).
 */
export function toDateTime(value: unknown): string {
  const s = asText(value).trim();
  const bad = (): ConversionError => new ConversionError('INVALID_DATETIME', `not a date-time: ${JSON.stringify(value)}`);
  const d = DATE_ONLY.exec(s);
  if (d) {
    if (!validDate(Number(d[1]), Number(d[2]), Number(d[3]))) throw bad();
    return `${s}T00:00:00.000Z`;
  }
  const m = DATE_TIME.exec(s);
  if (!m) throw bad();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) throw bad();
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
    if (!z || Number(z[2]) > 23 || Number(z[3] ?? '0') > 59) throw bad();
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? '0'));
  }
  const t = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  return new Date(t).toISOString();
}

/** Converts one source value to its CRM form; `undefined` means "leave the field out". */
export function convertValue(type: FieldType, value: unknown): CrmValue | undefined {
  if (type.kind === 'checkbox') return toCheckbox(value, type.default);
  if (isBlank(value)) return undefined;
  switch (type.kind) {
    case 'text':
      return truncate(asText(value), type.length);
    case 'longtext': {
      const plain = type.html ? stripHtml(asText(value)) : asText(value);
      // Stripping can leave nothing (a description that was only markup): that is blank too.
      return plain.trim() === '' ? undefined : truncate(plain, type.length);
    }
    case 'number':
      return toNumber(value, type.precision, type.scale);
    case 'date':
      return toDate(value);
    case 'datetime':
      return toDateTime(value);
    case 'lookup':
      throw new ConversionError('INTERNAL', 'lookups are set by the CRM writer, not converted');
  }
}
