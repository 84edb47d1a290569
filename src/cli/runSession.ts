/**
 * What a long run holds while it runs, for sync, object, replay and audit alike: the spinner (or
 * log lines when nobody watches), the Ctrl-C / SIGTERM watch, and how waits and progress reach
 * them. One object, disposed once in a `finally`, so no command leaves a signal handler or a
 * spinner behind.
 */
import type { Progress } from '../model/outcomes.js';
import { watchFinish, watchInterrupt } from './interrupt.js';
import { createProgress } from './render/progress.js';
import type { CommandContext } from './runner.js';

/** Requests made so far on each side: the spinner shows them beside the phase. */
interface RequestCounter {
  source: { requests(): { total: number } };
  sink: { calls(): { total: number } };
}

export class RunSession {
  private readonly progress;
  private readonly interrupt;
  private finish: { dispose(): void } | undefined;

  /** `then`: what the run does once the batch in flight is done (sync saves progress; audit lists what it did). */
  constructor(
    private readonly ctx: CommandContext,
    then?: string,
  ) {
    this.progress = createProgress(!ctx.globals.json && !ctx.globals.quiet);
    // The first Ctrl-C stops the run cleanly, and says so at once (even with --quiet: it explains the exit).
    // While it waits for another run's lock, a stop is at once and its own line says so.
    this.interrupt = watchInterrupt((line) => (this.lockWait ? undefined : this.progress.announce(`svc-sync: ${line}`)), then);
  }

  private lockWait = false;

  /** The wait for another run's lock: nothing is in flight, so a stop is not announced as if it were. */
  async waitingForLock<T>(wait: Promise<T>): Promise<T> {
    this.lockWait = true;
    try {
      return await wait;
    } finally {
      this.lockWait = false;
    }
  }

  /** Aborted, with an InterruptedError as its reason, on the first Ctrl-C or SIGTERM. */
  get signal(): AbortSignal {
    return this.interrupt.signal;
  }

  /** Rate-limit waits: in the spinner on a terminal, as a line on stderr otherwise (cron logs). */
  readonly onWait = (text: string, until?: number): void => {
    if (this.progress.live) this.progress.note(text, until);
    else this.ctx.out.info(text);
  };

  /** The engine's or the audit's progress, with the requests both sides have had so far. */
  progressOf(deps: RequestCounter): (p: Progress) => void {
    return (p) => {
      this.progress.update(p);
      this.progress.requests(deps.source.requests().total, deps.sink.calls().total);
    };
  }

  /** The spinner ends before the report is printed; safe to call more than once. */
  stopProgress(): void {
    this.progress.stop();
  }

  /** The run's work is over: its watch ends, and one for its last writes (watchFinish) begins. */
  finishing(): void {
    this.progress.stop();
    this.interrupt.dispose();
    this.finish ??= watchFinish((line) => this.ctx.out.log('warn', `svc-sync: ${line}`));
  }

  dispose(): void {
    this.progress.stop();
    this.interrupt.dispose();
    this.finish?.dispose();
  }
}
