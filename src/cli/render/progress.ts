/** A spinner on stderr while working, only when stderr is a terminal (never in cron or --json). */
import ora, { type Ora } from 'ora';
import type { Progress } from '../../model/outcomes.js';

export interface ProgressView {
  /** True when a spinner is drawn; otherwise notes are the caller's to print. */
  readonly live: boolean;
  update(p: Progress): void;
  note(text: string): void;
  /** A line that stays, printed above the spinner (or alone without one). */
  announce(text: string): void;
  requests(platform: number, salesforce: number): void;
  stop(): void;
}

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressView {
  // A terminal that reports no width (a pty nobody sized) would make the spinner redraw endlessly: treat as none.
  if (!enabled || !stream.isTTY || !(stream.columns > 0)) {
    return { live: false, update: () => undefined, note: () => undefined, announce: (t) => void stream.write(`${t}\n`), requests: () => undefined, stop: () => undefined };
  }
  // discardStdin: false. ora would put stdin in raw mode, where Ctrl-C is a keypress, never SIGINT.
  const spinner: Ora = ora({ stream, text: 'starting', discardStdin: false }).start();
  const done = new Map<string, string>();
  let req = '';
  let note = '';
  const render = (): void => {
    const levels = [...done].map(([t, n]) => `${t} ${n}`).join(', ');
    spinner.text = [levels || 'fetching', req, note].filter(Boolean).join(' | ');
  };
  return {
    live: true,
    update(p) {
      done.set(p.type, p.total === undefined ? String(p.done) : `${p.done}/${p.total}`);
      render();
    },
    note(text) {
      note = text;
      render();
    },
    announce(text) {
      spinner.clear();
      stream.write(`${text}\n`);
      spinner.render();
    },
    requests(platform, salesforce) {
      req = `requests: platform ${platform}, salesforce ${salesforce}`;
      render();
    },
    stop() {
      spinner.stop();
    },
  };
}
