/**
 * Slow-loris: stalled clients hold connections. The receiver must stay available to real senders
 * (events answered, /healthz answered), keep its open connections capped, and close a stalled
 * connection near its headers timeout, not up to 30 s later.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import net from 'node:net';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { donationEvent, eventually, postJson, request, tempQueue, type TempDir } from './helpers.js';

const CAP = 16;
const STALLED = 120;

let tmp: TempDir;
let queue: SqliteQueue;
let receiver: Receiver;
const stalled: net.Socket[] = [];

/** A client that sends half a request and then nothing. */
function stall(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /webhooks HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\n');
      resolve(socket);
    });
    // Read what the server sends (its 408, its FIN), or the end of the connection goes unseen.
    socket.resume();
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  tmp = tempQueue();
  queue = new SqliteQueue(tmp.db);
  receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, maxConnections: CAP, headersTimeoutMs: 1_500, requestTimeoutMs: 3_000 });
});

afterAll(async () => {
  for (const s of stalled) s.destroy();
  await receiver.close();
  await queue.close();
  tmp.cleanup();
});

it('keeps answering real events and /healthz while stalled clients pile up, with connections capped', async () => {
  for (let i = 0; i < STALLED; i++) stalled.push(await stall(receiver.port));
  const open = await new Promise<number>((resolve, reject) => receiver.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
  expect(open).toBeLessThanOrEqual(CAP);

  for (let i = 0; i < 10; i++) {
    // Each real event arrives while the stalled clients keep coming.
    stalled.push(await stall(receiver.port));
    const r = await postJson(`${receiver.url}/webhooks`, donationEvent(1000 + i));
    expect(r.status).toBe(200);
  }
  const health = await request(`${receiver.url}/healthz`, { method: 'GET' });
  expect(health.status).toBe(200);
  const body = JSON.parse(health.body) as { queue: { pending: number }; connections: { open: number; evicted: number } };
  expect(body.queue.pending).toBe(10);
  expect(body.connections.evicted).toBeGreaterThan(0);
  expect(body.connections.open).toBeLessThanOrEqual(CAP);
});

it('closes a stalled connection soon after its headers timeout', async () => {
  const socket = await stall(receiver.port);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let done = false;
  void closed.then(() => (done = true));
  // Node's default sweep ran every 30 s, so a 1.5 s headers timeout held the client ~30 s.
  await eventually(() => done, 'the stalled connection to be closed', 8_000);
});
