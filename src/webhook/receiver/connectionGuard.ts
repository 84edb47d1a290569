/**
 * Keeps the receiver reachable while slow or stalled clients hold connections (slow-loris).
 * Timeouts alone do not do it: each stalled connection lives until its timeout, and enough of
 * them exhaust the file descriptors, after which nobody, /healthz included, gets in. So the
 * connections are capped, and when a new one arrives at the cap the oldest connection that is
 * not serving a request (still sending its headers, or idle between keep-alive requests) is
 * closed to make room. A real sender sends its request within milliseconds of connecting and so
 * is never the oldest waiting one; a stalled one soon is.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

interface ConnectionGuardStats {
  open: number;
  /** Connections closed to make room for new ones since the start. */
  evicted: number;
  /** New connections refused because every open one was serving a request. */
  refused: number;
}

interface ConnectionGuard {
  stats(): ConnectionGuardStats;
}

export function guardConnections(server: http.Server, maxConnections: number, log: (line: string) => void): ConnectionGuard {
  // Insertion order = how long a connection has been waiting: Map iteration finds the oldest first.
  const sockets = new Map<Socket, { busy: boolean }>();
  let evicted = 0;
  let refused = 0;
  let lastLogged = 0;

  const note = (): void => {
    // One line per burst, not per connection: an attack must not flood the log either.
    const now = Date.now();
    if (now - lastLogged < 60_000) return;
    lastLogged = now;
    log(`webhook receiver: ${maxConnections} connections open; closing the longest-waiting ones to admit new ones (${evicted} closed, ${refused} refused so far)`);
  };

  const waiting = (socket: Socket): void => {
    if (!sockets.has(socket)) return;
    sockets.delete(socket);
    sockets.set(socket, { busy: false });
  };

  server.on('connection', (socket: Socket) => {
    if (sockets.size >= maxConnections) {
      let oldest: Socket | undefined;
      for (const [s, state] of sockets) {
        if (!state.busy) {
          oldest = s;
          break;
        }
      }
      if (oldest === undefined) {
        refused++;
        note();
        socket.destroy();
        return;
      }
      sockets.delete(oldest);
      oldest.destroy();
      evicted++;
      note();
    }
    sockets.set(socket, { busy: false });
    socket.once('close', () => sockets.delete(socket));
  });

  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const state = sockets.get(socket);
    if (state !== undefined) state.busy = true;
    // Back to waiting once answered: an idle keep-alive connection may make room like a stalled one.
    res.once('finish', () => waiting(socket));
    res.once('close', () => waiting(socket));
  });

  return { stats: () => ({ open: sockets.size, evicted, refused }) };
}
