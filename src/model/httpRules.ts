/**
 * The rules every HTTP client of this tool follows, in one place: the platform's got and its
 * first request, the Salesforce session check, the OAuth token call and jsforce's transport.
 * - Proxy: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (lower case first, as undici's
 *   EnvHttpProxyAgent reads them); a proxied request goes through a CONNECT tunnel.
 * - Redirects: never followed. A 3xx is an error naming both hosts, so no API key or token is
 *   carried to another origin by a client, a proxy in front, or a forged answer.
 * - Size: every answer is read up to a bound (ANSWER_LIMIT_BYTES), counted after decompression;
 *   past it the request is dropped and the error names the host and the bound.
 * - TLS: a certificate that is not trusted is named as such, with the setting that trusts a CA.
 * Timeouts are the callers' settings (SVC_TIMEOUT_MS, SF_TIMEOUT_MS), applied by plainHttp.ts and
 * got as one bound on the whole exchange.
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { AnswerTooLargeError, CertificateError, ProxyError, RedirectError } from './errors.js';

type Env = Record<string, string | undefined>;

/** The proxy URL of a request to `url`, or undefined: none set, or NO_PROXY covers the host. */
export function proxyFor(url: string, env: Env = process.env): string | undefined {
  const target = new URL(url);
  const plain = (env.http_proxy ?? env.HTTP_PROXY)?.trim() || undefined;
  // An https request without an https proxy uses the http one, as EnvHttpProxyAgent does.
  const proxy = target.protocol === 'https:' ? (env.https_proxy ?? env.HTTPS_PROXY)?.trim() || plain : plain;
  if (proxy === undefined) return undefined;
  return bypassed(target, env.no_proxy ?? env.NO_PROXY ?? '') ? undefined : proxy;
}

const defaultPort = (u: URL): string => u.port || (u.protocol === 'https:' ? '443' : '80');
const bareHost = (host: string): string => host.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * Whether NO_PROXY covers the target: `*`, a host (and its subdomains, as curl reads it), a
 * `.domain` or `*.domain` suffix, an IP, each optionally with `:port`; commas or spaces between.
 */
function bypassed(target: URL, noProxy: string): boolean {
  const host = bareHost(target.hostname);
  const port = defaultPort(target);
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const m = /^(\[[^\]]+\]|[^:]+|[0-9a-f:]+)(?::(\d+))?$/.exec(entry);
    const name = bareHost(m?.[1] ?? entry).replace(/^\*?\./, '');
    if (m?.[2] !== undefined && m[2] !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** A proxy URL as a message may show it: without a user name or password. */
export function shownProxy(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(the proxy setting)';
  }
}

/** Opens a CONNECT tunnel to host:port through `proxy`, within `timeoutMs`. */
function openTunnel(proxy: URL, host: string, port: string, timeoutMs: number): Promise<Duplex> {
  const shown = shownProxy(proxy.href);
  const headers: Record<string, string> = { host: `${host}:${port}` };
  if (proxy.username !== '') {
    const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(user).toString('base64')}`;
  }
  const client = proxy.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({ host: bareHost(proxy.hostname), port: defaultPort(proxy), method: 'CONNECT', path: `${host}:${port}`, headers, agent: false });
    const timer = setTimeout(() => req.destroy(new ProxyError(`proxy ${shown}: no answer to CONNECT ${host}:${port} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const refuse = (status: number | undefined): void => {
      clearTimeout(timer);
      reject(new ProxyError(`proxy ${shown} refused CONNECT to ${host}:${port} (HTTP ${status ?? '?'})`));
    };
    req.on('connect', (res: http.IncomingMessage, socket: Duplex) => {
      clearTimeout(timer);
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      refuse(res.statusCode);
    });
    // A proxy that answers CONNECT with a plain response instead of a tunnel.
    req.on('response', (res: http.IncomingMessage) => {
      // Its body is not read at all: a proxy's page may be of any size.
      res.destroy();
      refuse(res.statusCode);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err instanceof ProxyError ? err : new ProxyError(`proxy ${shown} cannot be reached (${err.code ?? err.message})`));
    });
    req.end();
  });
}

type Created = (err: Error | null, socket?: Duplex) => void;
interface ConnectOptions {
  host?: string | null | undefined;
  port?: number | string | null | undefined;
  servername?: string | undefined;
}

type TunnelAgent = new (proxy: URL, timeoutMs: number) => http.Agent;
let tunnelAgents: { http: TunnelAgent; https: TunnelAgent } | undefined;

/**
 * Node's agents, with each connection opened through the proxy's tunnel. Made on first use, not
 * when this module loads: the bundle loads node:http only when a request needs it (a class that
 * extends http.Agent at the top would load it for `--help` too).
 */
function tunnelAgentClasses(): { http: TunnelAgent; https: TunnelAgent } {
  if (tunnelAgents !== undefined) return tunnelAgents;
  class TunnelHttpAgent extends http.Agent {
    constructor(
      private readonly proxy: URL,
      private readonly timeoutMs: number,
    ) {
      super({ keepAlive: true });
    }
    override createConnection(options: ConnectOptions, created: Created): undefined {
      openTunnel(this.proxy, String(options.host), String(options.port ?? 80), this.timeoutMs).then((s) => created(null, s), created);
      return undefined;
    }
  }
  class TunnelHttpsAgent extends https.Agent {
    constructor(
      private readonly proxy: URL,
      private readonly timeoutMs: number,
    ) {
      super({ keepAlive: true });
    }
    override createConnection(options: ConnectOptions & tls.ConnectionOptions, created: Created): undefined {
      const host = String(options.host);
      openTunnel(this.proxy, host, String(options.port ?? 443), this.timeoutMs).then((socket) => created(null, tls.connect({ ...options, socket, servername: options.servername ?? host })), created);
      return undefined;
    }
  }
  return (tunnelAgents = { http: TunnelHttpAgent, https: TunnelHttpsAgent });
}

const agents = new Map<string, http.Agent>();

/** The agent a request to `url` goes through: a tunnel through the proxy, or Node's default (undefined). */
export function agentFor(url: string, timeoutMs: number): http.Agent | undefined {
  const proxy = proxyFor(url);
  if (proxy === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(proxy);
  } catch {
    throw new ProxyError(`the proxy setting is not a URL (HTTPS_PROXY / HTTP_PROXY)`);
  }
  const secure = new URL(url).protocol === 'https:';
  const key = `${secure ? 's' : 'p'} ${parsed.href} ${timeoutMs}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    const Agent = tunnelAgentClasses()[secure ? 'https' : 'http'];
    agent = new Agent(parsed, timeoutMs);
    agents.set(key, agent);
  }
  return agent;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const originOf = (url: string, base?: string): string => {
  try {
    return new URL(url, base).origin;
  } catch {
    return '(an unreadable location)';
  }
};

/** The error a redirect answer is, or undefined for any other answer. */
export function redirectOf(method: string, url: string, status: number, location: string | string[] | undefined): RedirectError | undefined {
  if (!REDIRECTS.has(status)) return undefined;
  const where = Array.isArray(location) ? location[0] : location;
  const to = where === undefined ? '(no location)' : originOf(where, url);
  return new RedirectError(`${method} ${originOf(url)} answered ${status}, a redirect to ${to}: not followed, no credential is sent on (check the URL setting and any proxy in between)`);
}

/**
 * The most one answer may hold, decompressed. The platform's pages are kilobytes (100 records);
 * Salesforce's largest are a query page of 2,000 records and a Bulk job's results, megabytes.
 * Either bound is far below what buffering would cost (and below V8's 512 MiB string limit).
 */
export const ANSWER_LIMIT_BYTES = { platform: 32 * 1024 * 1024, salesforce: 64 * 1024 * 1024 } as const;

const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;

/** The error of an answer past its bound. */
export function answerTooLarge(url: string, limitBytes: number): AnswerTooLargeError {
  return new AnswerTooLargeError(
    `${originOf(url)} answered more than ${mib(limitBytes)}, the bound for one answer: not read further (a page of its API is far smaller; check the URL setting and any proxy in between)`,
  );
}

/** Node's codes for a certificate chain it cannot trust: a CA it does not know. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);
/** And for a certificate that is wrong whatever the CA: expired, not yet valid, another host's. */
const INVALID = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_REVOKED', 'CERT_SIGNATURE_FAILURE']);

/** The error a failed TLS handshake is, or undefined for any other failure. */
export function certificateErrorOf(url: string, error: unknown): CertificateError | undefined {
  const code = error !== null && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : '';
  const host = originOf(url);
  if (UNTRUSTED.has(code)) {
    return new CertificateError(
      `${host}: its TLS certificate is not trusted (${code}); if it is signed by your own CA (a TLS-inspecting proxy), give that CA's certificate in NODE_EXTRA_CA_CERTS=/path/ca.pem, else check the URL setting`,
    );
  }
  if (INVALID.has(code)) return new CertificateError(`${host}: its TLS certificate is not valid (${code}); check the URL setting and the host's certificate`);
  return undefined;
}
