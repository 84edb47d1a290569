/**
 * One status line on stderr while working, only when stderr is a terminal (never in cron or
 * --json): the phase (scan / fetch / write) and the type, counts against totals where known,
 * elapsed time and an ETA, requests to each side, and a rate-limit wait as a live countdown.
 * The line is cut to the terminal's width, so it never wraps.
 */
import ora, { type Ora } from 'ora';
import type { Progress } from '../../model/outcomes.js';
import { fit } from './text.js';

export interface ProgressView {
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

const n = (v: number): string => v.toLocaleString('en-US');

/** The status line's text (without the spinner), from what the run reported so far. */
export function statusLine(p: Progress | undefined, startedAt: number, now: number, typeStartedAt: number, req: string, note: string): string {
  const parts: string[] = [];
  if (p) {
    const phase = p.phase ?? 'write';
    parts.push(p.total === undefined ? `${phase} ${p.type} ${n(p.done)}` : `${phase} ${p.type} ${n(p.done)}/${n(p.total)}`);
  } else parts.push('starting');
  parts.push(clock(now - startedAt));
  if (p?.total !== undefined && p.done > 0 && p.done < p.total) {
    // The current type's own pace: types differ (a segment is not a donation).
    const eta = ((now - typeStartedAt) / p.done) * (p.total - p.done);
    parts.push(`ETA ${clock(eta)}`);
  }
  if (req) parts.push(req);
  if (note) parts.push(note);
  return parts.join(' · ');
}

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressView {
  // A terminal that reports no width (a pty nobody sized) would make the spinner redraw endlessly: treat as none.
  if (!enabled || !stream.isTTY || !(stream.columns > 0)) {
    return { live: false, update: () => undefined, note: () => undefined, announce: (t) => void stream.write(`${t}\n`), requests: () => undefined, stop: () => undefined };
  }
  // discardStdin: false. ora would put stdin in raw mode, where Ctrl-C is a keypress, never SIGINT.
  const spinner: Ora = ora({ stream, text: 'starting', discardStdin: false }).start();
  const startedAt = Date.now();
  let current: Progress | undefined;
  let typeStartedAt = startedAt;
  let req = '';
  let note = '';
  let noteUntil: number | undefined;
  const render = (): void => {
    const now = Date.now();
    let shown = note;
    if (noteUntil !== undefined) {
      const left = Math.ceil((noteUntil - now) / 1000);
      if (left <= 0) {
        note = '';
        noteUntil = undefined;
        shown = '';
      } else shown = note.replace(/\d+ s$/, `${left} s`);
    }
    // The spinner and its space take two columns.
    spinner.text = fit(statusLine(current, startedAt, now, typeStartedAt, req, shown), Math.max(20, (stream.columns || 80) - 2));
  };
  // Elapsed time, the ETA and a countdown move even while no batch ends.
  const ticker = setInterval(render, 1000);
  ticker.unref();
  return {
    live: true,
    update(p) {
      if (current?.type !== p.type) typeStartedAt = Date.now();
      current = p;
      render();
    },
    note(text, until) {
      note = text;
      noteUntil = until;
      render();
    },
    announce(text) {
      spinner.clear();
      stream.write(`${text}\n`);
      spinner.render();
    },
    requests(platform, salesforce) {
      req = `${n(platform)} API + ${n(salesforce)} SF requests`;
      render();
    },
    stop() {
      clearInterval(ticker);
      spinner.stop();
    },
  };
}
