/**
 * Rate-limit pacing for the platform API.
 *
 * The API counts requests in fixed windows per key (a minute and an hour) and reports on every
 * response X-RateLimit-Limit-Minute/-Hour and X-RateLimit-Remaining-Minute/-Hour; some gateways
 * add `RateLimit-Reset` (seconds until the most constrained window resets). The pacer keeps an
 * allowance per window from those headers and holds requests back when it reaches zero, so a long
 * run waits for the window instead of provoking 429s. A 429 that still happens (another client on
 * the same key) blocks every request until Retry-After has passed.
 *
 * What the headers say is bounded: no wait taken from them is longer than MAX_WAIT_MS (then the
 * pacer looks again: a reset of 30 days or 1e12 is a broken gateway, not a plan; a Retry-After of
 * an hour is a run that finishes later, not one that fails); a count at zero
 * with no reset waits for the next fixed window boundary (the counters renew on the minute and on
 * the hour); and a platform that sends no rate-limit headers at all is paced at the documented
 * limits (DOCUMENTED_LIMITS), not left to find them by 429s.
 */
import type { IncomingHttpHeaders } from 'node:http';
import pLimit, { type LimitFunction } from 'p-limit';
import { sleep } from '../model/sleep.js';

import type { RateLimitSnapshot, SharedBudget, WaitReason } from '../model/budget.js';

export type { RateLimitSnapshot, SharedBudget };

/** What a waiting run tells the user: "waiting 42 s: platform minute limit". */
export interface WaitInfo {
  seconds: number;
  reason: WaitReason;
  message: string;
  /** A 429's Retry-After, in seconds, when it asked for longer than the wait taken. */
  askedSeconds?: number;
}
export type OnWait = (info: WaitInfo) => void;

/** The longest wait taken from a header (reset, Retry-After); past it the pacer tries again. */
export const MAX_WAIT_MS = 15 * 60_000;

/** The platform's documented limits per key, used when it reports none. */
export const DOCUMENTED_LIMITS = { minute: 100, hour: 500 } as const;

/** The next boundary of a fixed window of `lengthMs` (on the minute, on the hour) after `now`. */
function nextBoundary(now: number, lengthMs: number): number {
  return (Math.floor(now / lengthMs) + 1) * lengthMs;
}

interface PacerOptions {
  /** Requests in flight at once. */
  concurrency: number;
  onWait?: OnWait | undefined;
  shared?: SharedBudget | undefined;
  /** Told when the shared budget cannot be reached (pacing then goes on locally). */
  onSharedError?: ((error: unknown) => void) | undefined;
  /** Injectable for tests; real timers otherwise. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  now?: (() => number) | undefined;
  /** The longest single wait (MAX_WAIT_MS); tests shorten it. */
  maxWaitMs?: number | undefined;
}

interface WindowState {
  readonly reason: WaitReason;
  readonly lengthMs: number;
  /** Requests we may still send in this window; undefined = not known (no header seen yet). */
  remaining?: number | undefined;
  /** When the window renews; undefined = not reported. */
  resetAt?: number | undefined;
}

/** Handed out by acquire() and given back to settle(), so stale responses can be recognised. */
interface PacerTicket {
  readonly epoch: number;
  readonly seq: number;
  /** The shared budget's grant, when there is one. */
  readonly grant?: number;
}

/** A sleep that ends early, rejecting with the signal's reason, when the run is stopped (a wait can last a minute). */
export function stoppableSleep(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

function headerNumber(headers: IncomingHttpHeaders, name: string): number | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function describeWait(seconds: number, reason: WaitReason, askedSeconds?: number): string {
  // The wait first: an 80-column line cut at its end still shows it.
  const why = reason === 'rate_limited' ? 'platform rate limited (429)' : reason === 'minute_limit' ? 'platform minute limit' : 'platform hourly limit';
  // A Retry-After longer than one wait: the stretch is waited, then the platform asked again.
  const asked = askedSeconds === undefined ? '' : `, asked ${askedSeconds} s; looks again then`;
  return `waiting ${seconds} s: ${why}${asked}`;
}

export class RatePacer {
  private readonly limiter: LimitFunction;
  private readonly onWait: OnWait | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly maxWaitMs: number;
  private readonly shared: SharedBudget | undefined;
  private readonly onSharedError: ((error: unknown) => void) | undefined;
  private readonly minute: WindowState = { reason: 'minute_limit', lengthMs: 60_000 };
  private readonly hour: WindowState = { reason: 'hour_limit', lengthMs: 3_600_000 };
  private inFlight = 0;
  private epoch = 0;
  private seq = 0;
  private lastSettledSeq = -1;
  private blockedUntil = 0;
  private announcedUntil = 0;
  private snapshotValue: RateLimitSnapshot = {};
  /** Whether responses carry rate-limit headers: undefined until the first response tells. */
  private reported: boolean | undefined;
  /** Requests sent in the current wall-clock minute and hour: the pacing when nothing is reported. */
  private readonly sent = { minute: { window: -1, count: 0 }, hour: { window: -1, count: 0 } };
  /** Distinct waits announced (one per pause, however many requests were held by it). */
  waits = 0;
  /** Time announced as waited, each stretch counted once however many requests it held. */
  waitedMs = 0;

  constructor(options: PacerOptions) {
    this.limiter = pLimit(Math.max(1, options.concurrency));
    this.onWait = options.onWait;
    this.sleep = options.sleep ?? sleep;
    this.now = options.now ?? Date.now;
    this.maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
    this.shared = options.shared;
    this.onSharedError = options.onSharedError;
  }

  /** Runs a logical request (with its retries) inside the concurrency bound. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.limiter(fn);
  }

  snapshot(): RateLimitSnapshot {
    const resetAt = this.hour.resetAt;
    const now = this.now();
    return resetAt !== undefined && resetAt > now ? { ...this.snapshotValue, hourResetInMs: resetAt - now } : { ...this.snapshotValue };
  }

  /** Milliseconds until the most constrained known window renews, if the API told us. */
  resetInMs(): number | undefined {
    const now = this.now();
    const resets = [this.minute.resetAt, this.hour.resetAt].filter((t): t is number => t !== undefined && t > now);
    return resets.length === 0 ? undefined : Math.min(...resets) - now;
  }

  /** Resolves when one more request may be sent without exceeding a known window. */
  async acquire(): Promise<PacerTicket> {
    let grant: number | undefined;
    for (;;) {
      const now = this.now();
      this.renewExpired(now);
      let until = 0;
      let reason: WaitReason = 'rate_limited';
      if (this.blockedUntil > now) {
        until = this.blockedUntil;
      } else {
        for (const w of [this.minute, this.hour]) {
          if (w.remaining !== undefined && w.remaining <= 0) {
            // Without a reported reset, the fixed window renews at its next boundary.
            w.resetAt ??= nextBoundary(now, w.lengthMs);
            if (w.resetAt > until) {
              until = w.resetAt;
              reason = w.reason;
            }
          }
        }
        if (this.reported === false) {
          const local = this.unreportedWait(now);
          if (local !== undefined && local.until > until) ({ until, reason } = local);
        }
      }
      if (until <= now && this.shared !== undefined) {
        grant = undefined;
        try {
          const taken = await this.shared.take(now);
          if ('grant' in taken) grant = taken.grant;
          else if (taken.until > now) {
            until = taken.until;
            reason = taken.reason;
          }
        } catch (error) {
          // The shared record is out of reach: local pacing alone is better than no requests.
          this.onSharedError?.(error);
        }
      }
      if (until <= now) break;
      // Bounded whatever was reported; past the bound the loop looks again.
      until = Math.min(until, now + this.maxWaitMs);
      this.announce(until, reason, now);
      await this.sleep(until - now);
    }
    for (const w of [this.minute, this.hour]) if (w.remaining !== undefined) w.remaining -= 1;
    this.countSent(this.now());
    this.inFlight += 1;
    return { epoch: this.epoch, seq: this.seq++, ...(grant === undefined ? {} : { grant }) };
  }

  /** Counts a request in its wall-clock minute and hour (the documented windows). */
  private countSent(now: number): void {
    for (const [key, length] of [
      ['minute', 60_000],
      ['hour', 3_600_000],
    ] as const) {
      const c = this.sent[key];
      const window = Math.floor(now / length);
      if (c.window !== window) Object.assign(c, { window, count: 0 });
      c.count += 1;
    }
  }

  /** With no rate-limit headers: wait for the next boundary once the documented count is sent. */
  private unreportedWait(now: number): { until: number; reason: WaitReason } | undefined {
    const hour = this.sent.hour;
    if (hour.window === Math.floor(now / 3_600_000) && hour.count >= DOCUMENTED_LIMITS.hour) return { until: nextBoundary(now, 3_600_000), reason: 'hour_limit' };
    const minute = this.sent.minute;
    if (minute.window === Math.floor(now / 60_000) && minute.count >= DOCUMENTED_LIMITS.minute) return { until: nextBoundary(now, 60_000), reason: 'minute_limit' };
    return undefined;
  }

  /** Whether the platform reports its rate limits (undefined before the first response). */
  get limitsReported(): boolean | undefined {
    return this.reported;
  }

  /** Gives a ticket back with the response headers (none after a network error). */
  settle(ticket: PacerTicket, headers?: IncomingHttpHeaders): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (!headers) return;
    const limitMinute = headerNumber(headers, 'x-ratelimit-limit-minute');
    const remainingMinute = headerNumber(headers, 'x-ratelimit-remaining-minute');
    const limitHour = headerNumber(headers, 'x-ratelimit-limit-hour');
    const remainingHour = headerNumber(headers, 'x-ratelimit-remaining-hour');
    // One response with any of them proves the platform reports its limits.
    const any = [limitMinute, remainingMinute, limitHour, remainingHour, headerNumber(headers, 'ratelimit-remaining')].some((v) => v !== undefined);
    if (any) this.reported = true;
    else this.reported ??= false;
    // A response to a request sent before a window renewed, or overtaken by a later one,
    // describes an older state of the server's counters: ignore it.
    if (ticket.epoch !== this.epoch || ticket.seq < this.lastSettledSeq) return;
    this.lastSettledSeq = ticket.seq;
    this.snapshotValue = { limitMinute, remainingMinute, limitHour, remainingHour };
    // Requests still in flight may not be counted by the server yet: subtract them all (conservative).
    if (remainingMinute !== undefined) this.minute.remaining = remainingMinute - this.inFlight;
    if (remainingHour !== undefined) this.hour.remaining = remainingHour - this.inFlight;
    const reset = headerNumber(headers, 'ratelimit-reset');
    if (reset !== undefined && reset >= 0) {
      // The gateway reports the reset of the window with the fewest requests left; a reset past
      // MAX_WAIT_MS (30 days, 1e12) is bounded: the pacer looks again then.
      const constrained = remainingHour !== undefined && (remainingMinute === undefined || remainingHour < remainingMinute) ? this.hour : this.minute;
      constrained.resetAt = this.now() + Math.min(reset * 1000, this.maxWaitMs);
    }
    // With a grant, the shared record discounts every process's later grants itself.
    const own = ticket.grant === undefined ? this.inFlight : 0;
    this.shared?.record({
      ...(remainingMinute === undefined ? {} : { remainingMinute: remainingMinute - own }),
      ...(remainingHour === undefined ? {} : { remainingHour: remainingHour - own }),
      ...(this.minute.resetAt === undefined ? {} : { minuteResetAt: this.minute.resetAt }),
      ...(this.hour.resetAt === undefined ? {} : { hourResetAt: this.hour.resetAt }),
      ...(ticket.grant === undefined ? {} : { grant: ticket.grant }),
    });
  }

  /**
   * After a 429: every request waits `ms`, and the windows are unknown again afterwards. Returns
   * the wait taken: Retry-After: 2,000,000 would hold every event for 23 days, so past MAX_WAIT_MS
   * the pacer looks again (and says it was asked for longer).
   */
  block(ms: number): number {
    const now = this.now();
    const wait = Math.min(Math.max(0, ms), this.maxWaitMs);
    const until = now + wait;
    if (until > this.blockedUntil) this.blockedUntil = until;
    this.shared?.record({ blockedUntil: this.blockedUntil });
    this.announce(this.blockedUntil, 'rate_limited', now, ms > wait ? Math.ceil(ms / 1000) : undefined);
    return wait;
  }

  private renewExpired(now: number): void {
    let renewed = false;
    for (const w of [this.minute, this.hour]) {
      if (w.resetAt !== undefined && w.resetAt <= now) {
        w.remaining = undefined;
        w.resetAt = undefined;
        renewed = true;
      }
    }
    if (this.blockedUntil !== 0 && this.blockedUntil <= now) {
      this.blockedUntil = 0;
      this.minute.remaining = undefined;
      this.minute.resetAt = undefined;
      renewed = true;
    }
    if (renewed) this.epoch += 1;
  }

  private announce(until: number, reason: WaitReason, now: number, askedSeconds?: number): void {
    // Many requests share one pause; the user hears about it once.
    if (until <= this.announcedUntil) return;
    this.waitedMs += until - Math.max(now, this.announcedUntil);
    // Concurrent requests refused together (429s a few ms apart) extend the running pause a
    // little each: still one pause, one line.
    const extendsRunning = now < this.announcedUntil && until - this.announcedUntil < 2_000;
    this.announcedUntil = until;
    if (extendsRunning) return;
    this.waits += 1;
    const seconds = Math.max(1, Math.ceil((until - now) / 1000));
    this.onWait?.({ seconds, reason, message: describeWait(seconds, reason, askedSeconds), ...(askedSeconds === undefined ? {} : { askedSeconds }) });
  }
}
