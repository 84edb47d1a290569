/**
 * Repeated identical failures summed up in the log: the first is written at once with a note that
 * more are summed, the rest of its window are counted, and one line at the window's end says
 * "N more like this in the last X s". A full disk under 2,000 webhooks writes two lines, not
 * 2,000 (on the disk that is full).
 */
import type { LogLevel, LogSink } from './log.js';

const WINDOW_MS = 60_000;
/** Different lines summed at once; past it the oldest is written out, so memory stays bounded. */
const MAX_KINDS = 32;

interface Pending {
  /** The line as first written. */
  text: string;
  level: LogLevel;
  more: number;
  since: number;
  timer: NodeJS.Timeout;
}

export class RepeatedLines {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly log: LogSink,
    private readonly windowMs = WINDOW_MS,
  ) {}

  /** `text` logged, or counted when the same text was logged within the window. */
  line(text: string, level: LogLevel): void {
    const seen = this.pending.get(text);
    if (seen !== undefined) {
      seen.more += 1;
      return;
    }
    if (this.pending.size >= MAX_KINDS) this.summarise(this.pending.keys().next().value ?? '');
    this.log(`${text} (identical failures in the next ${this.windowMs / 1000} s are summed up in one line)`, level);
    const timer = setTimeout(() => this.summarise(text), this.windowMs);
    // A pending summary never keeps the process alive; flush() writes it on a stop.
    timer.unref();
    this.pending.set(text, { text, level, more: 0, since: Date.now(), timer });
  }

  /** Every pending summary written now (on stop: no count is lost). */
  flush(): void {
    for (const text of [...this.pending.keys()]) this.summarise(text);
  }

  private summarise(text: string): void {
    const p = this.pending.get(text);
    if (p === undefined) return;
    clearTimeout(p.timer);
    this.pending.delete(text);
    // A flush on stop sums a window not yet over: the seconds it really lasted.
    const seconds = Math.max(1, Math.round(Math.min(this.windowMs, Date.now() - p.since) / 1000));
    if (p.more > 0) this.log(`${p.more} more like this in the last ${seconds} s: ${p.text}`, p.level);
  }
}
