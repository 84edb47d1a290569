/**
 * The HTTP layer of the platform client: one got instance, our own retry policy, rate-limit
 * pacing, and the conversion of every failure into a PlatformError.
 *
 * got's own retry is off: it would retry inside a single call, invisible to the pacer and to the
 * request counts, and it sleeps on Retry-After without telling anyone. got's errors carry the
 * request options (the X-Api-Key header included), so none of them leaves this file: callers get
 * a PlatformError with method, path, status and the API's message only.
 */
import type { Agent as HttpsAgent } from 'node:https';
import type { Got, Response } from 'got';
import type { PlatformSettings } from '../config/settings.js';
import type { PlatformRequestCounts } from '../model/ports.js';
import { AnswerTooLargeError, CertificateError, PlatformError, ProxyError, RedirectError, type PlatformErrorKind } from '../model/errors.js';
import { ANSWER_LIMIT_BYTES, agentFor, answerTooLarge, certificateErrorOf, redirectOf } from '../model/httpRules.js';
import { plainRequest } from '../model/plainHttp.js';
import { sleep } from '../model/sleep.js';
import { apiMessageOf, classify, parseBody, type Answer } from './answers.js';
import { RatePacer, retryAfterMs, stoppableSleep, type OnWait, type RateLimitSnapshot } from './rateLimit.js';

type RequestKind = 'byId' | 'list';

/** Reported after every attempt, for progress output and tests. */
export interface RequestInfo {
  method: 'GET';
  path: string;
  kind: RequestKind;
  attempt: number;
  /** HTTP status; undefined after a network error or timeout. */
  status?: number | undefined;
  /** The attempt will be repeated (5xx, network, timeout, 429). */
  willRetry: boolean;
}

export interface PlatformHooks {
  onWait?: OnWait | undefined;
  /** The run's stop signal: a rate-limit wait ends at once when it fires, and no request starts after it. */
  stop?: AbortSignal | undefined;
  /** The stop as requests already sent see it: a few seconds later (stopGrace.ts); `stop` when absent. */
  inFlight?: AbortSignal | undefined;
  onRequest?: ((info: RequestInfo) => void) | undefined;
  /** After each response that reported the rate-limit budget (metrics). */
  onBudget?: ((budget: RateLimitSnapshot) => void) | undefined;
  /** The budget shared with other receivers could not be reached (pacing goes on locally meanwhile). */
  onSharedError?: ((error: unknown) => void) | undefined;
}

/** Knobs of the retry policy; the defaults suit the real API, tests shorten them. */
export interface RetryTuning {
  /** Retries after a 5xx, network error, timeout or unreadable body (not counting 429s). */
  retries: number;
  /** First backoff delay; doubled per retry, with full jitter between half and all of it. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** 429s one request waits out whatever they ask; 0: a 429 fails the request at once (a check that must not wait). */
  rateLimitRetries: number;
  /**
   * Longest single wait taken from a Retry-After header (or a reset): a longer one is waited this
   * long, then the request tries again. Every wait is announced via onWait.
   */
  maxRetryAfterMs: number;
  /**
   * After rateLimitRetries 429s, a request still waits while its waits add up to less than this:
   * a run that reaches the hourly limit finishes later instead of failing; a platform that refuses
   * the key for hours on end fails the request.
   */
  rateLimitPatienceMs: number;
}

export const PLATFORM_RETRY: RetryTuning = {
  retries: 4,
  retryBaseMs: 500,
  retryMaxMs: 15_000,
  rateLimitRetries: 5,
  maxRetryAfterMs: 15 * 60_000,
  // The hourly window renews within the hour: two hours of 429s is a key that will not be served.
  rateLimitPatienceMs: 2 * 3_600_000,
};

/** "45 s", or "120 min" past two minutes. */
const spanOf = (ms: number): string => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

export type SearchParams = Record<string, string | number>;

/** The most one platform answer may hold, decompressed. */
const MAX_BYTES = ANSWER_LIMIT_BYTES.platform;

function emptyRequestCounts(): PlatformRequestCounts {
  return { total: 0, byId: 0, list: 0, retries: 0, rateLimitWaits: 0, waitedMs: 0 };
}

/** The client's got instance, made on its first request: commands that never reach the platform
 * (help, schema, queue) do not load got. */
type GotSource = () => Promise<Got>;

export function createGot(settings: PlatformSettings, stop?: AbortSignal): GotSource {
  // Loading starts with the client (made to send requests), so that it overlaps what a run does
  // before its first request: the Salesforce session check's round trip.
  const loading = import('got');
  loading.catch(() => undefined);
  let made: Promise<Got> | undefined;
  return () => (made ??= loading.then(({ default: got }) => extendGot(got, settings, stop)));
}

/** Every platform request's headers, whichever client sends it. */
const headersOf = (settings: PlatformSettings): Record<string, string> => ({ 'x-api-key': settings.apiKey, accept: 'application/json', 'user-agent': 'svc-sync' });
/** The API's base URL without a trailing slash: got's prefix adds /v1, the first request's URL the shown path. */
const baseOf = (settings: PlatformSettings): string => settings.apiUrl.replace(/\/+$/, '');

function extendGot(got: Got, settings: PlatformSettings, stop: AbortSignal | undefined): Got {
  // The proxy rule of every client (httpRules.ts): one base URL, so one agent (or Node's own);
  // for an https URL it is an https agent.
  const agent = agentFor(baseOf(settings), settings.timeoutMs);
  return got.extend({
    ...(agent ? { agent: { http: agent, https: agent as HttpsAgent } } : {}),
    // A stopped run abandons its requests in flight once the stop's grace is over, instead of waiting out a stalled one.
    ...(stop ? { signal: stop } : {}),
    prefixUrl: `${baseOf(settings)}/v1`,
    headers: headersOf(settings),
    // Without a timeout got waits forever on a stalled connection.
    timeout: { request: settings.timeoutMs },
    // Our loop below retries; maxRetryAfter 0 makes sure got never sleeps on a Retry-After itself.
    retry: { limit: 0, maxRetryAfter: 0 },
    // Statuses are classified below; a text body means an HTML error page cannot crash JSON.parse.
    throwHttpErrors: false,
    responseType: 'text',
    // The redirect rule of every client: never followed (the API key would go along); send() names both hosts.
    followRedirect: false,
  });
}

/** The base URL as it may be shown: without a user name or password. */
export function shownBaseUrl(apiUrl: string): string {
  try {
    const u = new URL(apiUrl);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return '(SVC_API_URL)';
  }
}

const codeOf = (error: unknown): string => (error !== null && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : 'UNKNOWN');

/** A got failure reduced to a code: its message and options are never passed on. */
function networkFailure(error: unknown, timeoutMs: number): { kind: PlatformErrorKind; message: string; retryable: boolean } {
  const name = error instanceof Error ? error.name : '';
  const code = codeOf(error);
  if (name === 'TimeoutError' || code === 'ETIMEDOUT') {
    return { kind: 'timeout', message: `no response within ${timeoutMs} ms`, retryable: true };
  }
  // A malformed URL or an unknown option will not get better by retrying.
  const retryable = !code.startsWith('ERR_INVALID') && code !== 'ERR_UNSUPPORTED_PROTOCOL';
  return { kind: 'network', message: `network error (${code})`, retryable };
}

/** What one attempt means: a body, a failure worth a backoff and retry, a 429 to wait out, or the end. */
type Verdict =
  | { kind: 'ok'; status: number; json: unknown }
  | { kind: 'transient'; status: number | undefined; error: PlatformError }
  | { kind: 'limited'; status: number; waitMs: number; error: PlatformError }
  | { kind: 'final'; status: number | undefined; error: PlatformError };

export class PlatformHttp {
  readonly counts: PlatformRequestCounts = emptyRequestCounts();
  /** Set after a 401/403: every later request of the run would fail the same way, so none is sent. */
  private fatal: PlatformError | undefined;
  /** Whether this client has sent a request yet (its first goes out while got loads). */
  private sentOne = false;

  /** A new run may try again (a long-lived `serve` outlives a key rotation or a gateway hiccup). */
  clearFatal(): void {
    this.fatal = undefined;
  }

  constructor(
    private readonly got: GotSource,
    private readonly settings: PlatformSettings,
    readonly pacer: RatePacer,
    private readonly hooks: PlatformHooks = {},
    private readonly retry: RetryTuning = PLATFORM_RETRY,
  ) {}

  /** GET a path below /v1 and return its parsed JSON body, or throw a PlatformError. */
  get(path: string, kind: RequestKind, searchParams?: SearchParams): Promise<unknown> {
    return this.pacer.run(() => this.attempts(path, kind, searchParams));
  }

  private shownPath(path: string, searchParams?: SearchParams): string {
    const query = searchParams ? new URLSearchParams(Object.entries(searchParams).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
    return `/v1/${path}${query ? `?${query}` : ''}`;
  }

  private backoff(retry: number): number {
    const ceiling = Math.min(this.retry.retryMaxMs, this.retry.retryBaseMs * 2 ** (retry - 1));
    // Jitter spreads the retries of concurrent requests so they do not hit a recovering server together.
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /**
   * Sends the request until it succeeds or must fail: transient failures (network, timeout, 5xx,
   * a 200 that is not JSON) back off and retry, 429s wait as the API asks, anything else fails.
   */
  private async attempts(path: string, kind: RequestKind, searchParams?: SearchParams): Promise<unknown> {
    const shown = this.shownPath(path, searchParams);
    let failures = 0;
    let limited = 0;
    let limitedMs = 0;
    const began = Date.now();
    for (let attempt = 1; ; attempt++) {
      if (this.fatal) throw new PlatformError(this.fatal.kind, 'GET', shown, this.fatal.status, this.fatal.apiMessage);
      const verdict = await this.attempt(path, kind, shown, attempt > 1, searchParams);
      const willRetry = verdict.kind === 'transient' ? failures < this.retry.retries : verdict.kind === 'limited' ? this.waitsOut(limited, limitedMs) : false;
      this.report(shown, kind, attempt, verdict.status, willRetry);
      if (verdict.kind === 'ok') return verdict.json;
      if (!willRetry) {
        if (verdict.kind === 'limited' && limited > 0) {
          throw new PlatformError('rate_limited', 'GET', shown, verdict.status, `${verdict.error.apiMessage} (${limited + 1} answers 429 in a row, ${spanOf(limitedMs)} waited)`);
        }
        if (verdict.error.kind === 'auth') this.fatal = verdict.error;
        if (verdict.error.kind === 'network' || verdict.error.kind === 'timeout') throw this.unanswered(verdict.error, attempt, Date.now() - began);
        throw verdict.error;
      }
      if (verdict.kind === 'limited') {
        limited += 1;
        // A long Retry-After is waited in stretches of at most maxRetryAfterMs, looking again after each.
        limitedMs += this.pacer.block(verdict.waitMs);
        this.counts.rateLimitWaits = this.pacer.waits;
      } else {
        failures += 1;
        // A stop (Ctrl-C, SIGTERM) ends the backoff at once, as it ends a rate-limit wait.
        await (this.hooks.stop ? stoppableSleep(this.hooks.stop) : sleep)(this.backoff(failures));
      }
    }
  }

  /** A request nothing answered: the host it went to and what was tried, for the one line a person reads. */
  private unanswered(error: PlatformError, attempts: number, ms: number): PlatformError {
    const tried = attempts === 1 ? '1 attempt' : `${attempts} attempts over ${(ms / 1000).toFixed(1)} s`;
    error.unanswered = `from ${shownBaseUrl(this.settings.apiUrl)} (${tried})`;
    return error;
  }

  /** One request, paced and counted, and what it means for the loop above. */
  private async attempt(path: string, kind: RequestKind, shown: string, isRetry: boolean, searchParams?: SearchParams): Promise<Verdict> {
    // Stopped: nothing more is sent (a retry included); requests sent before may still finish.
    this.hooks.stop?.throwIfAborted();
    const ticket = await this.pacer.acquire();
    this.counts.total += 1;
    this.counts[kind] += 1;
    if (isRetry) this.counts.retries += 1;

    let response: Answer;
    try {
      response = await this.send(path, searchParams);
    } catch (error) {
      this.pacer.settle(ticket);
      // Abandoned because the run was stopped: not the record's failure, never retried.
      if (this.hooks.stop?.aborted) throw this.hooks.stop.reason;
      // A redirect, a proxy's refusal, an untrusted certificate, an answer past its bound: the same
      // for every request of the run, and a setting to fix.
      if (error instanceof RedirectError || error instanceof AnswerTooLargeError || error instanceof CertificateError) throw error;
      if (codeOf(error) === 'ERR_PROXY') throw new ProxyError((error as Error).message);
      const certificate = certificateErrorOf(this.settings.apiUrl, error);
      if (certificate !== undefined) throw certificate;
      const failure = networkFailure(error, this.settings.timeoutMs);
      const failed = new PlatformError(failure.kind, 'GET', shown, undefined, failure.message);
      return failure.retryable ? { kind: 'transient', status: undefined, error: failed } : { kind: 'final', status: undefined, error: failed };
    }
    this.pacer.settle(ticket, response.headers);
    this.counts.rateLimitWaits = this.pacer.waits;
    if (this.hooks.onBudget !== undefined && response.headers['x-ratelimit-remaining-minute'] !== undefined) this.hooks.onBudget(this.pacer.snapshot());
    const status = response.statusCode;
    const parsed = parseBody(response);

    if (status >= 200 && status < 300) {
      if (parsed.notJson === undefined) return { kind: 'ok', status, json: parsed.json };
      // A 200 with an HTML page comes from a proxy in trouble: treat it like a 5xx.
      return { kind: 'transient', status, error: new PlatformError('invalid_response', 'GET', shown, status, `HTTP ${status} with ${parsed.notJson}`) };
    }
    const errorKind = classify(status, parsed);
    const message = apiMessageOf(parsed, status);
    if (errorKind === 'not_platform') {
      // Retried and kept like a 5xx: a proxy or maintenance page may pass, and nothing is lost meanwhile.
      const what = parsed.notJson ?? "JSON that is not the platform's not-found answer";
      const error = new PlatformError(
        'not_platform',
        'GET',
        shown,
        status,
        `HTTP 404 with ${what} from ${shownBaseUrl(this.settings.apiUrl)}${shown}: not the platform API's answer (check SVC_API_URL)`,
      );
      return { kind: 'transient', status, error };
    }
    if (errorKind === 'rate_limited') {
      const waitMs = retryAfterMs(response.headers) ?? this.pacer.resetInMs() ?? 60_000;
      return { kind: 'limited', status, waitMs, error: new PlatformError('rate_limited', 'GET', shown, status, message) };
    }
    if (errorKind === 'server') return { kind: 'transient', status, error: new PlatformError('server', 'GET', shown, status, message) };
    if (errorKind === 'auth') {
      const hint = status === 401 ? 'the API key was refused; check SVC_API_KEY' : 'access denied for this API key';
      return { kind: 'final', status, error: new PlatformError('auth', 'GET', shown, status, `${message} (${hint})`) };
    }
    return { kind: 'final', status, error: new PlatformError(errorKind, 'GET', shown, status, message) };
  }

  /**
   * One GET. A run's first request is sent by Node's own client, with the same URL, headers,
   * timeout and stop, while got (a few hundred kilobytes of modules) loads during its round trip;
   * every other request, a retry of the first included, goes through got.
   */
  private async send(path: string, searchParams?: SearchParams): Promise<Answer> {
    if (!this.sentOne) {
      this.sentOne = true;
      const url = `${baseOf(this.settings)}${this.shownPath(path, searchParams)}`;
      const a = await plainRequest(url, { method: 'GET', headers: headersOf(this.settings), timeoutMs: this.settings.timeoutMs, signal: this.stopped(), maxBytes: MAX_BYTES });
      return { statusCode: a.status, headers: a.headers, body: a.body };
    }
    // got buffers the whole body, decompressed: dropped at the bound, which it counts after
    // decompression, so neither a huge page nor a gzip bomb is held. The run's stop still applies.
    const bound = new AbortController();
    const stopped = this.stopped();
    const signal = stopped ? AbortSignal.any([stopped, bound.signal]) : bound.signal;
    const request = (await this.got()).get(path, { ...(searchParams ? { searchParams } : {}), signal });
    let over = false;
    request.on('downloadProgress', (p: { transferred: number }) => {
      if (p.transferred > MAX_BYTES && !over) {
        over = true;
        bound.abort();
      }
    });
    const r: Response<string> = await request.catch((error: unknown) => {
      throw over ? answerTooLarge(this.settings.apiUrl, MAX_BYTES) : error;
    });
    const redirect = redirectOf('GET', r.url, r.statusCode, r.headers.location);
    if (redirect !== undefined) throw redirect;
    return { statusCode: r.statusCode, headers: r.headers, body: r.body };
  }

  private stopped(): AbortSignal | undefined {
    return this.hooks.inFlight ?? this.hooks.stop;
  }

  /** Whether one more 429 is waited out: a few always, then while the waits stay within the patience. */
  private waitsOut(limited: number, limitedMs: number): boolean {
    if (this.retry.rateLimitRetries <= 0) return false;
    return limited < this.retry.rateLimitRetries || limitedMs < this.retry.rateLimitPatienceMs;
  }

  private report(path: string, kind: RequestKind, attempt: number, status: number | undefined, willRetry: boolean): void {
    this.hooks.onRequest?.({ method: 'GET', path, kind, attempt, status, willRetry });
  }
}
