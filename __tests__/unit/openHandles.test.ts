/**
 * The check the test environment runs after each file (support/openHandles.mjs): what a file leaves
 * open in its worker is named; what it closed, what is unref'd and the worker's stdio are not.
 */
import { expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { heldOpen, liveResources } from '../support/openHandles.mjs';
import { reap } from '../support/reap.js';

const listening = async (server: net.Server): Promise<void> => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const closed = async (server: net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

it('names a server and a child left open, and nothing once they are closed', async () => {
  const before = liveResources();
  const server = net.createServer();
  await listening(server);
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    const held = await heldOpen(before);
    expect(held).toMatch(/1 TCPServerWrap/);
    expect(held).toMatch(/1 ProcessWrap/);
    expect(held).toContain(`server {"address":"127.0.0.1"`);
    expect(held).toContain(`child ${child.pid} (${process.execPath} -e`);
  } finally {
    await closed(server);
    await reap([child]);
  }
  expect(await heldOpen(before)).toBeUndefined();
}, 30_000);

it('counts neither an unref’d server or timer nor the stdio streams', async () => {
  const before = liveResources();
  const server = net.createServer();
  await listening(server);
  server.unref();
  const timer = setTimeout(() => undefined, 60_000).unref();
  void process.stdin;
  try {
    expect(await heldOpen(before)).toBeUndefined();
  } finally {
    clearTimeout(timer);
    await closed(server);
  }
});

it('names a ref’d timer still pending', async () => {
  const before = liveResources();
  const timer = setTimeout(() => undefined, 60_000);
  try {
    expect(await heldOpen(before)).toMatch(/1 Timeout still open/);
  } finally {
    clearTimeout(timer);
  }
});
