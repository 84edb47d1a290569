/** `npm run stack` and `npm run demo` build only when a source changed (scripts/build-if-stale.mjs). */
import { afterAll, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const SCRIPT = path.join(packageRoot(), 'scripts', 'build-if-stale.mjs');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-build-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const run = (): { status: number | null; stderr: string } => {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
};

it('builds when there is no build or a source is newer, and does nothing when nothing changed', () => {
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.', types: [] }, include: ['src/**/*.ts'] }));
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a: number = 1;\n');
  const out = path.join(root, 'dist', 'src', 'a.js');

  const first = run();
  expect(first).toEqual({ status: 0, stderr: 'building (sources changed since the last build)...\n' });
  expect(fs.readFileSync(out, 'utf8')).toMatch(/\ba = 1;/);
  const builtAt = fs.statSync(out).mtimeMs;

  // Nothing changed: no build, the output untouched.
  expect(run()).toEqual({ status: 0, stderr: '' });
  expect(fs.statSync(out).mtimeMs).toBe(builtAt);

  // A source saved after the build: built again.
  const later = new Date(Date.now() + 60_000);
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a: number = 2;\n');
  fs.utimesSync(path.join(root, 'src', 'a.ts'), later, later);
  expect(run().stderr).toContain('building');
  expect(fs.readFileSync(out, 'utf8')).toMatch(/\ba = 2;/);
}, 120_000);
