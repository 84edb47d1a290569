/**
 * A jsforce 3 Connection from SalesforceSettings, with one of four authentications:
 *   instance URL + access token | OAuth client credentials | OAuth username-password | JWT bearer.
 * Every OAuth flow gets a `refreshFn`, so an expired session is re-authorised transparently, once:
 * a second 401 right after a re-authorisation is an error, not a loop.
 * Every HTTP response of the connection is observable (call counts, Sforce-Limit-Info).
 */
import { readFile } from 'node:fs/promises';
import { Connection, type HttpRequest, type HttpRequestOptions, type HttpResponse, type StreamPromise } from 'jsforce';
import type { SalesforceSettings } from '../config/settings.js';
import { SalesforceAuthError } from '../model/errors.js';
import { signJwtAssertion } from './jwt.js';
import { DEFAULT_LOGIN_URL } from '../config/load.js';

type AuthMethod = 'access_token' | 'client_credentials' | 'password' | 'jwt';

type ResponseListener = (req: HttpRequest, res: HttpResponse | undefined, err: unknown) => void;

export interface SalesforceSession {
  connection: Connection;
  method: AuthMethod;
  apiVersion: string;
  /** OAuth token requests made: the first login and each re-authorisation. */
  authCalls(): number;
  /** Called after every HTTP request of the connection (jsforce's own retries are switched off). */
  onResponse(listener: ResponseListener): void;
}

interface TokenResponse {
  access_token: string;
  instance_url: string;
}

interface TransportLike {
  httpRequest(req: HttpRequest, options?: HttpRequestOptions): StreamPromise<HttpResponse>;
}

function chooseMethod(s: SalesforceSettings): AuthMethod {
  if (s.privateKeyFile) {
    if (!s.clientId || !s.username) throw new SalesforceAuthError('JWT bearer needs SF_CLIENT_ID and SF_USERNAME next to SF_PRIVATE_KEY_FILE');
    return 'jwt';
  }
  if (s.username || s.password) {
    if (!s.username || !s.password || !s.clientId || !s.clientSecret) {
      throw new SalesforceAuthError('username-password OAuth needs SF_USERNAME, SF_PASSWORD, SF_CLIENT_ID and SF_CLIENT_SECRET');
    }
    return 'password';
  }
  if (s.clientId || s.clientSecret) {
    if (!s.clientId || !s.clientSecret || !s.loginUrl) {
      throw new SalesforceAuthError('OAuth client credentials need SF_LOGIN_URL (the org My Domain URL), SF_CLIENT_ID and SF_CLIENT_SECRET');
    }
    return 'client_credentials';
  }
  if (s.instanceUrl && s.accessToken) return 'access_token';
  throw new SalesforceAuthError('no Salesforce credentials: set SF_INSTANCE_URL + SF_ACCESS_TOKEN, or SF_LOGIN_URL + SF_CLIENT_ID + SF_CLIENT_SECRET, or a username/password, or SF_PRIVATE_KEY_FILE');
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
  return { access_token: body.access_token, instance_url: body.instance_url };
}

/** One OAuth token request for the configured method (an access token alone cannot be renewed). */
function loginWith(method: AuthMethod, settings: SalesforceSettings, loginUrl: string, privateKey: string | undefined): Promise<TokenResponse> {
  switch (method) {
    case 'client_credentials':
      return requestToken(loginUrl, { grant_type: 'client_credentials', client_id: settings.clientId!, client_secret: settings.clientSecret! });
    case 'password':
      return requestToken(loginUrl, {
        grant_type: 'password',
        client_id: settings.clientId!,
        client_secret: settings.clientSecret!,
        username: settings.username!,
        password: settings.password!,
      });
    case 'jwt':
      return requestToken(loginUrl, {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: signJwtAssertion({ iss: settings.clientId!, sub: settings.username!, aud: loginUrl }, privateKey!),
      });
    case 'access_token':
      return Promise.reject(new SalesforceAuthError('the access token expired or is invalid, and no OAuth credentials are configured to renew it'));
  }
}

export async function connectSalesforce(settings: SalesforceSettings): Promise<SalesforceSession> {
  const method = chooseMethod(settings);
  const loginUrl = settings.loginUrl ?? DEFAULT_LOGIN_URL;
  let authCalls = 0;
  const privateKey = method === 'jwt' ? await readKey(settings.privateKeyFile!) : undefined;

  const login = async (): Promise<TokenResponse> => {
    authCalls++;
    return loginWith(method, settings, loginUrl, privateKey);
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
        callback(null, t.access_token);
      },
      (err: Error) => callback(err),
    );
  };

  let first: TokenResponse;
  if (settings.instanceUrl && settings.accessToken) first = { instance_url: settings.instanceUrl, access_token: settings.accessToken };
  else first = await login();

  const connection = new Connection({
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
  };
}

async function readKey(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new SalesforceAuthError(`cannot read SF_PRIVATE_KEY_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
