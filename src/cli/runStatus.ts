/**
 * The exit codes of the long runs, as pure functions of what happened (README "Exit codes"): the
 * commands gather the facts, these decide, and the tests can ask them directly.
 */
import { EXIT, InterruptedError, exitCodeOf, isOrgSetup, type ExitCode } from '../model/errors.js';

const worst = (...codes: ExitCode[]): ExitCode => Math.max(...codes) as ExitCode;

/** sync, object and replay. */
export function engineRunStatus(r: {
  /** What ended the run early, if anything (a signal's InterruptedError, or an error). */
  stopped: unknown;
  /** Records written (created, updated or deleted) before it ended. */
  written: number;
  failed: number;
  /** What else leaves the command short of what was asked (replay's bad lines), if anything. */
  shortfall: string | undefined;
  /** `object`: the one record asked for is not on the platform (a 404). */
  notFound?: boolean;
}): ExitCode {
  const short = r.shortfall === undefined ? EXIT.OK : EXIT.PARTIAL;
  // Its own code only when nothing else went wrong: a failure or a stop says more.
  if (r.stopped === undefined && r.notFound && r.failed === 0 && short === EXIT.OK) return EXIT.NOT_FOUND;
  if (r.stopped === undefined) return worst(short, r.failed > 0 || r.notFound ? EXIT.PARTIAL : EXIT.OK);
  if (r.stopped instanceof InterruptedError) return worst(short, exitCodeOf(r.stopped));
  // The org refuses every write of an object (doctor confirmed it), or a read names a field the
  // org lacks: a configuration problem, whatever other objects the run wrote before it.
  if (isOrgSetup(r.stopped)) return EXIT.USAGE;
  // Exit 2 promises "nothing written": once something was, a stop is a partial run.
  return worst(short, r.written > 0 ? EXIT.PARTIAL : worst(exitCodeOf(r.stopped), EXIT.PARTIAL));
}

/** audit: 0 only for a mirror found exact (or made exact by --fix / --delete-orphans). */
export function auditRunStatus(r: {
  stopped: unknown;
  /** Drift left open: all of it without --fix, what the fixes did not close with it. */
  open: number;
  /** A fix or a deletion failed. */
  failed: boolean;
  /** Records the audit could not judge. */
  problems: number;
}): ExitCode {
  if (r.stopped !== undefined) return exitCodeOf(r.stopped);
  return r.open > 0 || r.failed || r.problems > 0 ? EXIT.PARTIAL : EXIT.OK;
}
