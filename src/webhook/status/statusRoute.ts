/**
 * `serve`'s status page routes, on when SVC_ADMIN_TOKEN is set: GET /status (the page, or a
 * sign-in form answered 401), POST /status/login, /status/retry (failed events due now) and
 * /status/logout. See statusAuth.ts for the credential and the cross-site protection.
 */
import type http from 'node:http';
import type { BudgetLeft } from '../worker/batchPolicy.js';
import { countsOf, type QueueCounts, type QueueStore } from '../queue/store.js';
import { SignInLimit, type SignInLimitOptions } from '../receiver/signInLimit.js';
import { AdminSessions, csrfMatches, sameOrigin, type Access } from './statusAuth.js';
import { renderLogin, renderStatus } from './statusPage.js';
import type { WorkerSnapshot } from '../worker/worker.js';

interface StatusSource {
  token: string;
  queue: QueueStore;
  worker: () => WorkerSnapshot;
  budget: () => BudgetLeft | undefined;
  /** A config with "connections": each connection's worker and budget, and the stored values it claims. */
  connections?: () => Array<{ name: string; keys: readonly string[]; worker: WorkerSnapshot; budget: BudgetLeft | undefined }>;
  log?: (line: string) => void;
  /** How many wrong tokens an address may send, and in what window (tests shorten it). */
  signIn?: SignInLimitOptions;
}

/** One connection's counts over the stored values it claims. */
function sumCounts(list: readonly QueueCounts[]): QueueCounts {
  const total = countsOf([]);
  for (const c of list) for (const k of Object.keys(total) as Array<keyof QueueCounts>) total[k] += c[k];
  return total;
}

/** Failed events listed on the page (the button retries all of them). */
const FAILED_LISTED = 50;
const MAX_FORM_BYTES = 4_096;

const HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: with it Chromium sends "Origin: null" on the page's own forms, and they would be refused.
  'Referrer-Policy': 'same-origin',
};

function html(res: http.ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...HEADERS, ...extra });
  res.end(body);
}

function redirect(res: http.ServerResponse, location: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(303, { Location: location, 'Content-Length': 0, ...HEADERS, ...extra });
  res.end();
}

function text(res: http.ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(message), ...HEADERS, ...extra });
  res.end(message);
}

/** A small urlencoded form; undefined when it is larger than any form of this page. */
function readForm(req: http.IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FORM_BYTES) chunks.push(chunk);
    });
    req.on('error', () => resolve(undefined));
    req.on('end', () => resolve(size > MAX_FORM_BYTES ? undefined : new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
  });
}

export function statusRoute(src: StatusSource): (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => void {
  const sessions = new AdminSessions(src.token);
  const log = src.log ?? (() => undefined);
  const limit = new SignInLimit(log, src.signIn);
  // The worker's reason may quote a queue error; the page never names where the database is.
  const hideLocation = (w: WorkerSnapshot): WorkerSnapshot => (w.why === undefined ? w : { ...w, why: w.why.split(src.queue.location).join('<queue>') });

  const showPage = async (req: http.IncomingMessage, res: http.ServerResponse, access: Access): Promise<void> => {
    const retriedParam = new URL(req.url ?? '/', 'http://status.invalid').searchParams.get('retried');
    const retried = retriedParam !== null && /^\d{1,9}$/.test(retriedParam) ? Number(retriedParam) : undefined;
    const [counts, failed, per] = await Promise.all([src.queue.counts(), src.queue.failedEvents(FAILED_LISTED), src.connections ? src.queue.countsByConnection() : []]);
    const connections = src.connections?.().map((c) => ({
      name: c.name,
      worker: hideLocation(c.worker),
      budget: c.budget,
      counts: sumCounts(per.filter((p) => c.keys.includes(p.connection)).map((p) => p.counts)),
    }));
    const body = renderStatus({
      ...(connections === undefined ? {} : { connections }),
      counts,
      failed,
      worker: hideLocation(src.worker()),
      budget: src.budget(),
      now: new Date(),
      ...(access.kind === 'session' ? { csrf: access.session.csrf } : {}),
      ...(retried === undefined ? {} : { retried }),
    });
    html(res, 200, body);
  };

  const login = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const form = await readForm(req);
    // Checked once the form is read: a token sent while the address waits is not even compared.
    const wait = limit.retryAfterS(req.socket.remoteAddress);
    if (wait !== undefined) return html(res, 429, renderLogin(`Too many wrong tokens from this address: try again in ${wait} s.`), { 'Retry-After': String(wait) });
    if (!sessions.tokenMatches(form?.get('token') ?? undefined)) {
      limit.failed(req.socket.remoteAddress, 'POST /status/login');
      return html(res, 401, renderLogin('Wrong admin token.'));
    }
    redirect(res, '/status', { 'Set-Cookie': AdminSessions.cookie(sessions.login(), req) });
  };

  const retry = async (req: http.IncomingMessage, res: http.ServerResponse, access: Access): Promise<void> => {
    const form = await readForm(req);
    if (access.kind === 'session' && !csrfMatches(access.session, form?.get('csrf') ?? undefined)) {
      return text(res, 403, 'the form is stale or was not sent by this page: reload the status page and press retry again');
    }
    const made = await src.queue.retryFailed();
    log(`status: ${made} failed events made due again from the status page`);
    redirect(res, `/status?retried=${made}`);
  };

  return (req, res, pathname) => {
    const route = pathname.replace(/\/+$/, '') || '/';
    const post = req.method === 'POST';
    const fail = (error: unknown): void => text(res, 503, `queue unavailable: ${(error as Error).message.split(src.queue.location).join('<queue>')}`);
    if (post && !sameOrigin(req)) return text(res, 403, 'cross-site request refused');
    if (route === '/status/login' && post) return void login(req, res).catch(fail);
    const bearer = /^bearer /i.test(req.headers.authorization ?? '');
    const wait = bearer ? limit.retryAfterS(req.socket.remoteAddress) : undefined;
    if (wait !== undefined) return text(res, 429, `too many wrong tokens from this address: try again in ${wait} s`, { 'Retry-After': String(wait) });
    const access = sessions.access(req);
    if (bearer && access === undefined) limit.failed(req.socket.remoteAddress, `${req.method ?? '?'} ${route} with a bearer token`);
    if (route === '/status') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'only GET is accepted', { Allow: 'GET, HEAD' });
      if (access === undefined) return html(res, 401, renderLogin(undefined));
      return void showPage(req, res, access).catch(fail);
    }
    if (route === '/status/logout' && post) {
      sessions.logout(req);
      return redirect(res, '/status', { 'Set-Cookie': AdminSessions.clearCookie() });
    }
    if (route === '/status/retry' && post) {
      if (access === undefined) return text(res, 401, 'sign in at /status first (or send Authorization: Bearer <SVC_ADMIN_TOKEN>)');
      return void retry(req, res, access).catch(fail);
    }
    if (route === '/status/login' || route === '/status/logout' || route === '/status/retry') return text(res, 405, 'only POST is accepted', { Allow: 'POST' });
    return text(res, 404, 'not found');
  };
}
