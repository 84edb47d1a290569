/**
 * How a stop (Ctrl-C, SIGTERM) reaches the platform requests already sent: they may
 * finish for a few seconds more, as Salesforce's writes may (crm/connection.ts), so the pages a
 * scan asked for ahead are kept and saved, and a resume does not ask for them again. No request
 * starts after the stop (http.ts refuses it); a stalled one is abandoned once the grace is over.
 */

/** How long after a stop the requests in flight may still take. */
const STOP_GRACE_MS = 5_000;

/** A signal aborted STOP_GRACE_MS after `stop`, with its reason; undefined without a stop. */
export function stopGrace(stop: AbortSignal | undefined, graceMs = STOP_GRACE_MS): AbortSignal | undefined {
  if (stop === undefined) return undefined;
  const controller = new AbortController();
  const arm = (): void => {
    // Unref'd: a run whose requests are all done exits without waiting out the grace.
    setTimeout(() => controller.abort(stop.reason), graceMs).unref();
  };
  if (stop.aborted) arm();
  else stop.addEventListener('abort', arm, { once: true });
  return controller.signal;
}
