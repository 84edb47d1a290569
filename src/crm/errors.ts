/** What jsforce and its HTTP client throw, turned into the model's Salesforce errors. */
import { oneLine } from '../config/echo.js';
import { AnswerTooLargeError, ApiLimitError, CertificateError, InterruptedError, ProxyError, RedirectError, SalesforceAuthError, SalesforceError, isFatal } from '../model/errors.js';
import { escapeControls } from '../model/lineSafe.js';

/**
 * Whether an error must pass every wrapper unchanged: it says what to fix (a redirect, a proxy, a
 * certificate, an answer past its bound), or that the run was stopped.
 */
export const passesThrough = (err: unknown): boolean =>
  err instanceof RedirectError || err instanceof ProxyError || err instanceof InterruptedError || err instanceof CertificateError || err instanceof AnswerTooLargeError;

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'ENETDOWN', 'ENETUNREACH', 'EHOSTDOWN', 'UND_ERR_SOCKET', 'EAI_AGAIN']);

/** Codes worth a retry of the same request: the records themselves are fine. */
export function isTransientCode(code: string): boolean {
  return (
    code === 'UNABLE_TO_LOCK_ROW' ||
    code === 'SERVER_UNAVAILABLE' ||
    code === 'NETWORK_ERROR' ||
    code === 'CONCURRENT_REQUEST_LIMIT' ||
    // Salesforce's internal failure (HTTP 500): upserts on an external id and queries are safe to repeat.
    code === 'UNKNOWN_EXCEPTION' ||
    /^ERROR_HTTP_(500|502|503|504)$/.test(code)
  );
}

/**
 * The socket's code under undici's `TypeError: fetch failed` (jsforce's HTTP client from 3.10.17):
 * the failure itself is in `cause` (ECONNREFUSED, UND_ERR_SOCKET, ...), '' when there is none.
 */
function fetchFailureCode(e: { name?: unknown; message?: unknown; cause?: unknown } | null): string | undefined {
  if (e?.name !== 'TypeError' || e.message !== 'fetch failed') return undefined;
  const cause = e.cause as { code?: unknown; errors?: Array<{ code?: unknown }> } | undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Turns whatever jsforce or its HTTP client threw into a SalesforceError with Salesforce's code.
 * jsforce's HttpApiError carries `errorCode`; a network failure carries `code`, or (undici's fetch)
 * `cause.code`.
 */
export function toSalesforceError(err: unknown): SalesforceError {
  if (err instanceof SalesforceError) return err;
  const e = err as { errorCode?: unknown; code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | null;
  // Salesforce's text stays on the line that quotes it (a line break in it would forge a log line).
  const message = escapeControls(typeof e?.message === 'string' ? e.message : String(err));
  const fetchFailure = fetchFailureCode(e);
  const code = typeof e?.errorCode === 'string' ? e.errorCode : typeof e?.code === 'string' ? e.code : (fetchFailure ?? '');
  if (NETWORK_CODES.has(code) || /^UND_ERR_/.test(code) || fetchFailure !== undefined || e?.name === 'FetchError' || e?.name === 'AbortError') {
    return new SalesforceError('NETWORK_ERROR', `network error talking to Salesforce: ${code || message}`);
  }
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    // The same code means two things; only the daily one must stop the run.
    if (/TotalRequests/i.test(message)) {
      return new ApiLimitError(`Salesforce's daily API request allowance is used up (${message}); the run stops. Try again after the 24-hour window rolls over.`);
    }
    return new SalesforceError('CONCURRENT_REQUEST_LIMIT', `Salesforce refused a concurrent request (${message}); retrying later`);
  }
  if (/Unable to refresh session/i.test(message)) {
    return new SalesforceAuthError(`the Salesforce session expired and could not be renewed: ${message.replace(/^Unable to refresh session due to:\s*/, '')}`);
  }
  if (code === 'INVALID_SESSION_ID') {
    return new SalesforceAuthError(
      'the Salesforce session is invalid or expired, and no credentials are configured to renew it (set SF_CLIENT_ID/SF_CLIENT_SECRET, a username and password, or a JWT key)',
    );
  }
  if (code === 'UNKNOWN_EXCEPTION' || /^ERROR_HTTP_5\d\d$/.test(code)) {
    // Said plainly: a bare "An unexpected error occurred" could come from anywhere.
    return new SalesforceError(code, `Salesforce answered with an internal error (${code})${message ? `: ${oneLine(message, 300)}` : ''}`);
  }
  if (code === 'INVALID_FIELD' && /No such column/i.test(message)) {
    // A deployed field that field-level security hides looks exactly like a missing one.
    return new SalesforceError(code, `${message} (the field is missing from the org or hidden from this user by field-level security: run svc-sync doctor)`);
  }
  return new SalesforceError(code || 'UNKNOWN_ERROR', message || `Salesforce answered ${code || 'an error'} without a message`);
}

/**
 * The error a batch's records fail with. One no later batch can survive is thrown on instead, so
 * the run stops at once with its exit code: a redirect (never followed: every write would meet
 * it), a refusing proxy, a stop, or a kind the error table calls fatal.
 */
export function batchFailureOf(err: unknown): SalesforceError {
  if (passesThrough(err)) throw err;
  const e = toSalesforceError(err);
  if (isFatal(e)) throw e;
  return e;
}

/**
 * A 2xx answer that is not the API's (an HTML login page, a captive portal, JSON cut short or of
 * another shape): the URL does not reach Salesforce's REST API. Fatal, exit 2 (model/errors.ts).
 */
export function notSalesforceApi(url: string, status: number, what: string, setting = 'SF_INSTANCE_URL'): SalesforceError {
  let shown = '(the URL)';
  try {
    const u = new URL(url);
    shown = `${u.origin}${u.pathname}`;
  } catch {
    // Not a URL: the setting's name says which.
  }
  return new SalesforceError(
    'NOT_SALESFORCE_API',
    `${shown} answered ${status} with ${what}: not Salesforce's REST API (check ${setting}, and what answers in its place: a login page, a captive portal, a proxy)`,
  );
}

/** What a 2xx body is, when it cannot be the API's answer: HTML, or JSON that does not parse; undefined otherwise. */
export function notApiBody(contentType: string, body: string): string | undefined {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type.includes('html')) return `an HTML page (${type})`;
  if (!type.includes('json') || body.trim() === '') return undefined;
  try {
    JSON.parse(body);
    return undefined;
  } catch {
    return 'JSON cut short or broken';
  }
}
