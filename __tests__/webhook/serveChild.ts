/**
 * A real `serve` process (fixtures/webhook/serve-child.ts, run from dist/: `npm test` builds
 * first) for the tests that kill one mid-batch or stop it with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from './helpers.js';
import { reap } from '../support/reap.js';

const ROOT = process.cwd();
const CHILD = path.join(ROOT, 'dist/fixtures/webhook/serve-child.js');

/** The child runs compiled code: refuse to test a dist/ older than the sources. */
export function assertBuilt(): void {
  if (!existsSync(CHILD)) throw new Error(`${CHILD} is missing: run npm run build (npm test does)`);
  const dirs = ['src/webhook', 'src/webhook/queue'];
  const sources = [path.join(ROOT, 'fixtures/webhook/serve-child.ts'), ...dirs.flatMap((d) => readdirSync(path.join(ROOT, d)).map((f) => path.join(ROOT, d, f)))];
  for (const src of sources.filter((s) => s.endsWith('.ts'))) {
    const out = path.join(ROOT, 'dist', path.relative(ROOT, src)).replace(/\.ts$/, '.js');
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs) throw new Error(`${out} is older than ${src}: run npm run build`);
  }
}

export interface Child {
  proc: ChildProcess;
  lines: Array<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  port: number;
}

/**
 * Starts serve-child on a queue (a file path, or a postgres:// URL with SVC_QUEUE_SCHEMA and
 * SVC_QUEUE_LEASE_S in `env`) and waits until it listens; `mode` as serve-child.ts says.
 */
export async function startChild(queue: string, mode: 'hang' | 'slow' | 'ok', journal: string, env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, [CHILD, queue, mode, journal], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const lines: Array<Record<string, unknown>> = [];
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  await eventually(() => lines.some((l) => typeof l.port === 'number') || proc.exitCode !== null, 'child listening');
  const portLine = lines.find((l) => typeof l.port === 'number');
  if (portLine === undefined) throw new Error(`child exited early: ${stderr}`);
  return { proc, lines, exited, port: portLine.port as number };
}

/** The refs the children finished, one line each, in the order they were written. */
export const journalOf = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];

/** Kills what is still running (a test that failed half-way) and waits until each is gone (support/reap.ts). */
export async function killAll(children: ChildProcess[]): Promise<void> {
  await reap(children);
  children.length = 0;
}
