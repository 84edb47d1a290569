/**
 * Start-up: what a command costs before it does anything, beside bare Node. For each command's
 * `--help`, and for the time from spawn to the first platform request of `sync --all` against the
 * local stack (the moment a run starts doing its job), three builds side by side:
 *   ours   bin/svc-sync.js: the bundled CLI (dist/cli.js), packages loaded when a command needs them
 *   naive  bench/eager-cli: the same program as tsc emits it (one module per file) with every
 *          package it uses loaded up front, as a CLI that imports everything at the top does
 *   before another checkout's bin/svc-sync.js (--before DIR), built there: today's figure
 * and `node -e 0` as the floor. Each figure is the minimum of N runs (noise on a shared machine
 * only ever adds time); CPU time (user + system) is printed beside wall time because it moves
 * less when another process has the other core. Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/startup.js [--runs 15] [--before DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, packageRoot } from '../fixtures/cli.js';
import { startStack, type Stack } from '../fixtures/stack.js';

interface Figure {
  wallMs: number;
  cpuMs: number;
}

interface Build {
  name: string;
  /** Node arguments that run the CLI with the given CLI arguments after them. */
  argv: string[];
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

function naiveBuild(): Build {
  return { name: 'naive (eager, unbundled)', argv: [path.join(packageRoot(), 'dist', 'bench', 'eager-cli.js')] };
}

// Preloaded into every child: its own CPU time, written to stderr as it exits (Node gives a parent no
// child's rusage).
const CPU_MARK = 'svc-sync-bench-cpu-us=';
const CPU_PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\n${CPU_MARK}'+(u.user+u.system)+'\\n')})`;

/** One child: wall time from spawn to exit (or to `until`), and its CPU time. */
function runOnce(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; until?: () => boolean }): Promise<Figure> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_PRELOAD, ...argv], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let reachedMs = -1;
    const poll = opts.until
      ? setInterval(() => {
          if (reachedMs < 0 && opts.until?.()) reachedMs = performance.now() - started;
        }, 1)
      : undefined;
    child.on('error', reject);
    child.on('exit', (code) => {
      if (poll) clearInterval(poll);
      const wallMs = opts.until ? reachedMs : performance.now() - started;
      const mark = stderr.split('\n').find((l) => l.startsWith(CPU_MARK));
      const cpuMs = mark ? Number(mark.slice(CPU_MARK.length)) / 1000 : Number.NaN;
      if (wallMs < 0 || (code !== 0 && !opts.until)) reject(new Error(`node ${argv.slice(-3).join(' ')}: exit ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`));
      else resolve({ wallMs, cpuMs });
    });
  });
}

async function best(runs: number, once: () => Promise<Figure>): Promise<Figure> {
  let min: Figure = { wallMs: Infinity, cpuMs: Infinity };
  for (let i = 0; i < runs; i++) {
    const f = await once();
    min = { wallMs: Math.min(min.wallMs, f.wallMs), cpuMs: Math.min(min.cpuMs, f.cpuMs) };
  }
  return min;
}

function cell(f: Figure, floor: Figure): string {
  return `${(f.wallMs / 1000).toFixed(3)} s (${(f.wallMs / floor.wallMs).toFixed(1)}x) cpu ${(f.cpuMs / 1000).toFixed(3)} s`;
}

async function firstRequest(stack: Stack, build: Build, cwd: string): Promise<Figure> {
  stack.platform.resetCounts();
  return runOnce([...build.argv, 'sync', '--all', '--state', path.join(cwd, `state-${Math.random()}.json`)], {
    cwd,
    env: { ...process.env, HOME: cwd, ...stack.env },
    until: () => stack.platform.requests.total > 0,
  });
}

async function main(): Promise<void> {
  const runs = Number(option('--runs', '15'));
  const before = option('--before', '');
  const builds: Build[] = [{ name: 'ours (bundled, lazy)', argv: [BIN] }, naiveBuild()];
  if (before) builds.push({ name: `before (${before})`, argv: [path.resolve(before, 'bin', 'svc-sync.js')] });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-startup-'));
  const env = { ...process.env, HOME: cwd };
  try {
    const floor = await best(runs, () => runOnce(['-e', '0'], { cwd, env }));
    console.log(`startup: minimum of ${runs} runs each, ${os.cpus().length} cores; node -e 0: ${(floor.wallMs / 1000).toFixed(3)} s, cpu ${(floor.cpuMs / 1000).toFixed(3)} s`);
    console.log('(x: wall time against node -e 0; goal: every --help within 3x)\n');
    const commands = [[], ['sync'], ['object'], ['replay'], ['audit'], ['schema'], ['doctor'], ['serve'], ['queue']];
    for (const build of builds) {
      console.log(build.name);
      for (const words of commands) {
        const f = await best(runs, () => runOnce([...build.argv, ...words, '--help'], { cwd, env }));
        console.log(`  ${['svc-sync', ...words, '--help'].join(' ').padEnd(26)} ${cell(f, floor)}`);
      }
    }
    const stack = await startStack({ site: { donations: 50, newsletterSubscriptions: 5 } });
    try {
      console.log('\nsync --all: from spawn to its first platform request (goal: within 0.3 s)');
      for (const build of builds) {
        const f = await best(Math.min(runs, 7), () => firstRequest(stack, build, cwd));
        console.log(`  ${build.name.padEnd(26)} ${(f.wallMs / 1000).toFixed(3)} s`);
      }
    } finally {
      await stack.close();
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
