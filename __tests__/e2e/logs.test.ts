/**
 * Logs that explain: cron-mode (no terminal) stderr lines and every `serve` line carry an ISO 8601
 * UTC time; `--log-format json` / SVC_LOG_FORMAT=json gives one JSON object a line with time, level
 * and msg, secrets masked; a failed batch line says why, its reasons grouped.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { cliArgs } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
const SECRET = 'hook-secret-77b1e0';

let stack: Stack;
let cwd: string;
let child: ChildProcess | undefined;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 0 } });
  cwd = tempCwd('logs');
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await stack.close();
  removeDir(cwd);
});

/** A loopback port nothing listens on: connections to it are refused. */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface LogObject {
  time: string;
  level: string;
  msg: string;
}

describe('cron mode', () => {
  it('every stderr line of a run without a terminal starts with its UTC time', async () => {
    // A refused API key: the run ends with an error line on stderr.
    const res = await cli(stack, ['object', 'donation', '1'], cwd, undefined, { ...stack.env, SVC_API_KEY: `${stack.env.SVC_API_KEY!}-refused` });
    expect(res.code).not.toBe(0);
    const lines = res.stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(ISO);
  });

  it('--log-format json writes one object a line with time, level and msg, and no secret', async () => {
    const key = stack.env.SVC_API_KEY!;
    const res = await cli(stack, ['--log-format', 'json', 'object', 'donation', '1'], cwd, undefined, { ...stack.env, SVC_API_KEY: `${key}-refused` });
    expect(res.code).not.toBe(0);
    const lines = res.stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      const o = JSON.parse(l) as LogObject;
      expect(Object.keys(o)).toEqual(['time', 'level', 'msg']);
      expect(new Date(o.time).toISOString()).toBe(o.time);
      expect(o.msg.length).toBeGreaterThan(0);
    }
    expect(lines.some((l) => (JSON.parse(l) as LogObject).level === 'error')).toBe(true);
    expect(res.stderr).not.toContain(key);
  });

  it('an unknown log format is a usage error naming the setting', async () => {
    const res = await cli(stack, ['object', 'donation', '1'], cwd, undefined, { ...stack.env, SVC_LOG_FORMAT: 'xml' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('SVC_LOG_FORMAT "xml": must be text or json');
  });
});

describe('serve with SVC_LOG_FORMAT=json and the platform refusing connections', () => {
  it('logs JSON lines, and the failed batch gives its reason grouped', async () => {
    let stderr = '';
    const apiUrl = `http://127.0.0.1:${await refusedPort()}`;
    // Both events must land in one batch: a 5 s settle window holds it open for the second (with
    // --settle 0 a loaded machine could claim the first alone, and the line said x1).
    child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '5']), {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...stack.env, SVC_API_URL: apiUrl, SVC_WEBHOOK_SECRET: SECRET, SVC_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const msgs = (): LogObject[] =>
      stderr
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as LogObject);
    const base = await waitFor(
      () =>
        msgs()
          .map((o) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(o.msg)?.[1])
          .find(Boolean),
      WAIT_MS,
      'serve to listen',
    );
    const posted = await Promise.all(
      [1, 2].map((id) => {
        const event = { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
        return fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      }),
    );
    expect(posted.map((res) => res.status)).toEqual([200, 200]);
    const line = await waitFor(() => msgs().find((o) => o.msg.startsWith('webhook batch:') && o.msg.includes(' failed: ')), WAIT_MS, 'a failed batch line');
    expect(line.msg).toMatch(/; 2 failed: network error \(ECONNREFUSED\) x2$/);
    for (const o of msgs()) expect(new Date(o.time).toISOString()).toBe(o.time);
    expect(stderr).not.toContain(SECRET);
    expect(stderr).not.toContain(stack.env.SVC_API_KEY!);
    child.kill('SIGTERM');
  });
});
