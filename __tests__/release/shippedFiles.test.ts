/**
 * What ships refers only to what ships: a `sourceMappingURL` in a packed file that names a file
 * the package leaves out is a dangling reference (a debugger or `--enable-source-maps` looks for
 * it and warns), and a chunk of the split bundle the package leaves out fails the command whose
 * work it holds, when that command runs. The file list is npm's own (`npm pack --dry-run`, scripts off: no build here),
 * read against the build this suite runs on (`npm run build` first).
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const ROOT = packageRoot();

/** The paths `npm pack` would put in the tarball, relative to the package root. */
function packedFiles(): string[] {
  const npm = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  if (npm.status !== 0) throw new Error(`npm pack --dry-run: exit ${npm.status}: ${npm.stderr}`);
  const [pack] = JSON.parse(npm.stdout) as Array<{ files: Array<{ path: string }> }>;
  return (pack?.files ?? []).map((f) => f.path);
}

/** Every `sourceMappingURL` comment in a file's text. */
const mapUrlsIn = (text: string): string[] => [...text.matchAll(/^\/\/# sourceMappingURL=(\S+)\s*$/gm)].map((m) => m[1] as string);

/** The relative modules a file imports, statically or by import(), as esbuild writes them. */
const relativeImportsIn = (text: string): string[] => [...text.matchAll(/(?:\bfrom\s*|^import\s*|\bimport\()"(\.{1,2}\/[^"]+)"/gm)].map((m) => m[1] as string);

describe('the packed files', () => {
  it('hold every chunk the bundle imports, statically or when a command runs', () => {
    const files = packedFiles();
    const chunks = files.filter((f) => f.startsWith('dist/chunks/'));
    expect(chunks.length).toBeGreaterThan(0);
    const missing = files
      .filter((f) => f.startsWith('dist/') && f.endsWith('.js'))
      .flatMap((f) =>
        relativeImportsIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))
          .map((spec) => path.posix.join(path.posix.dirname(f), spec))
          .filter((target) => !files.includes(target))
          .map((target) => `${f} -> ${target}`),
      );
    expect(missing).toEqual([]);
  });

  it('name no source map the package leaves out', () => {
    const files = packedFiles();
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('dist/vendor/got.js');
    const dangling = files
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) =>
        mapUrlsIn(fs.readFileSync(path.join(ROOT, f), 'utf8'))
          .filter((url) => !url.startsWith('data:'))
          .map((url) => path.posix.join(path.posix.dirname(f), url))
          .filter((target) => !files.includes(target))
          .map((target) => `${f} -> ${target}`),
      );
    expect(dangling).toEqual([]);
  });
});
