/**
 * Issue 47, rows 3, 5 and 6: what svc-sync trusts on disk is what only its owner can write. A
 * config file others can write is refused when it could send secrets elsewhere; the state folder
 * is 0700 with its files 0600, a shared one refused; a queue file serve cannot write stops the
 * start (exit 2) instead of answering 503 to every event with /healthz green.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { openQueue } from '../../src/webhook/queue/open.js';
import { ownedBy, runCliAs, runnerUser } from '../support/otherUser.js';
import { cli, removeDir, tempCwd, unstamp, writeCalls } from './helpers.js';

let stack: Stack;
let root: string;

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 0 } });
  root = tempCwd('owner-only');
});
afterAll(async () => {
  await stack.close();
  removeDir(root);
});

const mode = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);
const folder = (name: string, perm = 0o700): string => {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { mode: perm });
  fs.chmodSync(dir, perm);
  return dir;
};
const lines = (stderr: string): string[] => unstamp(stderr).trim().split('\n');

describe('row 5: a config file others can write', () => {
  const config = { SF_LOGIN_URL: 'https://login.salesforce.com', SVC_TIMEOUT_MS: 30000 };

  it.each([
    ['mode 0666', 0o700, 0o666],
    ['in a folder writable by all, no sticky bit', 0o777, 0o644],
  ])('%s, setting SF_LOGIN_URL with secrets in the environment: refused in one line, exit 2, nothing requested', async (_label, dirMode, fileMode) => {
    const cwd = folder(`config-${dirMode.toString(8)}-${fileMode.toString(8)}`, dirMode);
    const file = path.join(cwd, 'svc-sync.config.json');
    fs.writeFileSync(file, JSON.stringify(config));
    fs.chmodSync(file, fileMode);
    stack.platform.resetCounts();
    const res = await cli(stack, ['sync', '--all'], cwd);
    expect(res.code).toBe(2);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^svc-sync: config file ${file}: .*writable by other users .*and it sets SF_LOGIN_URL while SVC_API_KEY, SF_ACCESS_TOKEN are set: .*refused`)),
    ]);
    expect(stack.platform.requests.total).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(fs.existsSync(path.join(cwd, '.svc-sync'))).toBe(false);
  });

  it('owned by another user: refused the same way', async () => {
    const cwd = folder('config-foreign');
    const file = path.join(cwd, 'svc-sync.config.json');
    fs.writeFileSync(file, JSON.stringify(config));
    const other = runnerUser();
    // As root, `nobody` is the other user; as anyone else, root's files are trusted: not testable so.
    if (!other.other) return;
    fs.chownSync(file, other.uid, other.gid);
    const res = await cli(stack, ['sync', '--all'], cwd);
    expect(res.code).toBe(2);
    expect(lines(res.stderr)).toEqual([expect.stringMatching(/config file .*: owned by another user \(uid \d+\), and it sets SF_LOGIN_URL/)]);
  });

  it('writable by others but pointing nowhere: read, with one warning line naming the fix', async () => {
    const cwd = folder('config-warn');
    const file = path.join(cwd, 'svc-sync.config.json');
    fs.writeFileSync(file, JSON.stringify({ SVC_TIMEOUT_MS: 30000 }));
    fs.chmodSync(file, 0o666);
    const res = await cli(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(res.code).toBe(0);
    expect(lines(res.stderr).filter((l) => /config file/.test(l))).toEqual([
      `warning: config file ${file}: writable by other users (mode 0666): others could change what svc-sync does; chmod 600 ${file}, and keep it in a folder only its owner can write`,
    ]);
  });
});

describe('row 6: the state folder', () => {
  it('made 0700, with run.lock, state.json and the holder 0600', async () => {
    const cwd = folder('state-modes');
    const res = await cli(stack, ['sync', '--all'], cwd);
    expect(res.code).toBe(0);
    const state = path.join(cwd, '.svc-sync');
    expect(mode(state)).toBe('700');
    for (const name of fs.readdirSync(state)) expect({ name, mode: mode(path.join(state, name)) }).toEqual({ name, mode: '600' });
    expect(fs.readdirSync(state)).toEqual(expect.arrayContaining(['run.lock', 'state.json']));
  });

  it('a state folder others can write: refused before anything is written in it, exit 2, one line', async () => {
    const cwd = folder('state-shared');
    const state = path.join(cwd, '.svc-sync');
    fs.mkdirSync(state);
    fs.chmodSync(state, 0o777);
    const res = await cli(stack, ['sync', '--all'], cwd);
    expect(res.code).toBe(2);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^svc-sync: state folder .*\\.svc-sync: writable by other users \\(mode 0777\\): another user could plant files or symlinks in it`)),
    ]);
    expect(fs.readdirSync(state)).toEqual([]);
  });
});

describe('row 3: a queue file serve cannot write, its folder writable', () => {
  it('serve stops at start with exit 2 naming the file, as a read-only folder does', async () => {
    const runner = runnerUser();
    fs.chmodSync(root, 0o755);
    const data = ownedBy(runner, root, 'serve-data');
    const file = path.join(data, 'queue.db');
    // Made as the runner would have: the queue, then the folder and its files handed over.
    fs.chownSync(data, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
    await (await openQueue({ kind: 'sqlite', path: file }, { create: true })).close();
    for (const f of ['.', ...fs.readdirSync(data)]) fs.chownSync(path.join(data, f), runner.uid, runner.gid);
    fs.chmodSync(file, 0o444);
    const res = await runCliAs(runner, root, ['serve', '--host', '127.0.0.1', '--port', '0', '--queue', file], {
      cwd: data,
      env: { ...stack.env, SVC_WEBHOOK_SECRET: 'hook-secret-5f2a-0123' },
    });
    expect(res.code).toBe(2);
    expect(lines(res.stderr)).toEqual([
      `svc-sync: queue file ${file}: is read-only: the receiver must write to it (check the file's and its directory's permissions, and the mount) (attempt to write a readonly database)`,
    ]);
  });
});
