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

/**
 * The watch of a run over several connections, while it lasts: it alone holds the process's
 * signal handlers, from before the first connection to after the last, so no moment between two
 * connections is left to Node's default (death without the --json document). A connection's own
 * watch, made meanwhile, is told of the signal by it.
 */
let loop: { signal: AbortSignal; inner: Set<(sig: StopSignal) => void> } | undefined;

/**
 * The second signal's promise, said only to a person at a terminal: under cron or a service
 * manager nobody can press Ctrl-C, and the hint would only puzzle the reader of the mail.
 */
const againHint = (): string => (process.stderr.isTTY === true ? ' (Ctrl-C again quits at once)' : '');

/** `then`: what the run does once the batch in flight is done (sync saves progress; audit lists what it did). */
export function watchInterrupt(notify: (line: string) => void, then = 'saving progress'): Interrupt {
  const controller = new AbortController();
  const stop = (sig: StopSignal): void => {
    controller.abort(new InterruptedError(sig));
    notify(`${signalName(sig)}: stopping after the batch in flight and ${then}${againHint()}`);
  };
  const outer = loop;
  if (outer !== undefined) {
    // A signal before this connection began stops it before its first request.
    if (outer.signal.aborted) controller.abort(outer.signal.reason);
    else outer.inner.add(stop);
    return { signal: controller.signal, dispose: () => void outer.inner.delete(stop) };
  }
  const onSignal = (sig: StopSignal): void => {
    if (controller.signal.aborted) process.exit(exitOfSignal(sig));
    stop(sig);
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  return {
    signal: controller.signal,
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
    },
  };
}

/** The watch of a run over several connections: which signal came first, if one did. */
interface ConnectionsWatch {
  readonly stoppedBy: StopSignal | undefined;
  dispose(): void;
}

/**
 * One watch for a whole run over several connections. The first signal stops the connection in
 * flight as its own watch says (or, between two connections, is announced here); the loop starts
 * no connection after it. The second exits at once, as in a run of one.
 */
export function watchConnections(notify: (line: string) => void): ConnectionsWatch {
  const controller = new AbortController();
  const inner = new Set<(sig: StopSignal) => void>();
  let first: StopSignal | undefined;
  const onSignal = (sig: StopSignal): void => {
    if (first !== undefined) process.exit(exitOfSignal(sig));
    first = sig;
    controller.abort(new InterruptedError(sig));
    if (inner.size > 0) for (const stop of inner) stop(sig);
    else notify(`${signalName(sig)}: stopping after this connection; the ones after it do not start${againHint()}`);
  };
  loop = { signal: controller.signal, inner };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  return {
    get stoppedBy() {
      return first;
    },
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
      loop = undefined;
    },
  };
}

/**
 * After a run's work, while it writes its record to the org (network I/O): a first signal is
 * announced and the record finished, so the run ends with its document and the exit its work
 * earned (nothing is left to do); a second exits at once. In a run over several connections the
 * loop's watch covers this moment already.
 */
export function watchFinish(notify: (line: string) => void): Pick<Interrupt, 'dispose'> {
  if (loop !== undefined) return { dispose: () => undefined };
  let first = false;
  const onSignal = (sig: StopSignal): void => {
    if (first) process.exit(exitOfSignal(sig));
    first = true;
    notify(`${signalName(sig)}: the run's work is done; writing its record to the org first${againHint()}`);
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  return { dispose: () => STOP_SIGNALS.forEach((sig) => process.off(sig, onSignal)) };
}
