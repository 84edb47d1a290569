/**
 * Files in the state folder, owner-only: the folder is made 0700, each file 0600 (progress,
 * profiles, owners, locks and queues are nobody else's to read or change). Every file is created
 * exclusively (`wx`: O_CREAT|O_EXCL, which never follows a symlink), so a symlink planted in a
 * shared folder under a name svc-sync is about to use is never written through.
 *
 * A state file is written whole or not at all: a temp file of a random name beside it, then a
 * rename. A crash leaves the old file; `fsync` where a lost write would lose progress.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The folder made owner-only (0700, with any folder above it this creates); an existing one is left as it is. */
function privateFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * An empty owner-only file made when missing (a lock, a queue SQLite then fills); an existing one
 * of this user's that others can read (an older release's 0644) is made owner-only.
 */
export function privateEmptyFile(file: string): void {
  privateFolder(path.dirname(path.resolve(file)));
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = fs.lstatSync(file);
  // Only others' bits are taken away: a file its owner made read-only stays read-only.
  if (stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o077) !== 0) fs.chmodSync(file, stat.mode & 0o700);
}

export function writePrivateFile(file: string, text: string, opts: { fsync?: boolean } = {}): void {
  privateFolder(path.dirname(path.resolve(file)));
  // A name no one can guess ahead: nothing planted can stand in for it, and `wx` refuses if it does.
  const tmp = `${file}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    try {
      fs.writeSync(fd, text);
      if (opts.fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}
