/**
 * The HTTP receiver (node:http). It answers 200 only after the event is committed to the queue,
 * so a crash after the 200 loses nothing and a crash before it makes the platform resend.
 *
 * Answer codes: 200 stored (queued or recorded as ignored), 400 malformed (JSON {"error":reason}),
 * 401 secret missing or wrong (nothing stored), 404 unknown path, 405 wrong method (Allow header),
 * 413 body over the limit (decoded too), 415 a Content-Encoding other than gzip or deflate,
 * 503 the queue could not store the event (the platform retries). GET /healthz answers 503
 * "degraded" from a failed store until one succeeds again.
 */
import type { LogSink } from '../../config/log.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClassifyOptions } from '../../sync/input/webhookEvents.js';
import { oneLine } from '../../config/echo.js';
import { SignInLimit } from './signInLimit.js';
import { guardConnections } from './connectionGuard.js';
import { queueReason } from '../queue/publicReason.js';
import type { QueueCounts } from '../queue/store.js';
import { send, webhookIntake, type RouteContext, type WebhookPath } from './intake.js';
import { ConnectionRouter, type RouteTarget } from './routing.js';
import type { QueueStore } from '../queue/store.js';
import { StoreHealth } from './storeHealth.js';

const DEFAULT_MAX_BODY_BYTES = 65_536;
/** Enough for the platform's parallel deliveries many times over, far below a file descriptor limit. */
const DEFAULT_MAX_CONNECTIONS = 256;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

interface ReceiverOptions {
  host: string;
  port: number;
  /** Path the platform posts to, e.g. /webhooks; <path>/<secret> is accepted when a secret is set. */
  path: string;
  secret?: string | undefined;
  queue: QueueStore;
  maxBodyBytes?: number | undefined;
  log?: LogSink | undefined;
  classify?: ClassifyOptions | undefined;
  /** The connections of a config with "connections" (routing.ts); they replace `secret` and `classify.siteId`. */
  connections?: readonly RouteTarget[] | undefined;
  /** Called after each commit that stored at least one pending event (wakes the worker), with their connections. */
  onEnqueued?: ((connections: ReadonlySet<string>) => void) | undefined;
  /** Most connections open at once; at the cap the longest-waiting idle or stalled one is closed. */
  maxConnections?: number | undefined;
  /** A client must send its request headers within this time, and the whole request within requestTimeoutMs. */
  headersTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
  /** The worker's state for /healthz; degraded turns its status to "degraded" (still 200: events are still stored). */
  health?: (() => { degraded: boolean; details: Record<string, unknown> }) | undefined;
  /** Counts every answer to the webhook path and serves GET /metrics. */
  metrics?: ReceiverMetrics | undefined;
  /** The status page (statusRoute.ts) for /status and below; absent: those paths answer 404. */
  status?: ((req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => void) | undefined;
}

export interface ReceiverMetrics {
  /** `eventType` is undefined when the body could not be read as an event. */
  answered(eventType: string | undefined, status: number): void;
  /** An event answered 200 and recorded ignored, with the reason given. */
  ignored(reason: string): void;
  render(): Promise<{ contentType: string; body: string }>;
}

function normalisePath(p: string): string {
  const withSlash = p.startsWith('/') ? p : `/${p}`;
  return withSlash.replace(/\/+$/, '');
}

export interface Receiver {
  /** Base URL actually bound (the port is resolved when 0 was asked). */
  url: string;
  port: number;
  server: http.Server;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

function onlyGet(ctx: RouteContext, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  ctx.refuse(req, res, 405, 'only GET is accepted', { Allow: 'GET, HEAD' });
  return false;
}

/** GET /healthz: the queue's counts (the SQLite queue answers at once, PostgreSQL asynchronously; either may fail: 503 "unavailable"); 503 "degraded" while events cannot be stored. */
function health(
  ctx: RouteContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  state: () => { connections: unknown; worker: { degraded: boolean; details: Record<string, unknown> } | undefined },
): void {
  if (!onlyGet(ctx, req, res)) return;
  ctx.queue.counts().then(
    (counts: QueueCounts) => {
      // Serving stores events before it answers 200: while it cannot (a full disk), it is not healthy.
      const storing = ctx.store.problem();
      if (storing !== undefined) return send(res, 503, { status: 'degraded', ...storing, queue: counts });
      const { connections, worker } = state();
      send(res, 200, { status: worker?.degraded ? 'degraded' : 'ok', queue: counts, connections, ...(worker?.details ?? {}) });
    },
    (error: Error) => {
      ctx.log(`healthz 503: queue ${ctx.queue.location}: ${oneLine(error.message, 300)}`, 'error');
      send(res, 503, { status: 'unavailable', error: queueReason(error) });
    },
  );
}

/** GET /metrics: Prometheus text. */
function serveMetrics(ctx: RouteContext, req: http.IncomingMessage, res: http.ServerResponse, metrics: ReceiverMetrics): void {
  if (!onlyGet(ctx, req, res)) return;
  metrics.render().then(
    ({ contentType, body }) => {
      if (res.headersSent) return;
      res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
    (error: Error) => {
      ctx.log(`metrics 500: ${oneLine(error.message, 300)}`, 'error');
      send(res, 500, { error: 'metrics unavailable (the log has the detail)' });
    },
  );
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Whether a path is the webhook path: the path itself, <path>/<name> (a connection's name),
 * <path>/<secret> (when a secret is set) or <path>/<name>/<secret>.
 */
function webhookPath(pathname: string, base: string, router: ConnectionRouter): WebhookPath | undefined {
  const trimmed = pathname.replace(/\/+$/, '');
  if (trimmed === base) return {};
  if (!trimmed.startsWith(`${base}/`)) return undefined;
  const segments = trimmed
    .slice(base.length + 1)
    .split('/')
    .map(decoded);
  const [first = '', second] = segments;
  if (segments.length > 2) return undefined;
  const named = router.isName(first);
  if (segments.length === 2) return named && router.secretSet ? { name: first, secret: second } : undefined;
  if (named) return { name: first };
  return router.secretSet ? { secret: first } : undefined;
}

export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const base = normalisePath(opts.path);
  const router = new ConnectionRouter(opts.connections ?? [{ name: undefined, siteId: opts.classify?.siteId, secret: opts.secret }], { applications: opts.classify?.applications });
  const log = opts.log ?? (() => undefined);
  // Wrong secrets are summed up, one line a minute: a guesser cannot flood the log (never answered 429: the platform may share the address).
  const wrongSecrets = new SignInLimit(log, { maxFailures: Infinity, words: { prefix: 'webhook 401', one: 'missing or wrong webhook secret', many: 'missing or wrong webhook secrets' } });
  const ctx: RouteContext = {
    queue: opts.queue,
    log,
    store: new StoreHealth(opts.queue.location, log),
    refuse: (req, res, status, error, headers = {}) => {
      if (status === 401) wrongSecrets.failed(req.socket.remoteAddress, `${req.method ?? '?'}`);
      else log(`webhook ${status} ${req.method ?? '?'} from ${req.socket.remoteAddress ?? '?'}: ${error}`, status >= 500 ? 'error' : 'warn');
      send(res, status, { error }, headers);
    },
  };
  const { refuse } = ctx;
  const metrics = opts.metrics;
  const webhook = webhookIntake(ctx, {
    maxBody: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    router,
    onEnqueued: opts.onEnqueued,
    ...(metrics === undefined ? {} : { answered: (t: string | undefined, status: number) => metrics.answered(t, status), ignored: (reason: string) => metrics.ignored(reason) }),
  });

  const headersTimeout = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(headersTimeout, opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  // Node checks these timeouts on a sweep (every 30 s by default), so a stalled client was held up
  // to 30 s past them; a sweep every second keeps them close to what is configured.
  const serverOptions: http.ServerOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) };
  const server = http.createServer(serverOptions, (req, res) => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://receiver.invalid').pathname;
    } catch {
      return refuse(req, res, 400, 'invalid request target');
    }
    if (pathname === '/healthz') return health(ctx, req, res, () => ({ connections: guard.stats(), worker: opts.health?.() }));
    if (pathname === '/metrics' && metrics !== undefined) return serveMetrics(ctx, req, res, metrics);
    if (opts.status !== undefined && (pathname === '/status' || pathname.startsWith('/status/'))) return opts.status(req, res, pathname);
    const hook = webhookPath(pathname, base, router);
    if (hook !== undefined) return webhook(req, res, hook);
    return refuse(req, res, 404, 'not found');
  });
  const guard = guardConnections(server, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS, log);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          clearTimeout(force);
          ctx.store.close();
          resolve();
        });
        server.closeIdleConnections();
        // A client holding a keep-alive connection open must not block shutdown for long.
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        force.unref();
      }),
  };
}
