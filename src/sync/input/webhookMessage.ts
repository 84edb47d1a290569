/**
 * The webhook body of SPEC section 6.1, parsed from either form parameters or JSON.
 * Validation is strict on what the worker needs (object_type, object_id, event_type,
 * application) and tolerant of what it does not (site_id may be absent, extra keys are ignored),
 * because a 400 makes the platform retry for 24 hours: it is only worth it when a retry could
 * never be processed anyway.
 */
import { oneLine } from '../../config/echo.js';
import { parsePositiveId } from '../../model/refs.js';

export interface WebhookMessage {
  objectType: string;
  objectId: number;
  eventType: string;
  application: string;
  /** Absent when the sender leaves it out; when present it must be a positive integer (a site's id). */
  siteId?: number;
}

type ParseResult = { ok: true; message: WebhookMessage } | { ok: false; reason: string };

type BodyFormat = 'form' | 'json';

/** Media type without parameters (charset and the like), lower case; undefined when absent. */
function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const base = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return base === '' ? undefined : base;
}

function formatOf(contentType: string | undefined, text: string): BodyFormat | { reason: string } {
  const type = mediaType(contentType);
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/json' || (type !== undefined && /^application\/[\w.+-]+\+json$/.test(type))) return 'json';
  // No Content-Type at all: guess from the first character rather than refuse a valid message.
  if (type === undefined) return text.trimStart().startsWith('{') ? 'json' : 'form';
  return { reason: `unsupported content type ${oneLine(type, 100)}: expected application/json or application/x-www-form-urlencoded` };
}

/** The raw attribute values, before validation: form values are strings, JSON may be anything. */
type RawFields = Record<string, unknown>;

/** Wrapped, so a body with a field named "reason" is not taken for a failure. */
function readFields(format: BodyFormat, text: string): { fields: RawFields } | { reason: string } {
  if (format === 'form') {
    const params = new URLSearchParams(text);
    const fields: RawFields = {};
    // First occurrence wins, as URLSearchParams.get does. Object.hasOwn: a key named
    // "constructor" or "__proto__" is a field like any other, not the object's prototype.
    for (const [key, value] of params) if (!Object.hasOwn(fields, key)) Object.defineProperty(fields, key, { value, enumerable: true, writable: true });
    return { fields };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the body: cut and escaped, so a raw newline cannot forge a log line.
    return { reason: `body is not valid JSON: ${oneLine((error as Error).message, 200)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { reason: 'JSON body must be an object' };
  }
  return { fields: parsed as RawFields };
}

function requiredString(fields: Readonly<RawFields>, key: string): string | { reason: string } {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (value === undefined || value === null) return { reason: `${key} is missing` };
  if (typeof value !== 'string') return { reason: `${key} must be a string` };
  const trimmed = value.trim();
  if (trimmed === '') return { reason: `${key} is empty` };
  if (trimmed.length > 200) return { reason: `${key} is longer than 200 characters` };
  return trimmed;
}

function isReason(value: unknown): value is { reason: string } {
  return typeof value === 'object' && value !== null && 'reason' in value;
}

/** Validates a webhook body. `contentType` is the request's Content-Type header as sent. */
export function parseWebhookBody(contentType: string | undefined, body: string | Buffer): ParseResult {
  // A UTF-8 byte order mark is legal before JSON text (RFC 8259 lets parsers ignore it) and some senders add one.
  const text = (typeof body === 'string' ? body : body.toString('utf8')).replace(/^\uFEFF/, '');
  if (text.trim() === '') return { ok: false, reason: 'body is empty' };
  const format = formatOf(contentType, text);
  if (isReason(format)) return { ok: false, reason: format.reason };
  const read = readFields(format, text);
  if (!('fields' in read)) return { ok: false, reason: read.reason };
  return messageFromFields(read.fields);
}

/**
 * Validates the attributes of a body already read (form values or a JSON object): the part `serve`
 * and `replay` (JSON lines) share, so both accept and refuse the same messages.
 */
export function messageFromFields(fields: Readonly<Record<string, unknown>>): ParseResult {
  const objectType = requiredString(fields, 'object_type');
  if (isReason(objectType)) return { ok: false, reason: objectType.reason };
  const eventType = requiredString(fields, 'event_type');
  if (isReason(eventType)) return { ok: false, reason: eventType.reason };
  const application = requiredString(fields, 'application');
  if (isReason(application)) return { ok: false, reason: application.reason };

  if (fields.object_id === undefined || fields.object_id === null || fields.object_id === '') {
    return { ok: false, reason: 'object_id is missing' };
  }
  const objectId = parsePositiveId(fields.object_id);
  if (objectId === undefined) return { ok: false, reason: 'object_id must be a positive integer' };

  const message: WebhookMessage = { objectType, objectId, eventType, application };
  const rawSite = fields.site_id;
  if (rawSite !== undefined && rawSite !== null && rawSite !== '') {
    // Read as the platform client reads a record's site_id: 7 and "7" are one site.
    const siteId = parsePositiveId(rawSite);
    if (siteId === undefined) return { ok: false, reason: 'site_id must be a positive integer' };
    message.siteId = siteId;
  }
  return { ok: true, message };
}
