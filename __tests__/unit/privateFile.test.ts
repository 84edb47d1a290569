/**
 * Issue 47, row 6: files in the state folder are created exclusively, owner-only, in a folder
 * made 0700; a symlink planted where svc-sync writes is never written through.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateEmptyFile, writePrivateFile } from '../../src/model/privateFile.js';
import { openQueue } from '../../src/webhook/queue/open.js';
import { acquireReceiverLock } from '../../src/webhook/queue/receiverLock.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-private-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe('writePrivateFile', () => {
  it('a symlink planted at the old temp name (state.json.<pid>.tmp) is not followed: its target is untouched', () => {
    const state = path.join(dir, '.svc-sync', 'state.json');
    fs.mkdirSync(path.dirname(state), { mode: 0o700 });
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, `${state}.${process.pid}.tmp`);
    writePrivateFile(state, '{"watermarks":{}}\n');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.readFileSync(state, 'utf8')).toBe('{"watermarks":{}}\n');
    expect(mode(state)).toBe(0o600);
    // No temp file of its own is left beside it.
    expect(fs.readdirSync(path.dirname(state)).sort()).toEqual([path.basename(state), `${path.basename(state)}.${process.pid}.tmp`].sort());
  });

  it('makes the folder 0700 (and every folder it makes), the file 0600', () => {
    const file = path.join(dir, 'a', 'b', 'owners.json');
    writePrivateFile(file, '{}\n');
    expect(mode(path.join(dir, 'a'))).toBe(0o700);
    expect(mode(path.join(dir, 'a', 'b'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });
});

describe('privateEmptyFile', () => {
  it('a symlink planted at the name is not followed: nothing is created at its target', () => {
    const target = path.join(dir, 'elsewhere.db');
    fs.symlinkSync(target, path.join(dir, 'run.lock'));
    privateEmptyFile(path.join(dir, 'run.lock'));
    expect(fs.existsSync(target)).toBe(false);
  });

  it("an older release's 0644 file loses others' bits; a read-only one stays read-only", () => {
    const loose = path.join(dir, 'queue.db');
    fs.writeFileSync(loose, '', { mode: 0o644 });
    fs.chmodSync(loose, 0o644);
    privateEmptyFile(loose);
    expect(mode(loose)).toBe(0o600);
    fs.chmodSync(loose, 0o444);
    privateEmptyFile(loose);
    expect(mode(loose)).toBe(0o400);
  });
});

describe("serve's queue", () => {
  it('a new queue: its folder 0700, queue.db, its WAL files and the receiver lock 0600', async () => {
    const file = path.join(dir, 'state', 'queue.db');
    const queue = await openQueue({ kind: 'sqlite', path: file }, { create: true });
    const lock = acquireReceiverLock(file);
    try {
      expect(mode(path.dirname(file))).toBe(0o700);
      for (const name of fs.readdirSync(path.dirname(file))) expect({ name, mode: mode(path.join(path.dirname(file), name)) }).toEqual({ name, mode: 0o600 });
      expect(fs.readdirSync(path.dirname(file))).toEqual(expect.arrayContaining(['queue.db', 'queue.db.receiver-lock']));
    } finally {
      lock.release();
      await queue.close();
    }
  });

  it('a queue folder another user could write to: refused, naming it and SVC_QUEUE_PATH', async () => {
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    await expect(openQueue({ kind: 'sqlite', path: path.join(shared, 'queue.db') }, { create: true })).rejects.toThrow(
      new RegExp(`^queue folder ${shared}: writable by other users \\(mode 0777\\): another user could plant files or symlinks in it; .*SVC_QUEUE_PATH`),
    );
    expect(fs.readdirSync(shared)).toEqual([]);
  });
});
