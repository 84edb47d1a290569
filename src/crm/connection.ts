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
import { SalesforceAuthError } from '../model/errors.js';
import { signJwtAssertion } from './jwt.js';
import { plainRequest, type PlainAnswer } from '../model/plainHttp.js';

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

/** The org id an OAuth answer or a session id carries, if any. */
function orgIdOf(t: TokenResponse): string | undefined {
  const fromId = t.id === undefined ? undefined : /\/id\/(00D[0-9A-Za-z]{12,15})\//.exec(t.id)?.[1];
  return fromId ?? /^(00D[0-9A-Za-z]{12,15})!/.exec(t.access_token)?.[1];
}

interface TransportLike {
  httpRequest(req: HttpRequest, options?: HttpRequestOptions): StreamPromise<HttpResponse>;
}

/** Longest wait for a token answer (fetch, used before, waited up to 300 s for the headers). */
const LOGIN_TIMEOUT_MS = 60_000;

/** Posts one OAuth token request. Error text comes from Salesforce's error fields, never from our parameters. */
async function requestToken(loginUrl: string, params: Record<string, string>): Promise<TokenResponse> {
  const url = `${loginUrl.replace(/\/+$/, '')}/services/oauth2/token`;
  let res: PlainAnswer;
  try {
    const form = new URLSearchParams(params).toString();
    res = await plainRequest(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form, timeoutMs: LOGIN_TIMEOUT_MS });
  } catch (err) {
    throw new SalesforceAuthError(`cannot reach the Salesforce login URL ${url}: ${(err as Error).message}`);
  }
  const text = res.body;
  const ok = res.status >= 200 && res.status < 300;
  let body: Partial<TokenResponse & { error: string; error_description: string }> = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A non-JSON answer (an HTML error page) is reported by status only.
  }
  if (!ok || !body.access_token || !body.instance_url) {
    const reason = body.error ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}` : `HTTP ${res.status}`;
    throw new SalesforceAuthError(`Salesforce refused the ${params.grant_type} login at ${url} (${reason})`);
  }
  return { access_token: body.access_token, instance_url: body.instance_url, id: typeof body.id === 'string' ? body.id : undefined };
}

/** One OAuth token request for the login the settings resolved (an access token alone cannot be renewed). */
function loginWith(login: SalesforceLogin, privateKey: string | undefined): Promise<TokenResponse> {
  switch (login.method) {
    case 'client_credentials':
      return requestToken(login.loginUrl, { grant_type: 'client_credentials', client_id: login.clientId, client_secret: login.clientSecret });
    case 'password':
      return requestToken(login.loginUrl, { grant_type: 'password', client_id: login.clientId, client_secret: login.clientSecret, username: login.username, password: login.password });
    case 'jwt':
      return requestToken(login.loginUrl, {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: signJwtAssertion({ iss: login.clientId, sub: login.username, aud: login.loginUrl }, privateKey as string),
      });
    case 'access_token':
      return Promise.reject(new SalesforceAuthError('the access token expired or is invalid, and no OAuth credentials are configured to renew it'));
  }
}

export async function connectSalesforce(settings: SalesforceSettings): Promise<SalesforceSession> {
  const { login: how } = settings;
  const method = how.method;
  let authCalls = 0;
  const privateKey = how.method === 'jwt' ? await readKey(how.privateKeyFile) : undefined;

  const login = async (): Promise<TokenResponse> => {
    authCalls++;
    return loginWith(how, privateKey);
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
    // jsforce retries GETs by itself and hides those requests; switch that off so every HTTP call
    // is seen here and retried (or not) by this tool's policy, for all methods alike.
    const transport = (made as unknown as { _transport: TransportLike })._transport;
    const original = transport.httpRequest.bind(transport);
    transport.httpRequest = (req, options) => {
      const p = original(req, { ...options, retry: { ...options?.retry, maxRetries: 0 } });
      p.then(
        (res) => listeners.forEach((l) => l(req, res, undefined)),
        (err: unknown) => listeners.forEach((l) => l(req, undefined, err)),
      );
      return p;
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
    getEarly: (path, stop) => (connection ? Promise.resolve(undefined) : getWithoutClient(first, settings.apiVersion, path, listeners, stop)),
  };
}

/** Longest wait for the early answer; past it the call is made again through the connection. */
const EARLY_TIMEOUT_MS = 30_000;

/** getEarly's request: the token as jsforce sends it, the answer shown to the listeners as jsforce's are. */
async function getWithoutClient(session: TokenResponse, apiVersion: string, path: string, listeners: ResponseListener[], stop?: AbortSignal): Promise<unknown> {
  const url = `${session.instance_url.replace(/\/+$/, '')}/services/data/v${apiVersion}${path}`;
  const req: HttpRequest = { method: 'GET', url };
  let answer: PlainAnswer;
  try {
    answer = await plainRequest(url, { method: 'GET', headers: { authorization: `Bearer ${session.access_token}`, accept: 'application/json' }, timeoutMs: EARLY_TIMEOUT_MS, signal: stop });
  } catch (err) {
    if (stop?.aborted) throw err;
    return undefined;
  }
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
  listeners.forEach((l) => l(req, { statusCode: answer.status, headers, body: answer.body }, undefined));
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
