/**
 * A jsforce 3 Connection from SalesforceSettings, with the one of four authentications the settings
 * resolved (config's SalesforceLogin, checked whole there):
 *   instance URL + access token | OAuth client credentials | OAuth username-password | JWT bearer.
 * Every OAuth flow gets a `refreshFn`, so an expired session is re-authorised transparently, once:
 * a second 401 right after a re-authorisation is an error, not a loop.
 * Every HTTP response of the connection is observable (call counts, Sforce-Limit-Info).
 */
import { readFile } from 'node:fs/promises';
import type { Connection, HttpRequest, HttpRequestOptions, HttpResponse, StreamPromise } from 'jsforce';
import type * as JsforceCore from 'jsforce/core';
import { lazyModule } from '../model/lazyModule.js';
import type { SalesforceLogin, SalesforceSettings } from '../config/settings.js';
import { PassThrough } from 'node:stream';
import { SalesforceAuthError, SalesforceError } from '../model/errors.js';
import { sleep } from '../model/sleep.js';
import { signJwtAssertion } from './jwt.js';
import { notApiBody, notSalesforceApi, passesThrough } from './errors.js';
import { isOrgId } from '../model/orgId.js';
import { plainRequest, type PlainAnswer } from '../model/plainHttp.js';
import { ANSWER_LIMIT_BYTES } from '../model/httpRules.js';

// jsforce's core (the connection, no API add-ons: bulk is our own), loaded when a command reaches
// Salesforce, not at start: the full package costs several times Node's own start-up.
const jsforceCore = lazyModule<typeof JsforceCore>('jsforce/core');

type AuthMethod = SalesforceLogin['method'];

type ResponseListener = (req: HttpRequest, res: HttpResponse | undefined, err: unknown) => void;

export interface SalesforceSession {
  /** jsforce's connection, made (and jsforce's core loaded) on first use: the session check needs neither. */
  readonly connection: Connection;
  method: AuthMethod;
  apiVersion: string;
  /** OAuth token requests made: the first login and each re-authorisation. */
  authCalls(): number;
  /** Called after every HTTP request of the connection (jsforce's own retries are switched off). */
  onResponse(listener: ResponseListener): void;
  /** The org's id: from the OAuth identity URL, or the session id's prefix (Salesforce's form: 00D...!...). */
  orgId(): string | undefined;
  /** The instance the session talks to (a renewal may move it), without making the connection. */
  instanceUrl(): string;
  /**
   * A GET of an API path (`/limits`) sent without jsforce while the connection is not made yet:
   * the parsed body of a 2xx JSON answer. undefined for any other answer, a network failure, or
   * once the connection exists: the caller then asks through the connection, whose renewal,
   * retries and errors are the ones every call meets. Seen by onResponse like any call.
   */
  getEarly(path: string, stop?: AbortSignal): Promise<unknown>;
}

interface TokenResponse {
  access_token: string;
  instance_url: string;
  /** The identity URL, .../id/<org id>/<user id>. */
  id?: string | undefined;
}

/**
 * The org id an OAuth answer or a session id carries, if any: only one the org-id rule accepts
 * (model/orgId.ts, the rule the org records are read by), so what the login takes the guard reads.
 */
function orgIdOf(t: TokenResponse): string | undefined {
  // The identity URL, when the answer has one, says which org: the session id's prefix only without it.
  const id = t.id === undefined ? /^([^!]+)!/.exec(t.access_token)?.[1] : /\/id\/([^/]+)\//.exec(t.id)?.[1];
  return id !== undefined && isOrgId(id) ? id : undefined;
}

interface TransportLike {
  httpRequest(req: HttpRequest, options?: HttpRequestOptions): StreamPromise<HttpResponse>;
}

/** SF_TIMEOUT_MS's default: the longest one Salesforce request (login, check, query, write) may take. */
const SF_TIMEOUT_MS = 120_000;

/**
 * After a stop (Ctrl-C, SIGTERM), how long a Salesforce request in flight, or one started since
 * (the run's record), may still take: the batch in flight usually ends, a held one does not hold
 * the run (and its lock) for the whole timeout.
 */
const STOP_GRACE_MS = 5_000;

/** How each request of a session is bounded: its timeout, and the run's stop. */
interface Bounds {
  timeoutMs: number;
  stop?: AbortSignal | undefined;
}

/** A signal aborted STOP_GRACE_MS after the stop (or after now, if the stop came already), with the stop's reason. */
function graceAfter(stop: AbortSignal | undefined): { signal?: AbortSignal; dispose(): void } {
  if (stop === undefined) return { dispose: () => undefined };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => void (timer = setTimeout(() => controller.abort(stop.reason), STOP_GRACE_MS));
  if (stop.aborted) arm();
  else stop.addEventListener('abort', arm, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      stop.removeEventListener('abort', arm);
    },
  };
}

/** The most one Salesforce answer may hold (the token call's, a query page, a Bulk job's results). */
const MAX_BYTES = ANSWER_LIMIT_BYTES.salesforce;

/** Token requests that got no answer at all are tried this often, the first included (Salesforce's own calls: api.ts). */
const LOGIN_ATTEMPTS = 3;
const LOGIN_BACKOFF_MS = 500;

/**
 * The token request, sent again when nothing answered (a refused connection, a dropped one): a
 * login URL that stays silent is a host out of reach (exit 69), named with what was tried, not a
 * refused login. A request that ran into its timeout is not sent again: its wait was bound enough.
 */
async function postToken(url: string, form: string, bounds: Bounds): Promise<PlainAnswer> {
  const began = Date.now();
  for (let attempt = 1; ; attempt++) {
    const grace = graceAfter(bounds.stop);
    try {
      return await plainRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        timeoutMs: bounds.timeoutMs,
        signal: grace.signal,
        maxBytes: MAX_BYTES,
      });
    } catch (err) {
      if (passesThrough(err)) throw err;
      const timedOut = (err as { code?: unknown }).code === 'ETIMEDOUT';
      if (attempt >= LOGIN_ATTEMPTS || timedOut || bounds.stop?.aborted === true) {
        const e = new SalesforceError('NETWORK_ERROR', `login URL ${url}: ${(err as Error).message}`);
        const ms = Date.now() - began;
        e.unanswered = attempt === 1 ? '(1 attempt)' : `(${attempt} attempts over ${(ms / 1000).toFixed(1)} s)`;
        throw e;
      }
    } finally {
      grace.dispose();
    }
    await sleep(LOGIN_BACKOFF_MS * 2 ** (attempt - 1));
  }
}

/** Posts one OAuth token request. Error text comes from Salesforce's error fields, never from our parameters. */
async function requestToken(loginUrl: string, params: Record<string, string>, bounds: Bounds): Promise<TokenResponse> {
  const url = `${loginUrl.replace(/\/+$/, '')}/services/oauth2/token`;
  const res = await postToken(url, new URLSearchParams(params).toString(), bounds);
  const text = res.body;
  const ok = res.status >= 200 && res.status < 300;
  let body: Partial<TokenResponse & { error: string; error_description: string }> = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A non-JSON error (an HTML error page) is reported by status only; a 2xx one is no token endpoint's.
    if (ok) throw notSalesforceApi(url, res.status, notApiBody(String(res.headers['content-type'] ?? ''), text) ?? 'a body that is not JSON', 'SF_LOGIN_URL');
  }
  if (!ok || !body.access_token || !body.instance_url) {
    const reason = body.error ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}` : `HTTP ${res.status}`;
    throw new SalesforceAuthError(`Salesforce refused the ${params.grant_type} login at ${url} (${reason})`);
  }
  return { access_token: body.access_token, instance_url: body.instance_url, id: typeof body.id === 'string' ? body.id : undefined };
}

/** One OAuth token request for the login the settings resolved (an access token alone cannot be renewed). */
function loginWith(login: SalesforceLogin, privateKey: string | undefined, bounds: Bounds): Promise<TokenResponse> {
  switch (login.method) {
    case 'client_credentials':
      return requestToken(login.loginUrl, { grant_type: 'client_credentials', client_id: login.clientId, client_secret: login.clientSecret }, bounds);
    case 'password':
      return requestToken(login.loginUrl, { grant_type: 'password', client_id: login.clientId, client_secret: login.clientSecret, username: login.username, password: login.password }, bounds);
    case 'jwt':
      return requestToken(
        login.loginUrl,
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: signJwtAssertion({ iss: login.clientId, sub: login.username, aud: login.loginUrl }, privateKey as string),
        },
        bounds,
      );
    case 'access_token':
      return Promise.reject(new SalesforceAuthError('the access token expired or is invalid, and no OAuth credentials are configured to renew it'));
  }
}

/** `stop`: the run's stop; each request then gets STOP_GRACE_MS more at most. */
export async function connectSalesforce(settings: SalesforceSettings, stop?: AbortSignal): Promise<SalesforceSession> {
  const { login: how } = settings;
  const bounds: Bounds = { timeoutMs: settings.timeoutMs ?? SF_TIMEOUT_MS, stop };
  const method = how.method;
  let authCalls = 0;
  const privateKey = how.method === 'jwt' ? await readKey(how.privateKeyFile) : undefined;

  const login = async (): Promise<TokenResponse> => {
    authCalls++;
    return loginWith(how, privateKey, bounds);
  };

  // Set by the response observer: a re-authorisation is allowed again once a call has succeeded.
  let refreshedSinceLastSuccess = false;
  const refreshFn = (conn: Connection, callback: (err: Error | null | undefined, accessToken?: string) => void): void => {
    if (refreshedSinceLastSuccess) {
      callback(new SalesforceAuthError('Salesforce rejected the session again right after re-authorising'));
      return;
    }
    refreshedSinceLastSuccess = true;
    login().then(
      (t) => {
        conn.instanceUrl = t.instance_url;
        orgId = orgIdOf(t) ?? orgId;
        callback(null, t.access_token);
      },
      (err: Error) => {
        // No new session came of it: the next call (a later batch of serve) may try to log in again.
        refreshedSinceLastSuccess = false;
        callback(err);
      },
    );
  };

  const first: TokenResponse = how.session ? { instance_url: how.session.instanceUrl, access_token: how.session.accessToken } : await login();
  let orgId = orgIdOf(first);

  const listeners: ResponseListener[] = [
    (_req, res) => {
      if (res && res.statusCode !== 401) refreshedSinceLastSuccess = false;
    },
  ];
  let connection: Connection | undefined;
  const connect = (): Connection => {
    const JsforceConnection = jsforceCore().Connection;
    const made = new JsforceConnection({
      instanceUrl: first.instance_url,
      accessToken: first.access_token,
      version: settings.apiVersion,
      ...(method === 'access_token' ? {} : { refreshFn }),
    });
    // Every request of the connection goes through this tool's one HTTP function instead of
    // jsforce's fetch: the same proxy rule, redirect rule (never followed), timeout and stop as the
    // login and the session check; no retry inside (this tool's policy retries, seeing each call).
    const transport = (made as unknown as { _transport: TransportLike })._transport;
    transport.httpRequest = (req) => {
      const p = sendRequest(req, bounds);
      p.then(
        (res) => listeners.forEach((l) => l(req, res, undefined)),
        (err: unknown) => listeners.forEach((l) => l(req, undefined, err)),
      );
      return streamPromiseOf(p);
    };
    return made;
  };

  return {
    get connection() {
      return (connection ??= connect());
    },
    method,
    apiVersion: settings.apiVersion,
    authCalls: () => authCalls,
    onResponse: (l) => listeners.push(l),
    orgId: () => orgId,
    instanceUrl: () => connection?.instanceUrl ?? first.instance_url,
    getEarly: (path, stop) => (connection ? Promise.resolve(undefined) : getWithoutClient(first, settings.apiVersion, path, listeners, { ...bounds, stop })),
  };
}

/** One request of jsforce's connection, sent by plainRequest; the answer as jsforce's transport gives it. */
async function sendRequest(req: HttpRequest, bounds: Bounds): Promise<HttpResponse> {
  const grace = graceAfter(bounds.stop);
  const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const body = typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : undefined;
  try {
    const a = await plainRequest(req.url, { method: req.method, headers, body, timeoutMs: bounds.timeoutMs, signal: grace.signal, maxBytes: MAX_BYTES });
    // A 2xx of HTML or broken JSON is not the API's: said so, not left to jsforce's parser.
    const notApi = a.status >= 200 && a.status < 300 ? notApiBody(String(a.headers['content-type'] ?? ''), a.body) : undefined;
    if (notApi !== undefined) throw notSalesforceApi(req.url, a.status, notApi);
    return { statusCode: a.status, headers: flatHeaders(a.headers), body: a.body };
  } finally {
    grace.dispose();
  }
}

const flatHeaders = (h: PlainAnswer['headers']): Record<string, string> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));

/** The answer as jsforce's HttpApi takes it: a promise with the body's stream beside it. */
function streamPromiseOf(p: Promise<HttpResponse>): StreamPromise<HttpResponse> {
  const body = new PassThrough();
  p.then(
    (res) => body.end(res.body),
    () => body.end(),
  );
  return Object.assign(
    p.then((r) => r),
    { stream: () => body },
  ) as unknown as StreamPromise<HttpResponse>;
}

/** getEarly's request: the token as jsforce sends it, the answer shown to the listeners as jsforce's are. */
async function getWithoutClient(session: TokenResponse, apiVersion: string, path: string, listeners: ResponseListener[], bounds: Bounds): Promise<unknown> {
  const url = `${session.instance_url.replace(/\/+$/, '')}/services/data/v${apiVersion}${path}`;
  const req: HttpRequest = { method: 'GET', url };
  let answer: PlainAnswer;
  try {
    answer = await plainRequest(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${session.access_token}`, accept: 'application/json' },
      timeoutMs: bounds.timeoutMs,
      signal: bounds.stop,
      maxBytes: MAX_BYTES,
    });
  } catch (err) {
    // A redirect, a proxy's refusal or a stop is the answer: asking again through the connection
    // would meet the same, later. Anything else (a timeout, a reset) is asked again there.
    if (bounds.stop?.aborted || passesThrough(err)) throw err;
    return undefined;
  }
  listeners.forEach((l) => l(req, { statusCode: answer.status, headers: flatHeaders(answer.headers), body: answer.body }, undefined));
  if (answer.status < 200 || answer.status >= 300) return undefined;
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}

async function readKey(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new SalesforceAuthError(`cannot read SF_PRIVATE_KEY_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
