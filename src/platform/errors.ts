/**
 * Errors that leave the platform client. They carry the method, path, status and the API's
 * message and nothing else: got's own errors hold the request options, API key included.
 */
/**
 * not_found: the platform's own not-found answer (the record is gone). not_platform: a 404 in
 * any other shape (an HTML page, an empty body, foreign JSON): the URL does not reach the API,
 * which says nothing about the record.
 */
export type PlatformErrorKind = 'not_found' | 'not_platform' | 'auth' | 'bad_request' | 'rate_limited' | 'server' | 'network' | 'timeout' | 'invalid_response';

export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  constructor(
    readonly kind: PlatformErrorKind,
    readonly method: string,
    readonly path: string,
    readonly status: number | undefined,
    readonly apiMessage: string,
  ) {
    super(`${method} ${path}${status === undefined ? '' : ` -> ${status}`}: ${apiMessage}`);
  }

  /** 401/403: the key or the URL is wrong; no record can succeed, so a run stops. */
  get fatal(): boolean {
    return this.kind === 'auth';
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, method: this.method, path: this.path, status: this.status, message: this.apiMessage };
  }
}
