/**
 * A command that reads records runs with V8's young generation capped (--max-semi-space-size):
 * bin/svc-sync.js starts itself again once, in the same process (execve), before the bundle loads.
 * Other commands start as they are, and a size the user chose is kept. A preload (--import) writes
 * the process's final flags and pid at exit: the image that ran the command.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const BIN = path.join(packageRoot(), 'bin', 'svc-sync.js');

interface Ran {
  status: number | null;
  /** The flags node ran the command with, and whether it was the process spawned (same pid). */
  execArgv: string[];
  samePid: boolean;
  /** MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ as the command saw them. */
  malloc?: string;
}

function run(nodeArgs: string[], args: string[], nodeOptions = '', env: Record<string, string> = {}): Ran {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-young-'));
  try {
    const preload = path.join(dir, 'flags.mjs');
    const out = path.join(dir, 'flags.json');
    writeFileSync(
      preload,
      `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify({ execArgv: process.execArgv, pid: process.pid, malloc: [process.env.MALLOC_ARENA_MAX, process.env.MALLOC_MMAP_THRESHOLD_].join(' ').trim() || undefined })));\n`,
    );
    const r = spawnSync(process.execPath, [...nodeArgs, '--import', preload, BIN, ...args], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', HOME: dir, NODE_OPTIONS: nodeOptions, ...env },
      cwd: dir,
    });
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { execArgv: string[]; pid: number; malloc?: string };
    const ran: Ran = { status: r.status, execArgv: seen.execArgv.filter((a) => a !== '--import' && !a.endsWith('flags.mjs')), samePid: seen.pid === r.pid };
    return seen.malloc === undefined ? ran : { ...ran, malloc: seen.malloc };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the young generation cap of commands that read records', () => {
  // An unknown option: the command's own start (its exit 2 is commander's), nothing read or written.
  it.each([['sync'], ['audit'], ['replay'], ['serve']])('%s runs with --max-semi-space-size=4, in the process started', (command) => {
    expect(run([], [command, '--no-such-option'])).toEqual({ status: 2, execArgv: ['--max-semi-space-size=4'], samePid: true, malloc: '2 131072' });
  });

  it('keeps the flags node was started with', () => {
    expect(run(['--no-warnings'], ['sync', '--no-such-option'])).toEqual({ status: 2, execArgv: ['--max-semi-space-size=4', '--no-warnings'], samePid: true, malloc: '2 131072' });
  });

  it("restarts with glibc's malloc settings, each the user's own where set", () => {
    expect(run([], ['audit', '--no-such-option'], '', { MALLOC_ARENA_MAX: '8' }).malloc).toBe('8 131072');
    expect(run([], ['--help']).malloc).toBeUndefined();
  });

  it.each([[['--help']], [['--version']], [['doctor', '--help']]])('%j starts once, as it is', (args) => {
    expect(run([], args)).toEqual({ status: 0, execArgv: [], samePid: true });
  });

  // Help reads no records: a second start would double its time (issue 50).
  it.each([[['sync', '--help']], [['serve', '-h']], [['help', 'audit']], [['replay', '--help']]])('%j starts once: help never pays the second start', (args) => {
    expect(run([], args)).toEqual({ status: 0, execArgv: [], samePid: true });
  });

  it("leaves the user's own young generation size alone (a node flag or NODE_OPTIONS)", () => {
    expect(run(['--max-semi-space-size=32'], ['sync', '--no-such-option']).execArgv).toEqual(['--max-semi-space-size=32']);
    expect(run([], ['sync', '--no-such-option'], '--max-semi-space-size=16').execArgv).toEqual([]);
    expect(run(['--semi-space-growth-factor=1'], ['sync', '--no-such-option']).execArgv).toEqual(['--semi-space-growth-factor=1']);
  });
});
