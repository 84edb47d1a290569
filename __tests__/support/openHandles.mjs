// What a test file leaves running in its jest worker. A worker exits on its own once its last file
// is done only if nothing ref'd is left in its event loop; else jest force exits it ("A worker
// process has failed to exit gracefully ... tests leaking due to improper teardown"), a warning that
// names no file and comes only when the leaking file was a worker's last. The test environment
// (tempFolderEnvironment.mjs) counts the live resources as each file starts and again when it
// ends, so the file that leaks fails, whichever worker ran it and in whatever order.
import { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a file's last handles may take to close after its teardown: a leak never does. */
const GRACE_MS = 2000;
const POLL_MS = 25;

/**
 * Ref'd handles, pending requests and ref'd timers, counted by kind (TCPSocketWrap, ProcessWrap,
 * Timeout...): Node's own list of what keeps the event loop alive. Unref'd ones are not in it.
 */
export function liveResources() {
  // The worker's stdio streams, made on first use, are listed but do not keep it alive (stdin is
  // made paused; jest's ESM loader makes it for any file that imports node:process): made here,
  // they are in the count a file starts from.
  void process.stdin;
  void process.stdout;
  void process.stderr;
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

function extra(before, now) {
  const more = [];
  for (const [kind, n] of now) {
    const added = n - (before.get(kind) ?? 0);
    if (added > 0) more.push(`${added} ${kind}`);
  }
  return more;
}

/** The handles' owners Node can name (a child's command, a server's or a socket's address, a pipe). */
function owners() {
  // Node's own list of handle owners; not a public API, so read defensively.
  const get = process._getActiveHandles;
  const handles = typeof get === 'function' ? get.call(process) : [];
  const stdio = [process.stdin, process.stdout, process.stderr];
  const named = [];
  for (const h of handles) {
    if (stdio.includes(h)) continue;
    if (h instanceof ChildProcess) named.push(`child ${h.pid} (${h.spawnargs.join(' ').slice(0, 120)})`);
    else if (h instanceof net.Server) named.push(`server ${JSON.stringify(h.address())}`);
    else if (h instanceof net.Socket) {
      named.push(h.remotePort === undefined ? 'a pipe' : `socket ${h.localAddress}:${h.localPort} -> ${h.remoteAddress}:${h.remotePort}`);
    }
  }
  return named;
}

/**
 * Undefined once the live resources are back to `before` (waiting up to GRACE_MS for closes under
 * way), else a line naming what is still held open beyond it.
 */
export async function heldOpen(before) {
  const until = Date.now() + GRACE_MS;
  for (;;) {
    const more = extra(before, liveResources());
    if (more.length === 0) return undefined;
    if (Date.now() >= until) {
      const named = owners();
      return `${more.join(', ')} still open${named.length > 0 ? ` (among the worker's handles: ${named.join('; ')})` : ''}`;
    }
    await sleep(POLL_MS);
  }
}
