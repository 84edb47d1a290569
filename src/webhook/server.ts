/**
 * The HTTP receiver (node:http). It answers 200 only after the event is committed to the queue,
 * so a crash after the 200 loses nothing and a crash before it makes the platform resend.
 *
 * Answer codes: 200 stored (queued or recorded as ignored), 400 malformed (JSON {"error":reason}),
 * 401 secret missing or wrong (nothing stored), 404 unknown path, 405 wrong method (Allow header),
 * 413 body over the limit (decoded too), 415 a Content-Encoding other than gzip or deflate,
 * 503 the queue could not store the event (the platform retries).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyEvent, type ClassifyOptions } from '../sync/webhookEvents.js';
import { oneLine } from '../config/echo.js';
import { guardConnections } from './connectionGuard.js';
import { parseWebhookBody } from '../sync/webhookMessage.js';
import { queueReason } from './publicReason.js';
import { decodeBody, encodingOf } from './bodyEncoding.js';
import type { EnqueueInput, EnqueueRejected, EnqueueResult, QueueCounts } from './queue.js';
import type { QueueStore } from './queueStore.js';

/** An event the group commit refused alone (the others were stored): answered 400, never 503. */
export class EventRejected extends Error {
  override readonly name = 'EventRejected';
}

export const DEFAULT_MAX_BODY_BYTES = 65_536;
/** Enough for the platform's parallel deliveries many times over, far below a file descriptor limit. */
export const DEFAULT_MAX_CONNECTIONS = 256;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const SECRET_HEADER = 'x-webhook-secret';

export interface ReceiverOptions {
  host: string;
  port: number;
  /** Path the platform posts to, e.g. /webhooks; <path>/<secret> is accepted when a secret is set. */
  path: string;
  secret?: string;
  queue: QueueStore;
  maxBodyBytes?: number;
  log?: (line: string) => void;
  classify?: ClassifyOptions;
  /** Called after each commit that stored at least one pending event (wakes the worker). */
  onEnqueued?: () => void;
  /** Most connections open at once; at the cap the longest-waiting idle or stalled one is closed. */
  maxConnections?: number;
  /** A client must send its request headers within this time, and the whole request within requestTimeoutMs. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The worker's state for /healthz; degraded turns its status to "degraded" (still 200: events are still stored). */
  health?: () => { degraded: boolean; details: Record<string, unknown> };
  /** Counts every answer to the webhook path and serves GET /metrics. */
  metrics?: ReceiverMetrics;
  /** The status page (statusRoute.ts) for /status and below; absent: those paths answer 404. */
  status?: (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => void;
}

export interface ReceiverMetrics {
  /** `eventType` is undefined when the body could not be read as an event. */
  answered(eventType: string | undefined, status: number): void;
  render(): Promise<{ contentType: string; body: string }>;
}

export interface Receiver {
  /** Base URL actually bound (the port is resolved when 0 was asked). */
  url: string;
  port: number;
  server: http.Server;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

type JsonBody = Record<string, unknown>;

function send(res: http.ServerResponse, status: number, body: JsonBody, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant time in the secret's content: both sides are hashed to equal-length digests first. */
function secretMatches(expected: Buffer, given: string | undefined): boolean {
  if (given === undefined || given === '') return false;
  return timingSafeEqual(expected, digest(given));
}

function normalisePath(p: string): string {
  const withSlash = p.startsWith('/') ? p : `/${p}`;
  return withSlash.replace(/\/+$/, '');
}

/**
 * Commits all requests that arrive in one event-loop turn in one transaction: with
 * synchronous=FULL each commit costs an fsync, and a burst would otherwise pay one per request.
 */
class GroupCommitter {
  private waiting: Array<{ input: EnqueueInput; resolve: (r: EnqueueResult) => void; reject: (e: Error) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly queue: QueueStore,
    private readonly onEnqueued: (() => void) | undefined,
  ) {}

  add(input: EnqueueInput): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    let results: Array<EnqueueResult | EnqueueRejected>;
    try {
      results = await this.queue.enqueueEach(batch.map((w) => w.input));
    } catch (error) {
      // The commit itself failed (disk full, I/O): nothing was stored, every sender retries.
      for (const w of batch) w.reject(error as Error);
      return;
    }
    let pending = false;
    batch.forEach((w, i) => {
      const r = results[i];
      if (r === undefined) w.reject(new Error('the queue returned no result for this event'));
      else if ('error' in r) w.reject(new EventRejected(r.error.message));
      else {
        pending ||= r.status === 'pending';
        w.resolve(r);
      }
    });
    if (this.onEnqueued && pending) this.onEnqueued();
  }
}

export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const base = normalisePath(opts.path);
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const expected = opts.secret !== undefined && opts.secret !== '' ? digest(opts.secret) : undefined;
  const log = opts.log ?? (() => undefined);
  const committer = new GroupCommitter(opts.queue, opts.onEnqueued);

  // Logged lines carry the status and the reason, never the URL (it may hold the secret).
  const refuse = (req: http.IncomingMessage, res: http.ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void => {
    log(`webhook ${status} ${req.method ?? '?'} from ${req.socket.remoteAddress ?? '?'}: ${error}`);
    send(res, status, { error }, headers);
  };

  const handleWebhook = (req: http.IncomingMessage, res: http.ServerResponse, pathSecret: string | undefined): void => {
    let eventType: string | undefined;
    if (opts.metrics !== undefined) {
      const metrics = opts.metrics;
      res.once('finish', () => metrics.answered(eventType, res.statusCode));
    }
    if (req.method !== 'POST') return refuse(req, res, 405, 'only POST is accepted', { Allow: 'POST' });
    if (expected !== undefined) {
      const header = req.headers[SECRET_HEADER];
      const given = Array.isArray(header) ? header[0] : header;
      if (!secretMatches(expected, given) && !secretMatches(expected, pathSecret)) {
        // Close rather than read a body we will not store.
        return refuse(req, res, 401, 'missing or wrong webhook secret', { Connection: 'close' });
      }
    }
    const coding = encodingOf(req.headers['content-encoding']);
    if (!coding.ok) return refuse(req, res, coding.status, coding.error, { Connection: 'close' });
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      return refuse(req, res, 413, `body over ${maxBody} bytes`, { Connection: 'close' });
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBody) {
        // Chunked body that grew past the limit: answer now, keep nothing of it.
        tooLarge = true;
        chunks.length = 0;
        refuse(req, res, 413, `body over ${maxBody} bytes`, { Connection: 'close' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (tooLarge) return;
      const decoded = decodeBody(coding.encoding, Buffer.concat(chunks), maxBody);
      if (!decoded.ok) return refuse(req, res, decoded.status, decoded.error);
      const raw = decoded.body.toString('utf8');
      const parsed = parseWebhookBody(req.headers['content-type'], raw);
      if (!parsed.ok) return refuse(req, res, 400, parsed.reason);
      eventType = parsed.message.eventType;
      const intent = classifyEvent(parsed.message, opts.classify);
      committer.add({ message: parsed.message, intent, raw }).then(
        (stored) => send(res, 200, stored.status === 'ignored' && intent.kind === 'ignored' ? { status: 'ignored', id: stored.id, reason: intent.reason } : { status: 'queued', id: stored.id }),
        (error: Error) => {
          if (error instanceof EventRejected) return refuse(req, res, 400, `event cannot be stored: ${oneLine(error.message, 200)}`);
          // The detail (database, file) to the log only; the answer says what kind of trouble it is.
          log(`webhook 503: queue ${opts.queue.location}: ${oneLine(error.message, 300)}`);
          send(res, 503, { error: queueReason(error) });
        },
      );
    });
  };

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
    if (pathname === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(req, res, 405, 'only GET is accepted', { Allow: 'GET, HEAD' });
      // The SQLite queue answers at once, PostgreSQL asynchronously; either may fail (503).
      Promise.resolve()
        .then(() => opts.queue.counts())
        .then(
          (counts: QueueCounts) => {
            const health = opts.health?.();
            send(res, 200, { status: health?.degraded ? 'degraded' : 'ok', queue: counts, connections: guard.stats(), ...(health?.details ?? {}) });
          },
          (error: Error) => {
            log(`healthz 503: queue ${opts.queue.location}: ${oneLine(error.message, 300)}`);
            send(res, 503, { status: 'unavailable', error: queueReason(error) });
          },
        );
      return;
    }
    if (pathname === '/metrics' && opts.metrics !== undefined) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(req, res, 405, 'only GET is accepted', { Allow: 'GET, HEAD' });
      opts.metrics.render().then(
        ({ contentType, body }) => {
          if (res.headersSent) return;
          res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
          res.end(body);
        },
        (error: Error) => {
          log(`metrics 500: ${oneLine(error.message, 300)}`);
          send(res, 500, { error: 'metrics unavailable (the log has the detail)' });
        },
      );
      return;
    }
    if (opts.status !== undefined && (pathname === '/status' || pathname.startsWith('/status/'))) return opts.status(req, res, pathname);
    const trimmed = pathname.replace(/\/+$/, '');
    if (trimmed === base) return handleWebhook(req, res, undefined);
    if (expected !== undefined && trimmed.startsWith(`${base}/`)) {
      const segment = trimmed.slice(base.length + 1);
      if (!segment.includes('/')) {
        let decoded: string;
        try {
          decoded = decodeURIComponent(segment);
        } catch {
          decoded = segment;
        }
        return handleWebhook(req, res, decoded);
      }
    }
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
          resolve();
        });
        server.closeIdleConnections();
        // A client holding a keep-alive connection open must not block shutdown for long.
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        force.unref();
      }),
  };
}
