/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal closed) during a run: the first asks the run to stop (no new batch, no new request,
 * a rate-limit wait ends at once) so it can save its progress and say how to resume; the second
 * exits at once, for a user who will not wait.
 */
import { InterruptedError, STOP_SIGNALS, exitOfSignal, signalName, type StopSignal } from '../model/errors.js';

interface Interrupt {
  /** Aborted, with an InterruptedError as its reason, on the first signal. */
  readonly signal: AbortSignal;
  dispose(): void;
}

/** `then`: what the run does once the batch in flight is done (sync saves progress; audit lists what it did). */
export function watchInterrupt(notify: (line: string) => void, then = 'saving progress'): Interrupt {
  const controller = new AbortController();
  const onSignal = (sig: StopSignal): void => {
    if (controller.signal.aborted) process.exit(exitOfSignal(sig));
    controller.abort(new InterruptedError(sig));
    notify(`${signalName(sig)}: stopping after the batch in flight and ${then} (Ctrl-C again quits at once)`);
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  return {
    signal: controller.signal,
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
    },
  };
}
