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

// jsforce's core (the connection, no API add-ons: bulk is our own), loaded when a command reaches
// Salesforce, not at start: the full package costs several times Node's own start-up.
const jsforceCore = lazyModule<typeof JsforceCore>('jsforce/core');

type AuthMethod = SalesforceLogin['method'];

type ResponseListener = (req: HttpRequest, res: HttpResponse | undefined, err: unknown) => void;

export interface SalesforceSession {
  connection: Connection;
  method: AuthMethod;
  apiVersion: string;
  /** OAuth token requests made: the first login and each re-authorisation. */
  authCalls(): number;
  /** Called after every HTTP request of the connection (jsforce's own retries are switched off). */
  onResponse(listener: ResponseListener): void;
  /** The org's id: from the OAuth identity URL, or the session id's prefix (Salesforce's form: 00D...!...). */
  orgId(): string | undefined;
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

/** Posts one OAuth token request. Error text comes from Salesforce's error fields, never from our parameters. */
async function requestToken(loginUrl: string, params: Record<string, string>): Promise<TokenResponse> {
  const url = `${loginUrl.replace(/\/+$/, '')}/services/oauth2/token`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
  } catch (err) {
    throw new SalesforceAuthError(`cannot reach the Salesforce login URL ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: Partial<TokenResponse & { error: string; error_description: string }> = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A non-JSON answer (an HTML error page) is reported by status only.
  }
  if (!res.ok || !body.access_token || !body.instance_url) {
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

  const JsforceConnection = jsforceCore().Connection;
  const connection = new JsforceConnection({
    instanceUrl: first.instance_url,
    accessToken: first.access_token,
    version: settings.apiVersion,
    ...(method === 'access_token' ? {} : { refreshFn }),
  });

  const listeners: ResponseListener[] = [
    (_req, res) => {
      if (res && res.statusCode !== 401) refreshedSinceLastSuccess = false;
    },
  ];
  // jsforce retries GETs by itself and hides those requests; switch that off so every HTTP call
  // is seen here and retried (or not) by this tool's policy, for all methods alike.
  const transport = (connection as unknown as { _transport: TransportLike })._transport;
  const original = transport.httpRequest.bind(transport);
  transport.httpRequest = (req, options) => {
    const p = original(req, { ...options, retry: { ...options?.retry, maxRetries: 0 } });
    p.then(
      (res) => listeners.forEach((l) => l(req, res, undefined)),
      (err: unknown) => listeners.forEach((l) => l(req, undefined, err)),
    );
    return p;
  };

  return {
    connection,
    method,
    apiVersion: settings.apiVersion,
    authCalls: () => authCalls,
    onResponse: (l) => listeners.push(l),
    orgId: () => orgId,
  };
}

async function readKey(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new SalesforceAuthError(`cannot read SF_PRIVATE_KEY_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
