/**
 * The browser the status page's test launches, when the machine has no chromium of its own, is
 * the one `@sparticuz/chromium` ships, unpacked once. It runs as whoever runs `npm test`: it is
 * taken only from a folder of that user's (mode 0700, checked), never from the shared temp folder,
 * where another user can plant one (or leave a folder of theirs that makes the test fail).
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { browserExecutable } from '../../fixtures/browser.js';
import { packageRoot } from '../../fixtures/cli.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'node_modules', '@sparticuz', 'chromium', 'package.json'), 'utf8')) as { version: string }).version;

let root: string;
let savedTmp: string | undefined;
let tmp: string;
let cacheHome: string;
/** A machine without Debian's chromium: the packaged one is used. */
const NO_DEBIAN = '/nonexistent/chromium';

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-browser-folder-'));
  tmp = path.join(root, 'tmp');
  cacheHome = path.join(root, 'cache');
  fs.mkdirSync(tmp);
  savedTmp = process.env.TMPDIR;
  // The shared temp folder, as the test process sees it.
  process.env.TMPDIR = tmp;
});

afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  fs.rmSync(root, { recursive: true, force: true });
});

/** A complete unpacked browser in `dir` (a stub executable: nothing here launches it). */
function unpacked(dir: string, mode = 0o700): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chromium'), '#!/bin/sh\nexit 0\n', { mode: 0o700 });
  fs.writeFileSync(path.join(dir, '.complete'), '');
  fs.chmodSync(dir, mode);
  return path.join(dir, 'chromium');
}

const ownFolder = (): string => path.join(cacheHome, 'svc-sync', `chromium-${VERSION}`);

/** The one-line message of what browserExecutable throws. */
function refusal(): string {
  try {
    browserExecutable({ debian: NO_DEBIAN, cacheHome });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('the unpacked browser', () => {
  it('is never taken from the temp folder, even a complete one planted there; its own folder is 0700', () => {
    const planted = unpacked(path.join(tmp, `svc-sync-chromium-${VERSION}`), 0o777);
    const own = unpacked(ownFolder());
    const found = browserExecutable({ debian: NO_DEBIAN, cacheHome });
    expect(found).toEqual({ path: own, source: 'package' });
    expect(found.path).not.toBe(planted);
    expect(fs.statSync(path.dirname(found.path)).mode & 0o777).toBe(0o700);
  });

  it('a folder others may write is refused with one line naming it and the fix', () => {
    unpacked(ownFolder(), 0o777);
    const message = refusal();
    expect(message).toBe(`browser folder ${ownFolder()}: others may write to it (mode 777); remove it (rm -rf ${ownFolder()}) and run the test again`);
  });

  it('an executable others may write, or a symlink in place of the folder, is refused', () => {
    const exe = unpacked(ownFolder());
    fs.chmodSync(exe, 0o777);
    expect(refusal()).toMatch(new RegExp(`^browser folder .*: ${exe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: others may write to it \\(mode 777\\)`));

    fs.rmSync(ownFolder(), { recursive: true });
    const elsewhere = path.dirname(unpacked(path.join(tmp, 'theirs')));
    fs.symlinkSync(elsewhere, ownFolder());
    expect(refusal()).toMatch(/^browser folder .*: not a folder \(a symlink\?\)/);
  });

  it('a cache folder above it that others may write is refused (they could swap the browser)', () => {
    unpacked(ownFolder());
    fs.chmodSync(path.join(cacheHome, 'svc-sync'), 0o777);
    expect(refusal()).toBe(`browser folder ${ownFolder()}: ${path.join(cacheHome, 'svc-sync')}: others may write to it (mode 777); use a cache folder of your own (XDG_CACHE_HOME)`);
    // Or a folder above that one.
    fs.chmodSync(path.join(cacheHome, 'svc-sync'), 0o700);
    fs.chmodSync(cacheHome, 0o777);
    expect(refusal()).toMatch(new RegExp(`: others may write to ${cacheHome} \\(mode 777\\)`));
  });
});
