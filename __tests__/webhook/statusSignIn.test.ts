/**
 * The status page's sign-in under a guesser and behind a proxy (issue 28 rows 7 and 8): wrong
 * tokens are limited per client address (then 429 with Retry-After, whatever is sent, the right
 * token too), logged as one line and then one summing line a window; the session cookie is Secure
 * when the first entry of X-Forwarded-Proto says https, in any case. Real HTTP on 127.0.0.1.
 */
import { afterEach, expect, test } from '@jest/globals';
import http from 'node:http';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { startReceiver } from '../../src/webhook/receiver/server.js';
import { clientKey, type SignInLimitOptions } from '../../src/webhook/receiver/signInLimit.js';
import { statusRoute } from '../../src/webhook/status/statusRoute.js';
import { eventually, pool, postForm, request, tempQueue, type Reply, type TempDir } from './helpers.js';

const TOKEN = 'status-admin-token-0123456789abcdef';
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function statusServer(signIn: SignInLimitOptions = {}): Promise<{ url: string; log: string[] }> {
  const tmp: TempDir = tempQueue();
  const queue = new SqliteQueue(tmp.db);
  const log: string[] = [];
  const status = statusRoute({ token: TOKEN, queue, worker: () => ({ state: 'idle', recent: [] }), budget: () => undefined, log: (l) => log.push(l), signIn });
  const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, status, log: (l) => log.push(l) });
  cleanups.push(async () => {
    await receiver.close();
    await queue.close();
    tmp.cleanup();
  });
  return { url: receiver.url, log };
}

const signIn = (url: string, token: string, headers: Record<string, string> = {}): Promise<Reply> => postForm(`${url}/status/login`, { token }, headers);
const statuses = (replies: Reply[]): Record<number, number> => replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

test('300 wrong sign-ins from one address: 10 answered 401, the rest 429 with Retry-After, one log line', async () => {
  // The window's clock stands still: the count does not depend on how fast this machine is.
  const { url, log } = await statusServer({ now: () => 1_000_000 });
  const replies = await pool(
    Array.from({ length: 300 }, (_, i) => () => signIn(url, `wrong-token-${i}-0123456789`)),
    20,
  );
  expect(statuses(replies)).toEqual({ 401: 10, 429: 290 });
  for (const r of replies.filter((x) => x.status === 429)) {
    expect(r.headers['retry-after']).toBe('60');
    expect(r.body).toContain('Too many wrong tokens from this address: try again in 60 s.');
  }
  // While the address waits, the right token is not even compared; a bearer waits too.
  expect((await signIn(url, TOKEN)).status).toBe(429);
  expect((await request(`${url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(429);
  expect(log).toEqual(['status: wrong admin token from 127.0.0.1 (POST /status/login); more in the next 60 s are summed up in one line']);
  // Another address is not held back by this one's guesses.
  const other = new http.Agent({ localAddress: '127.0.0.2' });
  try {
    expect((await request(`${url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${TOKEN}` }, agent: other })).status).toBe(200);
  } finally {
    other.destroy();
  }
});

test('wrong bearer tokens count as sign-ins; the rest of a window is summed up in one line, and the address may try again after it', async () => {
  const clock = { t: 5_000_000 };
  const { url, log } = await statusServer({ now: () => clock.t, windowMs: 300 });
  const bearer = (token: string): Promise<Reply> => request(`${url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${token}` } });
  const replies: Reply[] = [];
  for (let i = 0; i < 6; i++) replies.push(await bearer(`wrong-bearer-${i}-0123456789`));
  for (let i = 0; i < 6; i++) replies.push(await signIn(url, `wrong-form-${i}-0123456789`));
  expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429, 429]);
  expect(log[0]).toBe('status: wrong admin token from 127.0.0.1 (GET /status with a bearer token); more in the next 0.3 s are summed up in one line');
  // The summing line comes when the window ends (a timer): 9 more wrong tokens, 2 answered 429.
  const summed = (): { wrong: number; refused: number } =>
    log
      .map((l) => /^status: in the last 0\.3 s, (\d+) more wrong admin tokens and (\d+) sign-ins answered 429 \(too many\), from 127\.0\.0\.1 \d+$/.exec(l))
      .reduce((s, m) => (m ? { wrong: s.wrong + Number(m[1]), refused: s.refused + Number(m[2]) } : s), { wrong: 0, refused: 0 });
  await eventually(() => summed().wrong === 9 && summed().refused === 2, 'the summing line');
  expect(log.filter((l) => l.startsWith('status: wrong admin token')).length).toBe(1);
  clock.t += 300;
  const after = await signIn(url, TOKEN);
  expect(after.status).toBe(303);
  expect(after.headers['set-cookie']?.[0]).toMatch(/^svc_admin=/);
});

test.each([
  ['https,http', true],
  ['HTTPS', true],
  [' https , http', true],
  ['http, https', false],
  ['http', false],
  [undefined, false],
])('X-Forwarded-Proto %j: the session cookie is Secure: %s', async (proto, secure) => {
  const { url } = await statusServer();
  const reply = await signIn(url, TOKEN, proto === undefined ? {} : { 'X-Forwarded-Proto': proto });
  expect(reply.status).toBe(303);
  expect(/; Secure(;|$)/.test(reply.headers['set-cookie']?.[0] ?? '')).toBe(secure);
});

test('X-Forwarded-Host: the first entry, in any case, is the host the browser saw', async () => {
  const { url } = await statusServer();
  const form = { Authorization: `Bearer ${TOKEN}`, Origin: 'https://status.example.com' };
  expect((await request(`${url}/status/retry`, { headers: { ...form, 'X-Forwarded-Host': 'Status.Example.com, proxy.internal' }, body: '' })).status).toBe(303);
  expect((await request(`${url}/status/retry`, { headers: { ...form, 'X-Forwarded-Host': 'proxy.internal, status.example.com' }, body: '' })).status).toBe(403);
});

test('an address counts by itself (IPv4, IPv4-mapped) or by its /64 (IPv6)', () => {
  expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
  expect(clientKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
  expect(clientKey('2001:db8:0:1:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
  expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(clientKey('::1')).toBe('0:0:0:0::/64');
  expect(clientKey(undefined)).toBe('?');
});

test('the same class at the webhook: 100 wrong secrets are all answered 401 (the platform may share the address), logged as one line', async () => {
  const tmp: TempDir = tempQueue();
  const queue = new SqliteQueue(tmp.db);
  const log: string[] = [];
  const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, secret: 'hook-secret-0123456789', log: (l) => log.push(l) });
  cleanups.push(async () => {
    await receiver.close();
    await queue.close();
    tmp.cleanup();
  });
  const replies = await pool(
    Array.from({ length: 100 }, (_, i) => () => request(`${receiver.url}/webhooks/guess-${i}`, { headers: { 'Content-Type': 'application/json' }, body: '{}' })),
    10,
  );
  expect(statuses(replies)).toEqual({ 401: 100 });
  expect(log).toEqual(['webhook 401: missing or wrong webhook secret from 127.0.0.1 (POST); more in the next 60 s are summed up in one line']);
});
