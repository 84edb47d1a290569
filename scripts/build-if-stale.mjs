#!/usr/bin/env node
/**
 * `npm run stack` and `npm run demo` build first (tsc, then the CLI bundle), but a full `tsc` takes many seconds on a small
 * machine even when nothing changed. This builds only when a file the build reads (tsconfig's
 * folders, tsconfig.json, package.json) is newer than the stamp the last build left in dist/.
 * Usage: node scripts/build-if-stale.mjs [project root, default: this checkout]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const stamp = path.join(root, 'dist', '.build-stamp');
/** What the build reads: tsconfig.json's `include` folders and the two files that steer it. */
const INPUTS = ['src', 'fixtures', 'bench', 'tsconfig.json', 'package.json', 'scripts/bundle.mjs'];

/** The newest modification time under a path (0 when absent). */
function newest(p) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let most = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const name of fs.readdirSync(p)) most = Math.max(most, newest(path.join(p, name)));
  return most;
}

// A project that bundles its CLI (the one the demo runs): no bundle means no build, whatever the stamp says.
const bundler = path.join(root, 'scripts', 'bundle.mjs');
const bundles = fs.existsSync(bundler);
const built = !bundles || fs.existsSync(path.join(root, 'dist', 'cli.js')) ? newest(stamp) : 0;
const inputs = Math.max(...INPUTS.map((i) => newest(path.join(root, i))));
if (built > 0 && built >= inputs) process.exit(0);

process.stderr.write('building (sources changed since the last build)...\n');
// The stamp takes the time the build started: a file saved during the build makes the next one build again.
const started = new Date();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
if (bundles) {
  const bundle = spawnSync(process.execPath, [bundler], { stdio: 'inherit' });
  if (bundle.status !== 0) process.exit(bundle.status ?? 1);
}
fs.mkdirSync(path.dirname(stamp), { recursive: true });
fs.writeFileSync(stamp, `${started.toISOString()}\n`);
fs.utimesSync(stamp, started, started);
