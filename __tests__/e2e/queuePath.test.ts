/**
 * `svc-sync queue` and `queue retry` pointed at a path that holds no queue (a typo in --queue or
 * SVC_QUEUE_PATH, an empty file): exit 2 and one line naming the path, never an empty queue's
 * counts, and nothing created or changed there. Nothing else is needed: no platform, no org.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../fixtures/cli.js';
import { removeDir, tempCwd, unstamp } from './helpers.js';

const cwd = tempCwd('queue-path');
afterAll(() => removeDir(cwd));

const COMMANDS = [['queue'], ['queue', 'retry']];

describe('a queue path with no queue', () => {
  it.each(COMMANDS)('`%s %s` on a missing file (--queue): exit 2 naming it; no file, no directory made', async (...command) => {
    const missing = path.join(cwd, 'typo', 'queue.db');
    const run = await runCli([...command, '--queue', missing], { cwd, env: {} });
    expect(run.code).toBe(2);
    expect(unstamp(run.stderr).trim()).toBe(`svc-sync: queue ${missing}: no such file (svc-sync serve creates it; check --queue or SVC_QUEUE_PATH)`);
    expect(run.stdout).toBe('');
    expect(fs.existsSync(path.join(cwd, 'typo'))).toBe(false);
  });

  it('`queue` on the default path in a folder where serve never ran: exit 2 naming it; no .svc-sync made', async () => {
    const dir = tempCwd('queue-default');
    try {
      const run = await runCli(['--json', 'queue'], { cwd: dir, env: {} });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('queue .svc-sync/queue.db: no such file (svc-sync serve creates it; check --queue or SVC_QUEUE_PATH)');
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      removeDir(dir);
    }
  });

  it('`queue` on a missing SVC_QUEUE_PATH: exit 2 naming it', async () => {
    const missing = path.join(cwd, 'queu.db');
    const run = await runCli(['queue'], { cwd, env: { SVC_QUEUE_PATH: missing } });
    expect(run.code).toBe(2);
    expect(unstamp(run.stderr).trim()).toBe(`svc-sync: queue ${missing}: no such file (svc-sync serve creates it; check --queue or SVC_QUEUE_PATH)`);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it.each(COMMANDS)('`%s %s` on an empty (0-byte) file: exit 2 saying so; the file stays empty, nothing beside it', async (...command) => {
    const dir = tempCwd('queue-empty');
    const empty = path.join(dir, 'queue.db');
    fs.writeFileSync(empty, '');
    try {
      const run = await runCli([...command, '--queue', empty], { cwd: dir, env: {} });
      expect(run.code).toBe(2);
      expect(unstamp(run.stderr).trim()).toBe(`svc-sync: queue ${empty}: an empty file (0 bytes), not an svc-sync queue (svc-sync serve makes it one; check --queue or SVC_QUEUE_PATH)`);
      expect(fs.statSync(empty).size).toBe(0);
      expect(fs.readdirSync(dir)).toEqual(['queue.db']);
    } finally {
      removeDir(dir);
    }
  });

  it('`serve` with a state folder that is a file: exit 2, the queue file named and what is wrong', async () => {
    const dir = tempCwd('queue-dir-file');
    fs.writeFileSync(path.join(dir, '.svc-sync'), 'not a folder\n');
    // Nothing listens on port 9 of the loopback: the platform's start check warns, nothing more.
    const env = {
      SVC_API_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'k-0123456789',
      SF_INSTANCE_URL: 'http://127.0.0.1:9',
      SF_ACCESS_TOKEN: 'tok-0123456789',
      SVC_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
    };
    try {
      const run = await runCli(['serve', '--port', '0'], { cwd: dir, env });
      expect(run.code).toBe(2);
      const last = unstamp(run.stderr).trim().split('\n').at(-1);
      expect(last).toMatch(/^svc-sync: queue file \.svc-sync\/queue\.db: cannot be created: its folder, or a folder above it, is a file \(EEXIST/);
      expect(fs.readFileSync(path.join(dir, '.svc-sync'), 'utf8')).toBe('not a folder\n');
    } finally {
      removeDir(dir);
    }
  });
});
