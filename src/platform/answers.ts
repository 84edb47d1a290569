/**
 * What a platform answer means (http.ts's attempts): its body parsed or named as not JSON, the
 * API's message as one bounded line, and the kind of failure its status stands for.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { oneLine } from '../config/echo.js';
import type { PlatformErrorKind } from '../model/errors.js';

/** What one GET answered, whichever client sent it. */
export interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface ParsedBody {
  json?: unknown;
  /** Set when the body is not JSON (an HTML error page, an empty body). */
  notJson?: string;
}

export function parseBody(response: Answer): ParsedBody {
  const text = response.body ?? '';
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    const type = String(response.headers['content-type'] ?? 'no content type').split(';')[0];
    return { notJson: text.trim() === '' ? 'an empty body' : `a non-JSON body (${type})` };
  }
}

export function apiMessageOf(parsed: ParsedBody, status: number): string {
  if (parsed.json !== null && typeof parsed.json === 'object' && 'message' in parsed.json) {
    const message = (parsed.json as { message: unknown }).message;
    // The body is outside input: one bounded line, so it cannot forge log lines.
    if (typeof message === 'string' && message.trim() !== '') return oneLine(message, 300);
  }
  return parsed.notJson ? `HTTP ${status} with ${parsed.notJson}` : `HTTP ${status}`;
}

/**
 * The platform answers an unknown record with exactly {"message": "..."} in JSON. A 404 in any
 * other shape comes from something else at that URL (a proxy, a maintenance page, a typo in the
 * path) and must not be taken to mean the record is gone.
 */
function isPlatformNotFound(parsed: { json?: unknown }): boolean {
  const body = parsed.json;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'message' && typeof (body as { message: unknown }).message === 'string';
}

export function classify(status: number, parsed: ParsedBody): PlatformErrorKind {
  if (status === 404) return isPlatformNotFound(parsed) ? 'not_found' : 'not_platform';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  return 'bad_request';
}
