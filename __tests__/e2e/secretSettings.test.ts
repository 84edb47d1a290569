/**
 * Secrets of any size and shape as the built CLI meets them (issue 28 rows 6 and 13): a token as
 * long as a pasted file, or one of white space, emoji or an invisible character, stops `queue`
 * and `serve` at start with exit 2 and one line naming the setting, never its value, never
 * another secret, never a page silently off. Nothing is reached: the settings stop it first. A
 * webhook secret short enough to guess stops `serve` the same way.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, runCli } from '../../fixtures/cli.js';
import { removeDir, tempCwd, unstamp, waitFor } from './helpers.js';

const cwd = tempCwd('secrets');
afterAll(() => removeDir(cwd));

const API_KEY = 'platform-key-7d1c0e9a';
const ACCESS_TOKEN = '00Dxx0000001gPL!AQ4AQFo7d1c0e9a';
/** Addresses nothing listens on: the settings must stop the command before any is used. */
const ENV = { SVC_API_URL: 'http://127.0.0.1:9', SVC_API_KEY: API_KEY, SF_INSTANCE_URL: 'http://127.0.0.1:9', SF_ACCESS_TOKEN: ACCESS_TOKEN };
const HUGE = 'Ab3-ä'.repeat(4_000);

describe('a secret longer than any real one', () => {
  it.each([['queue'], ['serve']])('`%s` with a 20,000-character SVC_ADMIN_TOKEN: exit 2 naming the setting, no secret in the output', async (command) => {
    const run = await runCli([command, '--queue', `${cwd}/q.db`], { cwd, env: { ...ENV, SVC_ADMIN_TOKEN: HUGE } });
    expect(run.code).toBe(2);
    expect(unstamp(run.stderr).trim()).toBe('svc-sync: SVC_ADMIN_TOKEN: 20000 characters, more than any real value (at most 4096); set it again (a whole file pasted?)');
    for (const secret of [HUGE.slice(0, 20), API_KEY, ACCESS_TOKEN]) expect(run.stdout + run.stderr).not.toContain(secret);
  });
});

describe('an admin token that is not one', () => {
  it.each([
    ['white space only', '    ', 'is only white space'],
    ['8 emoji', '🔑🔑🔑🔑🔑🔑🔑🔑', 'contains a character that is not visible ASCII (U+1F511)'],
    ['a zero-width space', '0123456789abcdef\u200b', 'contains an invisible character (U+200B'],
  ])('`serve` with a token of %s: exit 2 naming SVC_ADMIN_TOKEN, not started', async (_what, token, why) => {
    const run = await runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--queue', `${cwd}/q.db`], { cwd, env: { ...ENV, SVC_ADMIN_TOKEN: token } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`svc-sync: SVC_ADMIN_TOKEN: ${why}`);
    expect(run.stderr).not.toContain('listening');
  });
});

describe('a webhook secret short enough to guess', () => {
  it.each([
    ['3', 'q7Z'],
    ['15', 'Zq7-hook-x1y2z3'],
  ])('`serve` with a %s-character SVC_WEBHOOK_SECRET: exit 2 naming the setting and the rule, never the secret; no queue, no port', async (length, secret) => {
    const queue = `${cwd}/short-${length}.db`;
    const run = await runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--queue', queue], { cwd, env: { ...ENV, SVC_WEBHOOK_SECRET: secret } });
    expect(run.code).toBe(2);
    expect(unstamp(run.stderr).trim()).toBe(`svc-sync: SVC_WEBHOOK_SECRET: ${length} characters; at least 16 are needed (generate one: openssl rand -hex 24)`);
    for (const part of [secret, secret.slice(0, 3), secret.slice(-3)]) expect(run.stdout + run.stderr).not.toContain(part);
    expect(run.stderr).not.toContain('listening');
    expect(fs.existsSync(queue)).toBe(false);
  });

  it('with several connections, the one whose secret is short is named; nothing starts', async () => {
    const dir = tempCwd('secrets-connections');
    const site = (id: string, port: number, hook: string): Record<string, unknown> => ({
      SVC_API_URL: `http://127.0.0.1:${port}`,
      SVC_SITE_ID: id,
      SF_INSTANCE_URL: `http://127.0.0.1:${port}`,
      SVC_WEBHOOK_SECRET: { env: hook },
    });
    const config = { SVC_API_KEY: API_KEY, SF_ACCESS_TOKEN: ACCESS_TOKEN, connections: { north: site('6', 9, 'NORTH_HOOK'), south: site('7', 10, 'SOUTH_HOOK') } };
    fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify(config), { mode: 0o600 });
    const hooks = { NORTH_HOOK: 'north-hook-0123456789', SOUTH_HOOK: 'k3Y-south' };
    try {
      const run = await runCli(['serve', '--host', '127.0.0.1', '--port', '0'], { cwd: dir, env: hooks });
      expect(run.code).toBe(2);
      expect(unstamp(run.stderr).trim()).toBe('svc-sync: connection south: SVC_WEBHOOK_SECRET: 9 characters; at least 16 are needed (generate one: openssl rand -hex 24)');
      for (const secret of [...Object.values(hooks), API_KEY, ACCESS_TOKEN]) expect(run.stdout + run.stderr).not.toContain(secret);
      expect(fs.existsSync(path.join(dir, '.svc-sync', 'queue.db'))).toBe(false);
    } finally {
      removeDir(dir);
    }
  });
});

describe('no webhook secret, listening beyond this machine', () => {
  it('`serve` on the default --host 0.0.0.0 with no SVC_WEBHOOK_SECRET refuses to start: exit 2, one line, no queue, no port', async () => {
    const queue = `${cwd}/unsigned.db`;
    const run = await runCli(['serve', '--port', '0', '--queue', queue], { cwd, env: ENV });
    expect(run.code).toBe(2);
    const lines = unstamp(run.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc-sync: no SVC_WEBHOOK_SECRET, and --host 0\.0\.0\.0 listens beyond this machine: .*--public-without-secret/);
    expect(run.stderr).not.toContain('listening');
    expect(fs.existsSync(queue)).toBe(false);
  });

  it.each([
    ['the flag', ['--public-without-secret'], {}],
    ['the setting', [], { SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET: 'true' }],
  ])(
    'told so by %s, it starts and says the secret is not set',
    async (_how, flag, env) => {
      const dir = tempCwd('unsigned-public');
      const child = spawn(process.execPath, cliArgs(['serve', '--port', '0', '--settle', '0', ...flag]), {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ...ENV, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        await waitFor(() => (/listening on http:\/\/0\.0\.0\.0:\d+\/webhooks \(secret not set;/.test(stderr) ? true : undefined), 15_000, 'serve to listen');
        child.kill('SIGTERM');
        expect(await exited).toBe(143);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        removeDir(dir);
      }
    },
    30_000,
  );
});
