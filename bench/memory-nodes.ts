/**
 * Peak memory of the built CLI on each Node major users run (22, 24, 26): a first `sync --all`
 * (`--json`, as the issue measured it), `audit` of a mirrored site, and `serve` draining a queue
 * filled beforehand. Every run is a child process under /usr/bin/time (peak RSS from wait4) with
 * memory-sampler.js preloaded (the peaks of JS heap, external and array buffers, to say which one
 * an RSS peak is, and when in the run it came). The servers run in this process.
 *
 *   npm run build && node dist/bench/memory-nodes.js [--runs sync:5000,sync:100000:heavy] [--nodes 22,24,26]
 *       [--bin DIR] [--check 200] [--keep DIR] [--env NAME=VALUE]
 *
 * For `sync:1000000` start this process with `node --max-old-space-size=14000`: the fake platform
 * and the Salesforce emulator hold the million records twice over, past V8's default heap limit.
 *
 * A run is `command:size[:heavy]`, command one of sync, audit (after a first sync by this Node's
 * default, unobserved) or serve (a queue of `size` donations.update events, each announcing a
 * donation already mirrored, drained by `serve`; size donations are on the site). `--nodes` names
 * majors found as /root/.cache/svc-sync/node-N/node_modules/node/bin/node, or paths; `--bin DIR`
 * runs another checkout's CLI (DIR/bin/svc-sync.js) beside this one's, for before/after. After
 * each first sync, `--check` donations picked at random are compared with Salesforce (the record
 * is there, with the platform's amount and status): a sample the bench checks, not a full audit.
 * `--keep DIR` keeps each run's samples (peaks and a timeline of RSS, heap used and external memory
 * a second) in DIR.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, outputOf, packageRoot } from '../fixtures/cli.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { siteFor } from './sites.js';
import { checkSample, drainLine, fillQueue, waitDrained } from './memory-runs.js';

interface Run {
  command: 'sync' | 'audit' | 'serve';
  size: number;
  heavy: boolean;
}

interface Args {
  runs: Run[];
  nodes: Array<{ label: string; exec: string }>;
  bins: Array<{ label: string; bin: string }>;
  check: number;
  /** Node flags before the CLI's script (a runtime setting measured against none). */
  flags: string[];
  /** A folder to keep each run's samples in (memory-sampler.js's JSON, its timeline included). */
  keep?: string;
  /** Environment given to every measured run (`--env NAME=VALUE`, again for more): a runtime setting measured against none. */
  env: Record<string, string>;
}

const MiB = 1024 * 1024;

/** `--env`'s settings, for every measured run. */
let runEnv: Record<string, string> = {};

function nodeExec(name: string): { label: string; exec: string } {
  if (/^\d+$/.test(name)) {
    const exec = `/root/.cache/svc-sync/node-${name}/node_modules/node/bin/node`;
    if (!existsSync(exec)) throw new Error(`--nodes: no Node ${name} at ${exec}`);
    return { label: `Node ${name}`, exec };
  }
  return { label: path.basename(path.dirname(path.dirname(name))), exec: name };
}

function parseArgs(argv: string[]): Args {
  const args: Args = { runs: [], nodes: [], bins: [{ label: 'this build', bin: BIN }], check: 200, flags: [], env: {} };
  let runs = 'sync:5000';
  let nodes = '22,24,26';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') runs = String(argv[++i]);
    else if (a === '--nodes') nodes = String(argv[++i]);
    else if (a === '--bin') args.bins.unshift({ label: 'before', bin: path.join(path.resolve(String(argv[++i])), 'bin', 'svc-sync.js') });
    else if (a === '--check') args.check = Number(argv[++i]);
    else if (a === '--flags') args.flags = String(argv[++i]).split(' ').filter(Boolean);
    else if (a === '--keep') args.keep = path.resolve(String(argv[++i]));
    else if (a === '--env') {
      const [name, ...value] = String(argv[++i]).split('=');
      args.env[String(name)] = value.join('=');
    } else throw new Error(`unknown argument ${JSON.stringify(a)} (see the header of bench/memory-nodes.ts)`);
  }
  for (const spec of runs.split(',')) {
    const [command, size, shape] = spec.split(':');
    if (command !== 'sync' && command !== 'audit' && command !== 'serve') throw new Error(`--runs: sync, audit or serve, not ${JSON.stringify(command)}`);
    args.runs.push({ command, size: Number(String(size).replace(/_/g, '')), heavy: shape === 'heavy' });
  }
  args.nodes = nodes.split(',').map(nodeExec);
  return args;
}

interface Measured {
  code: number;
  wallSeconds: number;
  cpuSeconds: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Peak sizes of V8's new space (the young generation), old space and large-object space, and of compiled code. */
  newSpace: number;
  oldSpace: number;
  largeObjects: number;
  codeBytes: number;
  /** When RSS peaked, as a share of the run's time (an early peak is a phase of the run, a late one what the run kept). */
  rssPeakAt: number;
  stderrTail: string;
}

interface Peaks {
  peak: Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', { bytes: number; atMs: number }>;
  endMs: number;
  spaces: Record<string, number>;
  code: number;
}

/** One CLI run under /usr/bin/time with the sampler preloaded; `during` runs while it does (serve's drain) and then stops it. */
async function measure(exec: string, flags: string[], bin: string, argv: string[], cwd: string, env: Record<string, string>, during?: () => Promise<void>, keep?: string): Promise<Measured> {
  const timeFile = path.join(cwd, 'time.txt');
  const samples = path.join(cwd, 'samples.json');
  const sampler = path.join(packageRoot(), 'dist', 'bench', 'memory-sampler.js');
  const child = spawn('/usr/bin/time', ['-f', '%M %U %S', '-o', timeFile, exec, ...flags, '--import', sampler, bin, ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, COLUMNS: '1000', ...env, ...runEnv, SVC_MEMORY_SAMPLES: samples },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = performance.now();
  const done = outputOf(child);
  if (during) {
    await during();
    // To the CLI itself: /usr/bin/time dies of a SIGTERM (no figures) and leaves it running. serve stops after its batch.
    const cli = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]);
    if (cli > 0) process.kill(cli, 'SIGTERM');
  }
  const { code, stderr } = await done;
  const wallSeconds = (performance.now() - started) / 1000;
  const [kb, user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  const sampled = existsSync(samples) ? (JSON.parse(readFileSync(samples, 'utf8')) as Peaks) : undefined;
  if (keep !== undefined && existsSync(samples)) copyFileSync(samples, path.join(keep, `${argv.filter((a) => !a.startsWith('-')).join('-')}-${path.basename(exec)}-${process.pid}-${Date.now()}.json`));
  const at = (k: keyof Peaks['peak']): number => sampled?.peak[k].bytes ?? NaN;
  const space = (name: string): number => sampled?.spaces[name] ?? NaN;
  return {
    code,
    wallSeconds,
    cpuSeconds: user + sys,
    rss: kb * 1024,
    heapTotal: at('heapTotal'),
    heapUsed: at('heapUsed'),
    external: at('external'),
    arrayBuffers: at('arrayBuffers'),
    newSpace: space('new_space'),
    oldSpace: space('old_space'),
    largeObjects: space('large_object_space') + space('new_large_object_space'),
    codeBytes: sampled?.code ?? NaN,
    rssPeakAt: sampled ? sampled.peak.rss.atMs / Math.max(1, sampled.endMs) : NaN,
    stderrTail: stderr.trim().split('\n').slice(-2).join(' | '),
  };
}

const records = (stack: Stack): number => Object.values(stack.platform.site).reduce((n, list) => n + list.length, 0);

/** A first sync into this stack's org, unobserved (the audit's and serve's starting point). */
async function seed(stack: Stack, cwd: string): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'sync', '--all'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...stack.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const { code, stderr } = await outputOf(child);
  if (code !== 0) throw new Error(`seeding sync --all exited ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`);
}

/** What the measured run asked of each side: platform requests and Salesforce calls (the budgets a memory change must not spend). */
interface Asked {
  platform: number;
  salesforce: number;
}

async function one(run: Run, exec: string, flags: string[], bin: string, check: number, keep?: string): Promise<{ m: Measured; records: number; sample: string; asked?: Asked }> {
  // serve: the site's own 2 % of records on a deleted parent, and enough donations for 75 % of the events.
  const site = run.command === 'serve' ? { ...siteFor(run.size, 0.02), donations: Math.round(run.size * 0.8) } : siteFor(run.size, 0.02, run.heavy);
  const stack = await startStack({ site });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-memory-'));
  try {
    const n = records(stack);
    const asked = (): Asked => ({ platform: stack.platform.requests.total, salesforce: stack.salesforce.calls().total });
    if (run.command === 'sync') {
      const m = await measure(exec, flags, bin, ['--json', 'sync', '--all'], cwd, stack.env, undefined, keep);
      const spent = asked();
      return { m, records: n, sample: m.code === 0 ? await checkSample(stack, check) : '-', asked: spent };
    }
    await seed(stack, cwd);
    if (run.command === 'audit') {
      stack.platform.resetCounts();
      stack.salesforce.resetCalls();
      const m = await measure(exec, flags, bin, ['--json', 'audit'], cwd, stack.env, undefined, keep);
      return { m, records: n, sample: '-', asked: asked() };
    }
    const secret = 'bench-webhook-secret-0123456789';
    const queue = path.join(cwd, 'queue.db');
    const filled = performance.now();
    const shape = await fillQueue(stack, queue, run.size);
    const fillSeconds = (performance.now() - filled) / 1000;
    const env = { ...stack.env, SVC_WEBHOOK_SECRET: secret, SVC_QUEUE_PATH: queue };
    stack.platform.resetCounts();
    stack.salesforce.resetCalls();
    const started = performance.now();
    let drainSeconds = NaN;
    const drain = async (): Promise<void> => {
      await waitDrained(queue, shape.events);
      drainSeconds = (performance.now() - started) / 1000;
    };
    const m = await measure(exec, flags, bin, ['serve', '--host', '127.0.0.1', '--port', '0'], cwd, env, drain, keep);
    console.log(drainLine(shape, fillSeconds, drainSeconds, stack.platform.requests, stack.salesforce.calls()));
    return { m, records: shape.events, sample: await checkSample(stack, check) };
  } finally {
    await stack.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

const mb = (bytes: number): string => (Number.isNaN(bytes) ? '-' : (bytes / MiB).toFixed(0));

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  runEnv = args.env;
  if (Object.keys(runEnv).length > 0)
    console.log(
      `environment: ${Object.entries(runEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
  if (args.flags.length > 0) console.log(`node flags: ${args.flags.join(' ')}`);
  console.log(`memory by Node: the built CLI as a child under /usr/bin/time (peak RSS: wait4), memory-sampler.js preloaded (peaks every 50 ms); ${os.cpus().length} cores, MiB`);
  const header = [
    'run',
    'records',
    'build',
    'node',
    'exit',
    'peak RSS',
    'heap total',
    'heap used',
    'new space',
    'old space',
    'large obj',
    'code',
    'external',
    'RSS peak at',
    'wall s',
    'CPU s',
    'CPU ms / 1,000',
    'platform req',
    'SF calls',
    'sample',
  ];
  const rows: string[][] = [];
  for (const run of args.runs) {
    for (const node of args.nodes) {
      for (const build of args.bins) {
        const label = `${run.command} ${run.size}${run.heavy ? ' heavy' : ''}`;
        process.stderr.write(`${label}, ${node.label}, ${build.label}...\n`);
        const { m, records: n, sample, asked } = await one(run, node.exec, args.flags, build.bin, args.check, args.keep);
        if (m.code !== 0 && !(run.command === 'audit' && m.code === 1) && !(run.command === 'serve' && m.code === 143)) process.stderr.write(`  exit ${m.code}: ${m.stderrTail}\n`);
        const row = [
          label,
          String(n),
          build.label,
          node.label,
          String(m.code),
          mb(m.rss),
          mb(m.heapTotal),
          mb(m.heapUsed),
          mb(m.newSpace),
          mb(m.oldSpace),
          mb(m.largeObjects),
          mb(m.codeBytes),
          mb(m.external),
          Number.isNaN(m.rssPeakAt) ? '-' : `${Math.round(m.rssPeakAt * 100)} %`,
          m.wallSeconds.toFixed(1),
          m.cpuSeconds.toFixed(1),
          ((m.cpuSeconds * 1e6) / n).toFixed(0),
          asked === undefined ? '-' : String(asked.platform),
          asked === undefined ? '-' : String(asked.salesforce),
          sample,
        ];
        console.log(row.join('  '));
        rows.push(row);
      }
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 4 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(`\n${[line(header), ...rows.map(line)].join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
