/**
 * The worker's record of queue trouble: how long to back off, what to log once, and what /healthz
 * shows (a generic reason: no database address or file path).
 */
import type { LogSink } from '../../config/log.js';
import { messageOf } from '../../model/errors.js';
import { publicReason } from '../queue/publicReason.js';
import type { BackoffPolicy } from '../queue/store.js';

/** The worker's wait after queue errors: 1 s, doubling, up to a minute. */
export const WORKER_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000 };

/** What /healthz shows of the worker. */
export type WorkerHealth =
  | { state: 'ok' }
  | {
      state: 'backing-off';
      /** Queue errors in a row (one per attempt). */
      failures: number;
      since: string;
      lastError: string;
      retryInMs: number;
    };

/**
 * Queue errors (a full disk, a locked or broken file): the worker waits before it tries again,
 * doubling the wait, and logs once when the errors start (or change), once when they end.
 */
export class QueueFaults {
  private fault: { failures: number; since: number; lastError: string; shown: string; retryAt: number } | undefined;
  /** One fault counted per round (a claim, a process, a hand-back), however many steps failed in it. */
  private faultThisRound = false;

  constructor(
    private readonly queuePath: string,
    private readonly backoff: BackoffPolicy,
    private readonly log: LogSink,
  ) {}

  newRound(): void {
    this.faultThisRound = false;
  }

  get failedThisRound(): boolean {
    return this.faultThisRound;
  }

  /** When the next attempt is due, while the queue is failing. */
  get retryAt(): number | undefined {
    return this.fault?.retryAt;
  }

  failed(what: string, error: unknown): void {
    if (this.faultThisRound) return;
    this.faultThisRound = true;
    const text = `${what}: ${messageOf(error)}`;
    const failures = (this.fault?.failures ?? 0) + 1;
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** Math.min(failures - 1, 30));
    if (this.fault === undefined || this.fault.lastError !== text) {
      this.log(
        `webhook worker: queue ${this.queuePath} failing (${failures} ${failures === 1 ? 'error' : 'errors in a row'}): ${text}; retrying with a doubling wait up to ${Math.round(this.backoff.maxMs / 1000)} s`,
        'error',
      );
    }
    this.fault = { failures, since: this.fault?.since ?? Date.now(), lastError: text, shown: `${what}: ${publicReason(error)}`, retryAt: Date.now() + delay };
  }

  recovered(): void {
    if (this.fault === undefined) return;
    this.log(
      `webhook worker: queue ${this.queuePath} usable again after ${this.fault.failures} failed ${this.fault.failures === 1 ? 'attempt' : 'attempts'} over ${Math.round((Date.now() - this.fault.since) / 1000)} s`,
    );
    this.fault = undefined;
  }

  health(): WorkerHealth {
    const f = this.fault;
    if (f === undefined) return { state: 'ok' };
    // /healthz shows this to anyone: no database address or file path in it (the log has them).
    return { state: 'backing-off', failures: f.failures, since: new Date(f.since).toISOString(), lastError: f.shown, retryInMs: Math.max(0, f.retryAt - Date.now()) };
  }
}
