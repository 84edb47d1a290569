/**
 * On a Node older than the floor in package.json's `engines`, every command says in one line what
 * is needed (exit 2), never a stack trace from a package that cannot load there. The floor is
 * checked by bin/svc-sync.js before it imports anything.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const BIN = path.join(packageRoot(), 'bin', 'svc-sync.js');
const FLOOR = /^>=(\d+)\.(\d+)$/.exec((JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node);
const LINE = /^svc-sync needs Node\.js 22\.19\+ \(this is \d+\.\d+\.\d+\): get it at https:\/\/nodejs\.org\n$/;

/** Runs the CLI on `node` (with `nodeArgs` before the script). */
function run(node: string, nodeArgs: string[], args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(node, [...nodeArgs, BIN, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A Node older than the floor installed on this machine (the system's), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return candidate;
  }
  return undefined;
}

describe('the Node floor', () => {
  it('is 22.19 in engines, as the shim checks it', () => {
    expect(FLOOR?.slice(1)).toEqual(['22', '19']);
  });

  it.each([['20.19.0'], ['22.18.0'], ['18.20.8']])('on Node %s every command says what is needed, exit 2', (version) => {
    // This Node, reporting an older version before the shim runs.
    const claim = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;
    for (const args of [['--version'], ['--help'], ['sync', '--all'], ['serve'], ['queue', '--json']]) {
      const r = run(process.execPath, ['--import', claim], args);
      expect({ args, status: r.status, stdout: r.stdout }).toEqual({ args, status: 2, stdout: '' });
      expect(r.stderr.replace(version, '20.19.0')).toMatch(LINE);
    }
  });

  it('this Node (at or above the floor) runs the CLI', () => {
    const r = run(process.execPath, [], ['--version']);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  const older = olderNode();
  (older === undefined ? it.skip : it)(`the machine's own older Node (${older ?? 'none found'}) gets the line, no stack trace`, () => {
    for (const args of [['--version'], ['sync', '--all'], ['doctor']]) {
      const r = run(older as string, [], args);
      expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: '' });
      expect(r.stderr).toMatch(LINE);
    }
  });
});
