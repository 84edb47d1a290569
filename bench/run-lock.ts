/**
 * The run lock's cost (src/sync/runLock.ts), which every sync, object, replay and audit --fix
 * pays before its first request: in a fresh process, the first take (loading the SQLite driver,
 * opening the lock file, the exclusive transaction) and the release; then take/release cycles
 * on the same handle. With --before DIR, the same in another checkout's build, runs alternating.
 *
 *   npm run build && node dist/bench/run-lock.js [--runs 20] [--cycles 200] [--before DIR]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const option = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const RUNS = Number(option('--runs', '20'));
const CYCLES = Number(option('--cycles', '200'));
const ours = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const before = option('--before', '');
const builds = [{ name: 'this build', root: ours }, ...(before ? [{ name: `before (${before})`, root: path.resolve(before) }] : [])];

/** One fresh process: ms for the first take + release, and µs per later take/release cycle. */
function once(root: string, dir: string): { firstMs: number; cycleUs: number } {
  const module = pathToFileURL(path.join(root, 'dist', 'src', 'sync', 'runLock.js')).href;
  const script = `
    const t0 = performance.now();
    const { acquireRunLock } = await import(${JSON.stringify(module)});
    const t1 = performance.now();
    (await acquireRunLock(${JSON.stringify(dir)}, { command: 'bench', wait: false })).release();
    const t2 = performance.now();
    for (let i = 0; i < ${CYCLES}; i++) (await acquireRunLock(${JSON.stringify(dir)}, { command: 'bench', wait: false })).release();
    const t3 = performance.now();
    process.stdout.write(JSON.stringify({ firstMs: t2 - t1, importMs: t1 - t0, cycleUs: ((t3 - t2) * 1000) / ${CYCLES} }));`;
  const r = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`run-lock bench in ${root}: exit ${r.status}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as { firstMs: number; cycleUs: number };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-lock-'));
try {
  const figures = builds.map(() => [] as Array<{ firstMs: number; cycleUs: number }>);
  for (let run = 0; run < RUNS; run++) builds.forEach((b, i) => figures[i]?.push(once(b.root, dir)));
  console.log(`run lock: ${RUNS} fresh processes per build (alternating), ${CYCLES} take/release cycles in each; Node ${process.version}, ${os.cpus().length} cores`);
  console.log('build | first take + release (driver load, open, lock): median / min | one later take + release: median');
  builds.forEach((b, i) => {
    const f = figures[i] ?? [];
    const first = f.map((x) => x.firstMs);
    console.log(`${b.name} | ${median(first).toFixed(2)} ms / ${Math.min(...first).toFixed(2)} ms | ${median(f.map((x) => x.cycleUs)).toFixed(1)} µs`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
