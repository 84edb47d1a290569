/**
 * Start-up: what a command costs before it does anything, beside bare Node. For each command's
 * `--help`, and for the time from spawn to the first platform request of `sync --all` against the
 * local stack (the moment a run starts doing its job; before it, the Salesforce session check,
 * and with an OAuth login its token call), three builds side by side:
 *   ours   bin/svc-sync.js: the bundled CLI (dist/cli.js), packages loaded when a command needs them
 *   naive  bench/eager-cli: the same program as tsc emits it (one module per file) with every
 *          package it uses loaded up front, as a CLI that imports everything at the top does
 *   before another checkout's bin/svc-sync.js (--before DIR), built there: today's figure
 * and `node -e 0` as the floor. Each --help figure is the minimum of N runs (noise on a shared
 * machine only ever adds time); the first request gets its median beside its minimum. CPU time
 * (user + system, all of the process's threads) is printed beside wall time because it moves less
 * when another process has the other core; for the first request, the CPU the child had spent
 * when it sent that request. Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/startup.js [--runs 15] [--before DIR] [--first-only | --help-only]
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
// child's rusage); with `first`, the CPU time when it sent its first platform request (/v1/...)
// instead, seen on Node's own HTTP client channel.
const CPU_MARK = 'svc-sync-bench-cpu-us=';
const CPU_PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\n${CPU_MARK}'+(u.user+u.system)+'\\n')})`;
const FIRST_PRELOAD = `data:text/javascript,import dc from 'node:diagnostics_channel';let at=NaN;dc.subscribe('http.client.request.start',({request})=>{if(Number.isNaN(at)%26%26request.path.startsWith('/v1/')){const u=process.cpuUsage();at=u.user+u.system}});process.on('exit',()=>process.stderr.write('\\n${CPU_MARK}'+at+'\\n'))`;

/** One child: wall time from spawn to exit (or to `until`), and its CPU time (then: when it sent its first platform request). */
function runOnce(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; until?: () => boolean }): Promise<Figure> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', opts.until ? FIRST_PRELOAD : CPU_PRELOAD, ...argv], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'ignore', 'pipe'] });
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

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Minimum and median of each figure over runs. */
function spread(figures: Figure[]): { min: Figure; median: Figure } {
  const wall = figures.map((f) => f.wallMs);
  const cpu = figures.map((f) => f.cpuMs);
  return { min: { wallMs: Math.min(...wall), cpuMs: Math.min(...cpu) }, median: { wallMs: median(wall), cpuMs: median(cpu) } };
}

/** The Salesforce login of a first-request run: the stack's session, or OAuth client credentials against the emulator. */
type Login = 'session' | 'oauth';
const OAUTH_CLIENT = { clientId: 'startup-bench', clientSecret: 'startup-bench-secret-0123' };

function loginEnv(stack: Stack, login: Login): Record<string, string> {
  if (login === 'session') return stack.env;
  const { SF_INSTANCE_URL: _url, SF_ACCESS_TOKEN: _token, ...rest } = stack.env;
  return { ...rest, SF_LOGIN_URL: stack.salesforce.url, SF_CLIENT_ID: OAUTH_CLIENT.clientId, SF_CLIENT_SECRET: OAUTH_CLIENT.clientSecret };
}

async function firstRequest(stack: Stack, build: Build, cwd: string, login: Login): Promise<Figure> {
  stack.platform.resetCounts();
  return runOnce([...build.argv, 'sync', '--all', '--state', path.join(cwd, `state-${Math.random()}.json`)], {
    cwd,
    env: { ...process.env, HOME: cwd, ...loginEnv(stack, login) },
    until: () => stack.platform.requests.total > 0,
  });
}

/** A first-request row: minimum and median wall time against node -e 0, the child's CPU, and the naive figure against this one. */
function firstRow(f: { min: Figure; median: Figure }, floor: Figure, naive: { min: Figure; median: Figure } | undefined): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
  const against = naive === undefined || naive === f ? '' : `; naive ${(naive.median.wallMs / f.median.wallMs).toFixed(1)}x this (medians)`;
  return `min ${s(f.min.wallMs)} (${(f.min.wallMs / floor.wallMs).toFixed(1)}x node -e 0), median ${s(f.median.wallMs)} (${(f.median.wallMs / floor.wallMs).toFixed(1)}x), cpu ${s(f.median.cpuMs)}${against}`;
}

/**
 * --help-only: `svc-sync --help` and `sync --help` of each build and `node -e 0`, taking turns run
 * by run (a busy moment of the shared machine weighs on each alike); minimum and median of each.
 * The naive build (a second a run) runs in the first 3 rounds only.
 */
async function helpRounds(runs: number, builds: Build[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const rows = [{ name: 'node -e 0', argv: ['-e', '0'], words: [] as string[] }];
  for (const build of builds) for (const words of [[], ['sync']]) rows.push({ name: build.name, argv: [...build.argv, ...words, '--help'], words });
  const figures = rows.map(() => [] as Figure[]);
  for (let i = 0; i < runs; i++) {
    for (const [r, row] of rows.entries()) if (i < 3 || !row.name.startsWith('naive')) figures[r]!.push(await runOnce(row.argv, { cwd, env }));
  }
  const spreads = figures.map(spread);
  const floor = spreads[0]!;
  const load = os.loadavg().map((l) => l.toFixed(1));
  console.log(`startup --help-only: Node ${process.versions.node}, ${runs} rounds, ${os.cpus().length} cores, load average ${load.join(' ')} at the end`);
  console.log(`(x: wall time against node -e 0, minimum and median; goal: --help within 1.5x)\n`);
  const s = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
  for (const [r, row] of rows.entries()) {
    const f = spreads[r]!;
    const label = r === 0 ? 'node -e 0' : `${row.name}: ${['svc-sync', ...row.words, '--help'].join(' ')}`;
    const against = r === 0 ? '' : ` (${(f.min.wallMs / floor.min.wallMs).toFixed(2)}x / ${(f.median.wallMs / floor.median.wallMs).toFixed(2)}x)`;
    console.log(`  ${label.padEnd(52)} min ${s(f.min.wallMs)} median ${s(f.median.wallMs)}${against}, cpu min ${s(f.min.cpuMs)}`);
  }
}

async function main(): Promise<void> {
  const runs = Number(option('--runs', '15'));
  const before = option('--before', '');
  // --help-only: `svc-sync --help` and `sync --help` of ours, the naive build's and --before's
  // against bare Node: a Node's line for bench/README, in seconds rather than minutes (the naive
  // build takes a second a run: it gets 3 runs).
  const helpOnly = process.argv.includes('--help-only');
  const builds: Build[] = [{ name: 'ours (bundled, lazy)', argv: [BIN] }, naiveBuild()];
  if (before) builds.push({ name: `before (${before})`, argv: [path.resolve(before, 'bin', 'svc-sync.js')] });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-startup-'));
  const env = { ...process.env, HOME: cwd };
  try {
    if (helpOnly) {
      await helpRounds(runs, builds, cwd, env);
      return;
    }
    const floor = await best(runs, () => runOnce(['-e', '0'], { cwd, env }));
    console.log(`startup: minimum of ${runs} runs each, ${os.cpus().length} cores; node -e 0: ${(floor.wallMs / 1000).toFixed(3)} s, cpu ${(floor.cpuMs / 1000).toFixed(3)} s`);
    console.log(`(x: wall time against node -e 0; goal: every --help within 1.5x; Node ${process.versions.node})\n`);
    const commands = [[], ['sync'], ['object'], ['replay'], ['audit'], ['schema'], ['doctor'], ['serve'], ['queue']];
    // --first-only: the first-request figures alone (the --help rows take a minute or two).
    for (const build of process.argv.includes('--first-only') ? [] : builds) {
      console.log(build.name);
      for (const words of commands) {
        const f = await best(runs, () => runOnce([...build.argv, ...words, '--help'], { cwd, env }));
        console.log(`  ${['svc-sync', ...words, '--help'].join(' ').padEnd(26)} ${cell(f, floor)}`);
      }
    }
    if (helpOnly) return;
    const stack = await startStack({ site: { donations: 50, newsletterSubscriptions: 5 }, salesforce: { clients: [OAUTH_CLIENT] } });
    try {
      const n = Math.min(runs, 9);
      console.log(`\nsync --all: from spawn to its first platform request (goal: within 0.3 s; ${n} runs each; cpu: the child's, median, when it sent it)`);
      for (const login of ['session', 'oauth'] as const) {
        console.log(login === 'session' ? '  login: a given session (SF_INSTANCE_URL + SF_ACCESS_TOKEN)' : '  login: OAuth client credentials (a token call first)');
        // The builds take turns run by run, so a busy moment of the machine weighs on each alike.
        const figures = builds.map(() => [] as Figure[]);
        for (let i = 0; i < n; i++) for (const [b, build] of builds.entries()) figures[b]!.push(await firstRequest(stack, build, cwd, login));
        const spreads = figures.map(spread);
        for (const [b, build] of builds.entries()) console.log(`    ${build.name.padEnd(26)} ${firstRow(spreads[b]!, floor, spreads[1])}`);
      }
    } finally {
      await stack.close();
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
