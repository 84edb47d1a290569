/**
 * Guessing the admin token is slowed per client address: after MAX_FAILURES wrong tokens (the
 * sign-in form or a bearer) within a window, that address is answered 429 with Retry-After until
 * the window ends, whatever it sends. Failures are logged as one line at the first, then one line
 * a window summing up the rest while they go on: a guesser cannot flood the log.
 *
 * The address is the connection's (never X-Forwarded-For, which a guesser writes himself); an
 * IPv6 client counts by its /64, the block one host is given. Behind a proxy every client shares
 * the proxy's address: a guesser there holds back the others too, for one window at most.
 */
import type { LogSink } from '../../config/log.js';
import { isIPv4 } from 'node:net';

/** Wrong tokens an address may send in one window before it is answered 429. */
const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;
/** Addresses tracked at once: the oldest goes first, so a spread of addresses cannot fill memory. */
const MAX_ADDRESSES = 10_000;

/** How the lines name a failure: the status page's wrong admin token, or the receiver's wrong webhook secret. */
interface FailureWords {
  /** The line's prefix: "status", "webhook 401". */
  prefix: string;
  one: string;
  many: string;
}

const ADMIN_TOKEN: FailureWords = { prefix: 'status', one: 'wrong admin token', many: 'wrong admin tokens' };

export interface SignInLimitOptions {
  /** Infinity: failures are only summed up in the log, never answered 429. */
  maxFailures?: number;
  windowMs?: number;
  /** Injectable for tests. */
  now?: () => number;
  words?: FailureWords;
}

interface Tally {
  since: number;
  failures: number;
}

/** An IPv6 address's first four groups (its /64); IPv4 (also IPv4-mapped) as is. */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '?';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (isIPv4(address) || !address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back] : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class SignInLimit {
  private readonly tallies = new Map<string, Tally>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly words: FailureWords;
  /** What happened since the last line: wrong tokens and 429s, per address. */
  private pending: { wrong: number; refused: number; from: Map<string, number> } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: LogSink,
    opts: SignInLimitOptions = {},
  ) {
    this.maxFailures = opts.maxFailures ?? MAX_FAILURES;
    this.windowMs = opts.windowMs ?? WINDOW_MS;
    this.now = opts.now ?? Date.now;
    this.words = opts.words ?? ADMIN_TOKEN;
  }

  /** Seconds the address must wait before it may try again, or undefined when it may now. */
  retryAfterS(address: string | undefined): number | undefined {
    const key = clientKey(address);
    const tally = this.live(key);
    if (tally === undefined || tally.failures < this.maxFailures) return undefined;
    this.note(key, 'refused');
    return Math.max(1, Math.ceil((tally.since + this.windowMs - this.now()) / 1000));
  }

  /** A wrong token from the address (`how`: the form or a bearer, for the first line). */
  failed(address: string | undefined, how: string): void {
    const key = clientKey(address);
    let tally = this.live(key);
    if (tally === undefined) {
      if (this.tallies.size >= MAX_ADDRESSES) this.tallies.delete(this.tallies.keys().next().value ?? '');
      tally = { since: this.now(), failures: 0 };
      this.tallies.set(key, tally);
    }
    tally.failures += 1;
    if (this.timer === undefined) {
      this.log(`${this.words.prefix}: ${this.words.one} from ${key} (${how}); more in the next ${this.windowMs / 1000} s are summed up in one line`, 'warn');
      this.pending = { wrong: 0, refused: 0, from: new Map() };
      this.timer = setTimeout(() => this.summarise(), this.windowMs);
      // A pending summary never keeps the process alive.
      this.timer.unref();
      return;
    }
    this.note(key, 'wrong');
  }

  /** The address's tally of the running window; a finished one is dropped. */
  private live(key: string): Tally | undefined {
    const tally = this.tallies.get(key);
    if (tally !== undefined && tally.since + this.windowMs <= this.now()) {
      this.tallies.delete(key);
      return undefined;
    }
    return tally;
  }

  private note(key: string, what: 'wrong' | 'refused'): void {
    if (this.pending === undefined) return;
    this.pending[what] += 1;
    this.pending.from.set(key, (this.pending.from.get(key) ?? 0) + 1);
  }

  /** The line summing up a window; while guesses go on, the next window is summed up after it. */
  private summarise(): void {
    const p = this.pending;
    if (p === undefined || p.wrong + p.refused === 0) {
      this.timer = undefined;
      this.pending = undefined;
      return;
    }
    const from = [...p.from]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([key, n]) => `${key} ${n}`);
    const more = p.from.size > 5 ? ` and ${p.from.size - 5} more addresses` : '';
    const refused = Number.isFinite(this.maxFailures) ? ` and ${p.refused} sign-ins answered 429 (too many)` : '';
    this.log(`${this.words.prefix}: in the last ${this.windowMs / 1000} s, ${p.wrong} more ${this.words.many}${refused}, from ${from.join(', ')}${more}`, 'warn');
    this.pending = { wrong: 0, refused: 0, from: new Map() };
    this.timer = setTimeout(() => this.summarise(), this.windowMs);
    this.timer.unref();
  }
}
