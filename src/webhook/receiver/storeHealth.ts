/**
 * Whether the receiver can store events, as /healthz reports it: from the first commit that fails
 * (a full disk, a file made read-only) until one succeeds again, /healthz answers 503 "degraded",
 * so a container's health check turns red while every webhook is answered 503. The failures are
 * logged summed up (RepeatedLines), never one line per webhook.
 */
import type { LogSink } from '../../config/log.js';
import { oneLine } from '../../config/echo.js';
import { RepeatedLines } from '../../config/repeatedLines.js';
import { messageOf } from '../../model/errors.js';
import { queueReason } from '../queue/publicReason.js';

export class StoreHealth {
  private failing: { since: number; error: unknown } | undefined;
  private readonly lines: RepeatedLines;

  constructor(
    private readonly location: string,
    log: LogSink,
  ) {
    this.lines = new RepeatedLines(log);
  }

  /** An event was committed: storing works. */
  stored(): void {
    this.failing = undefined;
  }

  /** An event could not be committed (answered 503). */
  failed(error: unknown): void {
    this.failing = { since: this.failing?.since ?? Date.now(), error };
    this.lines.line(`webhook 503: queue ${this.location}: ${oneLine(messageOf(error), 300)}`, 'error');
  }

  /** What /healthz says while events cannot be stored (a fixed phrase: no path, no address), or undefined. */
  problem(): { error: string; since: string } | undefined {
    const f = this.failing;
    return f === undefined ? undefined : { error: queueReason(f.error), since: new Date(f.since).toISOString() };
  }

  /** On stop: the failures still being summed are written out. */
  close(): void {
    this.lines.flush();
  }
}
