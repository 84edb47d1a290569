/** A spinner on stderr while working, only when stderr is a terminal (never in cron or --json). */
import ora, { type Ora } from 'ora';
import type { Progress } from '../../model/outcomes.js';

export interface ProgressView {
  /** True when a spinner is drawn; otherwise notes are the caller's to print. */
  readonly live: boolean;
  update(p: Progress): void;
  note(text: string): void;
  requests(platform: number, salesforce: number): void;
  stop(): void;
}

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressView {
  if (!enabled || !stream.isTTY) {
    return { live: false, update: () => undefined, note: () => undefined, requests: () => undefined, stop: () => undefined };
  }
  const spinner: Ora = ora({ stream, text: 'starting' }).start();
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
    requests(platform, salesforce) {
      req = `requests: platform ${platform}, salesforce ${salesforce}`;
      render();
    },
    stop() {
      spinner.stop();
    },
  };
}
