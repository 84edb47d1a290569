/**
 * Ctrl-C and SIGTERM during a run: the first asks the run to stop (no new batch, no new request,
 * a rate-limit wait ends at once) so it can save its progress and say how to resume; the second
 * exits at once, for a user who will not wait.
 */
import { EXIT, InterruptedError, type StopSignal } from '../model/errors.js';

interface Interrupt {
  /** Aborted, with an InterruptedError as its reason, on the first signal. */
  readonly signal: AbortSignal;
  dispose(): void;
}

/** `then`: what the run does once the batch in flight is done (sync saves progress; audit lists what it did). */
export function watchInterrupt(notify: (line: string) => void, then = 'saving progress'): Interrupt {
  const controller = new AbortController();
  const onSignal = (sig: StopSignal): void => {
    if (controller.signal.aborted) process.exit(sig === 'SIGTERM' ? EXIT.TERMINATED : EXIT.INTERRUPTED);
    controller.abort(new InterruptedError(sig));
    notify(`${sig === 'SIGINT' ? 'Ctrl-C' : sig}: stopping after the batch in flight and ${then} (Ctrl-C again quits at once)`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
