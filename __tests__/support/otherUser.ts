/**
 * Running the built CLI as a user file modes bind: root reads and writes any file whatever its
 * mode, so a test of "read-only for the serve user" runs the CLI as `nobody` when the suite runs
 * as root (CI does), and as this user otherwise. The Node binary is linked (or copied) where that
 * user can execute it: the registry's builds live in root's cache, which `nobody` cannot enter.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE, outputOf, type CliResult } from '../../fixtures/cli.js';
import { WAIT_MS } from './patience.js';

export interface Runner {
  uid: number;
  gid: number;
  /** Whether the runner is another user than this process's (root's). */
  other: boolean;
}

export function runnerUser(): Runner {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, other: false };
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  if (line === undefined) throw new Error('running as root, and /etc/passwd has no user nobody to run the CLI as');
  const [, , u, g] = line.split(':');
  return { uid: Number(u), gid: Number(g), other: true };
}

/** The Node binary the runner can execute, placed under `dir` (a root-owned folder others may enter). */
function nodeFor(runner: Runner, dir: string): string {
  if (!runner.other) return process.execPath;
  const bin = path.join(dir, 'node-bin');
  fs.mkdirSync(bin, { recursive: true, mode: 0o755 });
  fs.chmodSync(bin, 0o755);
  const node = path.join(bin, 'node');
  if (fs.existsSync(node)) return node;
  try {
    fs.linkSync(process.execPath, node);
  } catch {
    fs.copyFileSync(process.execPath, node);
    fs.chmodSync(node, 0o755);
  }
  return node;
}

/** A folder the runner owns, mode 0700, inside `parent` (which it must be able to enter). */
export function ownedBy(runner: Runner, parent: string, name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.chownSync(dir, runner.uid, runner.gid);
  return dir;
}

/** The CLI run as the runner; `home`: a root-owned folder others may enter, for the Node link. */
export function runCliAs(runner: Runner, home: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  const child = spawn(nodeFor(runner, home), cliArgs(args), {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: opts.cwd, ...READ_WHOLE, ...opts.env },
    stdio: 'pipe',
    ...(runner.other ? { uid: runner.uid, gid: runner.gid } : {}),
  });
  // A last guard, never a pace: a CLI that should have stopped at start but serves is stopped,
  // and the test fails on its exit code instead of hanging.
  const guard = setTimeout(() => child.kill('SIGTERM'), WAIT_MS);
  const done = outputOf(child).finally(() => clearTimeout(guard));
  child.stdin?.end('');
  return done;
}
