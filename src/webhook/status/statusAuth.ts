/**
 * Who may see the status page and press its retry button. The admin token (SVC_ADMIN_TOKEN) is
 * given once, in a login form, and exchanged for a random session id in an HttpOnly,
 * SameSite=Strict cookie, so the token itself never sits in the browser; scripts may send
 * `Authorization: Bearer <token>` instead. A POST from a cookie session must carry the session's
 * CSRF token and, when the browser names one, an Origin of this very host.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

const SESSION_COOKIE = 'svc_admin';
/** A session outlives a working day, not a week: a lost laptop's cookie stops working. */
const SESSION_TTL_MS = 8 * 3_600_000;
/** At most this many live sessions: an older one is dropped first (logins cannot fill memory). */
const MAX_SESSIONS = 100;

interface AdminSession {
  id: string;
  csrf: string;
  expiresAt: number;
}

/** How the request proved itself: a cookie session (CSRF applies) or the bearer token (a script). */
export type Access = { kind: 'session'; session: AdminSession } | { kind: 'bearer' };

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

function cookieOf(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * What the proxy nearest the browser put in an X-Forwarded-* header: its first entry. Proxies in a
 * chain append theirs ("https, http": the browser used https to the first), and a header sent
 * twice arrives joined the same way.
 */
function forwarded(req: http.IncomingMessage, name: 'x-forwarded-proto' | 'x-forwarded-host'): string | undefined {
  const raw = req.headers[name];
  const first = (Array.isArray(raw) ? raw[0] : raw)?.split(',')[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

export class AdminSessions {
  private readonly expected: Buffer;
  private readonly sessions = new Map<string, AdminSession>();

  constructor(
    token: string,
    private readonly now: () => number = Date.now,
  ) {
    this.expected = digest(token);
  }

  /** Constant time in the token's content: both sides are hashed to equal-length digests first. */
  tokenMatches(given: string | undefined): boolean {
    if (given === undefined || given === '') return false;
    return timingSafeEqual(this.expected, digest(given));
  }

  login(): AdminSession {
    const t = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= t) this.sessions.delete(id);
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url'), expiresAt: t + SESSION_TTL_MS };
    this.sessions.set(session.id, session);
    return session;
  }

  logout(req: http.IncomingMessage): void {
    const id = cookieOf(req, SESSION_COOKIE);
    if (id !== undefined) this.sessions.delete(id);
  }

  /** The request's access, or undefined: no cookie of a live session and no right bearer token. */
  access(req: http.IncomingMessage): Access | undefined {
    const auth = req.headers.authorization;
    if (auth !== undefined && /^bearer /i.test(auth)) return this.tokenMatches(auth.slice(7).trim()) ? { kind: 'bearer' } : undefined;
    const id = cookieOf(req, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return { kind: 'session', session };
  }

  /** Set-Cookie for a new session; Secure when the proxy in front says the browser used https. */
  static cookie(session: AdminSession, req: http.IncomingMessage): string {
    const secure = forwarded(req, 'x-forwarded-proto')?.toLowerCase() === 'https' ? '; Secure' : '';
    return `${SESSION_COOKIE}=${session.id}; Path=/status; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure}`;
  }

  static clearCookie(): string {
    return `${SESSION_COOKIE}=; Path=/status; HttpOnly; SameSite=Strict; Max-Age=0`;
  }
}

/**
 * A browser names the page that sent a POST (Origin, or Sec-Fetch-Site): refuse one from another
 * site. Behind a proxy the Host it forwards (X-Forwarded-Host) is the one the browser saw.
 */
export function sameOrigin(req: http.IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = forwarded(req, 'x-forwarded-host') ?? req.headers.host;
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The CSRF token of a form, compared in constant time with the session's. */
export function csrfMatches(session: AdminSession, given: string | undefined): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(session.csrf), digest(given));
}
