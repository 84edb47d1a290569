/**
 * Ends a test's child processes and waits until each is gone and its pipes are closed. A child
 * killed and left (`kill()` returns at once) keeps its stdout/stderr pipes open in the jest worker
 * until it has exited: a worker that finishes its last file with such a pipe is "a worker process
 * that has failed to exit gracefully", force exited by jest. Bounded: a child that outlives
 * `timeoutMs` is reported, never waited on forever.
 */
import type { ChildProcess } from 'node:child_process';

const closed = (c: ChildProcess): boolean => c.stdio.every((s) => s === null || s === undefined || s.closed || s.destroyed);

export async function reap(children: readonly ChildProcess[], signal: NodeJS.Signals = 'SIGKILL', timeoutMs = 10_000): Promise<void> {
  const waits = children.map((c) => {
    const running = c.exitCode === null && c.signalCode === null;
    if (!running && closed(c)) return Promise.resolve();
    const gone = new Promise<void>((resolve) => c.once('close', () => resolve()));
    if (running) c.kill(signal);
    return gone;
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`child process(es) still open ${timeoutMs} ms after ${signal}: ${children.map((c) => c.pid).join(', ')}`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.all(waits), late]);
  } finally {
    clearTimeout(timer);
  }
}
