/**
 * Issue 50: `npm run demo`, `stack`, `test` and `build` on a Node older than the floor say so in
 * one line (exit 2) before anything is built, on the machine's own older Node and its npm. They
 * run in a folder holding only package.json and scripts/: without the check, the build would start.
 */
import { afterAll, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const ROOT = packageRoot();
/** The machine's own Node 20 (issue 50: /usr/bin/node or /usr/local/bin/node), with its npm. */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => fs.existsSync(p) && fs.existsSync(path.join(path.dirname(p), 'npm')));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-node-check-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
fs.cpSync(path.join(ROOT, 'scripts'), path.join(dir, 'scripts'), { recursive: true });

it('the machine has an older Node with its npm to try (the case the check is for)', () => {
  expect(OLD_NODE).toBeDefined();
  const version = spawnSync(OLD_NODE!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  expect(Number(version.split('.')[0])).toBeLessThan(22);
});

it.each([['demo'], ['stack'], ['test'], ['build']])('npm run %s on the older Node: one line naming the floor and how to get it without root, exit 2', (script) => {
  const bin = path.dirname(OLD_NODE!);
  const run = spawnSync(path.join(bin, 'npm'), ['run', '--silent', script], { cwd: dir, encoding: 'utf8', env: { PATH: `${bin}:/bin`, HOME: dir }, timeout: 60_000 });
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
  expect(run.stderr).toMatch(/^svc-sync needs Node\.js 22\.19\+ \(this is 20\.\d+\.\d+\): without root, export PATH="\$\(bash scripts\/node-from-registry\.sh 22\):\$PATH" and run it again\n$/);
  expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
});

it('this Node (at or above the floor) passes the check silently', () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'check-node.cjs')], { encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
});
