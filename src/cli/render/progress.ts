/**
 * One status line on stderr while working, only when stderr is a terminal (never in cron or
 * --json): a rate-limit wait first, as a live countdown; the phase (scan / fetch / map / write) and
 * the type, counts against totals where known, the write's step (Bulk job, Collections batch),
 * elapsed time and an ETA without waits, requests to each side.
 * The line is cut to the terminal's width, so it never wraps.
 */
import type { Ora } from 'ora';
import type { Progress, WriteStep } from '../../model/outcomes.js';
import { spinnerDrawn, stderrLine } from '../output.js';
import { fit, formatCount } from './text.js';

interface ProgressView {
  /** True when a spinner is drawn; otherwise notes are the caller's to print. */
  readonly live: boolean;
  update(p: Progress): void;
  /** A transient notice on the line; with `until` (epoch ms), its trailing "N s" counts down to it. */
  note(text: string, until?: number): void;
  /** A line that stays, printed above the spinner (or alone without one). */
  announce(text: string): void;
  requests(platform: number, salesforce: number): void;
  stop(): void;
}

/** "1:05", "1:02:03". */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

const n = formatCount;

/** What a write step reads as: "Bulk job processing 5,000/20,000", "Collections 3/25". */
function describeStep(step: WriteStep): string {
  if (step.via === 'collections') return `Collections ${n(step.batch)}/${n(step.batches)}`;
  if (step.step === 'processing') return `Bulk job processing ${n(step.processed)}/${n(step.records)}`;
  const what = { created: 'created', uploaded: 'uploaded', results: 'reading results' }[step.step];
  return `Bulk job ${what} (${n(step.records)})`;
}

/**
 * The status line's text (without the spinner), from what the run reported so far. A note (a
 * wait) comes first, so a narrow terminal still shows it; `typeActiveMs` is the time spent on the
 * current type outside waits, so the ETA does not grow while the run waits.
 */
export function statusLine(p: Progress | undefined, startedAt: number, now: number, typeActiveMs: number, req: string, note: string): string {
  const parts: string[] = [];
  if (note) parts.push(note);
  if (p) {
    const phase = p.phase ?? 'write';
    parts.push(p.total === undefined ? `${phase} ${p.type} ${n(p.done)}` : `${phase} ${p.type} ${n(p.done)}/${n(p.total)}`);
    if (p.step) parts.push(describeStep(p.step));
  } else parts.push('starting');
  parts.push(clock(now - startedAt));
  if (p?.total !== undefined && p.done > 0 && p.done < p.total) {
    // The current type's own pace: types differ (a segment is not a donation).
    const eta = (typeActiveMs / p.done) * (p.total - p.done);
    parts.push(`ETA ${clock(eta)}`);
  }
  if (req) parts.push(req);
  return parts.join(' · ');
}

/**
 * The status line's state, on an injected clock: progress, requests, and a note whose "waiting N s"
 * counts down to its end. Time under such a wait is kept out of the current type's pace.
 */
export class ProgressTracker {
  private readonly startedAt: number;
  private current: Progress | undefined;
  private typeStartedAt: number;
  private waitedBeforeType = 0;
  private waitedMs = 0;
  private req = '';
  private note = '';
  private wait: { from: number; until: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
    this.typeStartedAt = this.startedAt;
  }

  update(p: Progress): void {
    if (this.current?.type !== p.type) {
      this.typeStartedAt = this.now();
      this.waitedBeforeType = this.waited(this.typeStartedAt);
    }
    this.current = p;
  }

  setNote(text: string, until?: number): void {
    this.endWait(this.now());
    this.note = text;
    if (until !== undefined) this.wait = { from: this.now(), until };
  }

  requests(platform: number, salesforce: number): void {
    this.req = `${n(platform)} API + ${n(salesforce)} SF requests`;
  }

  line(): string {
    const now = this.now();
    if (this.wait && now >= this.wait.until) {
      this.endWait(now);
      this.note = '';
    }
    const shown = this.wait ? this.note.replace(/^waiting \d+ s/, `waiting ${Math.ceil((this.wait.until - now) / 1000)} s`) : this.note;
    const active = now - this.typeStartedAt - (this.waited(now) - this.waitedBeforeType);
    return statusLine(this.current, this.startedAt, now, Math.max(0, active), this.req, shown);
  }

  /** Wait time so far, the wait in course included (up to `at`). */
  private waited(at: number): number {
    return this.waitedMs + (this.wait ? Math.max(0, Math.min(at, this.wait.until) - this.wait.from) : 0);
  }

  private endWait(at: number): void {
    if (!this.wait) return;
    this.waitedMs = this.waited(at);
    this.wait = undefined;
  }
}

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressView {
  // A terminal that reports no width (a pty nobody sized) would make the spinner redraw endlessly: treat as none.
  if (!enabled || !stream.isTTY || !(stream.columns > 0)) {
    // Without a spinner the line is a log line: in cron mode it carries its time (or is JSON).
    return { live: false, update: () => undefined, note: () => undefined, announce: (t) => void stream.write(`${stderrLine('warn', t)}\n`), requests: () => undefined, stop: () => undefined };
  }
  const tracker = new ProgressTracker();
  // ora is loaded when a spinner is wanted (a terminal), not at start; until it is here (a few
  // milliseconds) the tracker keeps the counts, and a run that ends first never draws one.
  let spinner: Ora | undefined;
  let stopped = false;
  const render = (): void => {
    // The spinner and its space take two columns.
    if (spinner) spinner.text = fit(tracker.line(), Math.max(20, (stream.columns || 80) - 2));
  };
  void import('ora').then(
    ({ default: ora }) => {
      if (stopped) return;
      // discardStdin: false. ora would put stdin in raw mode, where Ctrl-C is a keypress, never SIGINT.
      spinner = ora({ stream, text: 'starting', discardStdin: false }).start();
      spinnerDrawn(true);
      render();
    },
    // Missing from the install: the spinner is only a view, the run goes on without it.
    () => undefined,
  );
  // Elapsed time, the ETA and a countdown move even while no batch ends.
  const ticker = setInterval(render, 1000);
  ticker.unref();
  return {
    live: true,
    update(p) {
      tracker.update(p);
      render();
    },
    note(text, until) {
      tracker.setNote(text, until);
      render();
    },
    announce(text) {
      spinner?.clear();
      stream.write(`${spinner ? '\r' : ''}${text}\n`);
      spinner?.render();
    },
    requests(platform, salesforce) {
      tracker.requests(platform, salesforce);
      render();
    },
    stop() {
      stopped = true;
      clearInterval(ticker);
      if (spinner === undefined) return;
      spinner.stop();
      // ora's erase is escape sequences alone: what follows starts at column 0 wherever they are
      // not obeyed (a transcript, a pager) too, never after the spinner's text.
      stream.write('\r');
      spinner = undefined;
      spinnerDrawn(false);
    },
  };
}
