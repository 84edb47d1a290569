/**
 * Node 22+'s compile cache holds V8 code that runs as whoever starts svc-sync: it is kept only in
 * a folder of the user's own (mode 0700, checked), never in the shared temp folder, where another
 * local user can create `node-compile-cache/` first and plant an entry for `dist/cli.js`.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '../../fixtures/cli.js';

const HAS_CACHE = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

interface Homes {
  root: string;
  tmp: string;
  home: string;
  cache: string;
}

function homes(): Homes {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-compile-cache-'));
  const at = (name: string): string => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return dir;
  };
  return { root, tmp: at('tmp'), home: at('home'), cache: path.join(root, 'xdg') };
}

/** `svc-sync --help` with the given environment only (no NODE_COMPILE_CACHE from the caller). */
function help(env: Record<string, string>): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--help'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

/** Every file below `dir` (none when it does not exist). */
function filesIn(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

const modeOf = (dir: string): number => fs.lstatSync(dir).mode & 0o777;

describe('the compile cache', () => {
  it('is never kept in the temp folder, even one another user prepared (mode 0777)', () => {
    const h = homes();
    try {
      const planted = path.join(h.tmp, 'node-compile-cache');
      fs.mkdirSync(planted);
      fs.chmodSync(planted, 0o777);
      for (let i = 0; i < 2; i++) {
        const r = help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: h.cache });
        expect(r.status).toBe(0);
        expect(r.stderr).toBe('');
      }
      expect(filesIn(planted)).toEqual([]);
      const own = path.join(h.cache, 'svc-sync', 'compile-cache');
      if (HAS_CACHE) {
        // The start-up benefit is kept: the cache is in the user's own folder, 0700.
        expect(modeOf(own)).toBe(0o700);
        expect(fs.statSync(own).uid).toBe(process.getuid!());
        expect(filesIn(own).length).toBeGreaterThan(0);
      } else {
        expect(fs.existsSync(own)).toBe(false);
      }
    } finally {
      fs.rmSync(h.root, { recursive: true, force: true });
    }
  });

  it('without XDG_CACHE_HOME (or with a relative one) it is in ~/.cache/svc-sync/compile-cache', () => {
    const h = homes();
    try {
      expect(help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: 'relative/cache' }).status).toBe(0);
      const own = path.join(h.home, '.cache', 'svc-sync', 'compile-cache');
      if (HAS_CACHE) {
        expect(modeOf(own)).toBe(0o700);
        expect(filesIn(own).length).toBeGreaterThan(0);
      }
      expect(filesIn(h.tmp)).toEqual([]);
    } finally {
      fs.rmSync(h.root, { recursive: true, force: true });
    }
  });

  it('a cache folder others may write, or a symlink, is not used: quiet, and one debug line says why', () => {
    const h = homes();
    try {
      const own = path.join(h.cache, 'svc-sync', 'compile-cache');
      fs.mkdirSync(own, { recursive: true });
      fs.chmodSync(own, 0o777);
      const open = help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: h.cache });
      expect(open).toEqual({ status: 0, stderr: '' });
      expect(filesIn(own)).toEqual([]);
      expect(filesIn(h.tmp)).toEqual([]);
      if (HAS_CACHE) {
        const debug = help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: h.cache, NODE_DEBUG: 'svc-sync' });
        expect(debug.stderr.trim().split('\n')).toEqual([expect.stringContaining(`compile cache off: ${own}: others may write to it (mode 777)`)]);
      }

      // A symlink to a folder another user made: not followed.
      fs.rmSync(own, { recursive: true });
      const elsewhere = path.join(h.tmp, 'theirs');
      fs.mkdirSync(elsewhere, { mode: 0o700 });
      fs.symlinkSync(elsewhere, own);
      expect(help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: h.cache })).toEqual({ status: 0, stderr: '' });
      expect(filesIn(elsewhere)).toEqual([]);

      // A parent folder others may write (they could swap the cache folder): not used either.
      fs.rmSync(own);
      fs.chmodSync(path.join(h.cache, 'svc-sync'), 0o777);
      expect(help({ TMPDIR: h.tmp, HOME: h.home, XDG_CACHE_HOME: h.cache })).toEqual({ status: 0, stderr: '' });
      expect(filesIn(path.join(h.cache, 'svc-sync'))).toEqual([]);
    } finally {
      fs.rmSync(h.root, { recursive: true, force: true });
    }
  });
});
