/**
 * Standard output that cannot be written: `| head -c 20` closes the pipe (EPIPE), `> /dev/full`
 * has no space (ENOSPC). Node reports both as an 'error' event on the stream, which would end
 * the process with a stack trace. A closed pipe means the reader has what it wanted: output stops
 * quietly and the exit code stays the command's own. Any other failure loses output the user
 * asked for: one line on stderr and exit 1.
 */
import { EXIT } from '../model/errors.js';

let failed = false;

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOSPC') return 'no space left on the device (ENOSPC)';
  return error.code ?? error.message;
}

/** Installs the handlers once, before anything is written. */
export function guardStdio(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    if (!failed) process.stderr.write(`svc-sync: cannot write to standard output: ${describe(error)}\n`);
    failed = true;
  });
  // The error event may come after the command returned its code: the last word is here.
  process.on('exit', () => {
    if (failed) process.exitCode = Math.max(Number(process.exitCode ?? 0), EXIT.PARTIAL);
  });
  // Nowhere left to report a stderr failure: it must not crash the command either.
  process.stderr.on('error', () => undefined);
}

/** The exit code, raised to 1 when standard output could not be written. */
export function withStdioStatus(code: number): number {
  return failed ? Math.max(code, EXIT.PARTIAL) : code;
}
