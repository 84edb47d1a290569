/**
 * The webhook intake: a POST to the webhook path is checked (method, secret, encoding, size), read,
 * parsed, classified and committed to the queue, and answered 200 only once the commit is durable.
 * Answer codes are listed in server.ts.
 */
import type { LogSink } from '../../config/log.js';
import type http from 'node:http';
import { oneLine } from '../../config/echo.js';
import { parseWebhookBody } from '../../sync/input/webhookMessage.js';
import type { ConnectionRouter } from './routing.js';
import { decodeBody, encodingOf } from './bodyEncoding.js';
import { queueReason } from '../queue/publicReason.js';
import type { EnqueueInput, EnqueueRejected, EnqueueResult } from '../queue/store.js';
import type { QueueStore } from '../queue/store.js';
import type { StoreHealth } from './storeHealth.js';

const SECRET_HEADER = 'x-webhook-secret';

/** An event the group commit refused alone (the others were stored): answered 400, never 503. */
class EventRejected extends Error {
  override readonly name = 'EventRejected';
}

type JsonBody = Record<string, unknown>;

export function send(res: http.ServerResponse, status: number, body: JsonBody, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
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
    private readonly onEnqueued: ((connections: ReadonlySet<string>) => void) | undefined,
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
    const pending = new Set<string>();
    batch.forEach((w, i) => {
      const r = results[i];
      if (r === undefined) w.reject(new Error('the queue returned no result for this event'));
      else if ('error' in r) w.reject(new EventRejected(r.error.message));
      else {
        if (r.status === 'pending') pending.add(w.input.connection ?? '');
        w.resolve(r);
      }
    });
    if (this.onEnqueued && pending.size > 0) this.onEnqueued(pending);
  }
}

/** What the routes of one receiver share. */
export interface RouteContext {
  queue: QueueStore;
  log: LogSink;
  /** Whether events can be stored now (/healthz), and the store failures summed in the log. */
  store: StoreHealth;
  /** Answers an error and logs it with the status and the reason, never the URL (it may hold the secret). */
  refuse: (req: http.IncomingMessage, res: http.ServerResponse, status: number, error: string, headers?: Record<string, string>) => void;
}

interface IntakeOptions {
  maxBody: number;
  /** Which connection an event is, and whose secret it must carry (routing.ts). */
  router: ConnectionRouter;
  /** After a commit that stored pending events, with their connections ('' : the implicit one). */
  onEnqueued?: ((connections: ReadonlySet<string>) => void) | undefined;
  answered?: (eventType: string | undefined, status: number) => void;
  /** An event stored as ignored, with its reason (counted in /metrics). */
  ignored?: (reason: string) => void;
}

/** What the path said: the connection it names (`<path>/<name>`) and the secret as its last segment, if any. */
export interface WebhookPath {
  name?: string | undefined;
  secret?: string | undefined;
}

/** The webhook route. */
export function webhookIntake(ctx: RouteContext, opts: IntakeOptions): (req: http.IncomingMessage, res: http.ServerResponse, path: WebhookPath) => void {
  const committer = new GroupCommitter(ctx.queue, opts.onEnqueued);
  const { refuse } = ctx;
  const { router } = opts;
  return (req, res, path) => {
    let eventType: string | undefined;
    if (opts.answered !== undefined) {
      const answered = opts.answered;
      res.once('finish', () => answered(eventType, res.statusCode));
    }
    if (req.method !== 'POST') return refuse(req, res, 405, 'only POST is accepted', { Allow: 'POST' });
    const header = req.headers[SECRET_HEADER];
    const given = [Array.isArray(header) ? header[0] : header, path.secret];
    if (!router.admits(path.name, given)) {
      // Close rather than read a body we will not store.
      return refuse(req, res, 401, 'missing or wrong webhook secret', { Connection: 'close' });
    }
    const coding = encodingOf(req.headers['content-encoding']);
    if (!coding.ok) return refuse(req, res, coding.status, coding.error, { Connection: 'close' });
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxBody) return refuse(req, res, 413, `body over ${opts.maxBody} bytes`, { Connection: 'close' });
    readBody(
      req,
      opts.maxBody,
      () => refuse(req, res, 413, `body over ${opts.maxBody} bytes`, { Connection: 'close' }),
      (body) => {
        const decoded = decodeBody(coding.encoding, body, opts.maxBody);
        if (!decoded.ok) return refuse(req, res, decoded.status, decoded.error);
        const raw = decoded.body.toString('utf8');
        const parsed = parseWebhookBody(req.headers['content-type'], raw);
        if (!parsed.ok) return refuse(req, res, 400, parsed.reason);
        eventType = parsed.message.eventType;
        const routed = router.route(parsed.message, path.name, given);
        if (routed === 'secret') return refuse(req, res, 401, 'missing or wrong webhook secret');
        const { intent } = routed;
        committer.add({ message: parsed.message, intent, raw, ...(routed.connection === '' ? {} : { connection: routed.connection }) }).then(
          (stored) => {
            ctx.store.stored();
            if (stored.status !== 'ignored' || intent.kind !== 'ignored') return send(res, 200, { status: 'queued', id: stored.id });
            // The platform does not send it again: the log and /metrics say it was dropped, and why.
            const m = parsed.message;
            const of = routed.connection === '' ? '' : `connection ${routed.connection}: `;
            ctx.log(`${of}webhook ignored: event ${stored.id} (${oneLine(m.eventType, 60)} ${oneLine(m.objectType, 60)} ${m.objectId}): ${intent.reason}`);
            opts.ignored?.(intent.reason);
            send(res, 200, { status: 'ignored', id: stored.id, reason: intent.reason });
          },
          (error: Error) => {
            if (error instanceof EventRejected) return refuse(req, res, 400, `event cannot be stored: ${oneLine(error.message, 200)}`);
            // The detail (database, file) to the log only, summed up; the answer says what kind of trouble it is.
            ctx.store.failed(error);
            send(res, 503, { error: queueReason(error) });
          },
        );
      },
    );
  };
}

/** A request body up to `maxBody` bytes; past it (a chunked body that grew) `tooLarge` answers at once and nothing is kept. */
function readBody(req: http.IncomingMessage, maxBody: number, tooLarge: () => void, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > maxBody) {
      over = true;
      chunks.length = 0;
      tooLarge();
      return;
    }
    chunks.push(chunk);
  });
  req.on('error', () => undefined);
  req.on('end', () => {
    if (!over) done(Buffer.concat(chunks));
  });
}
