/**
 * A state file written whole or not at all: a temp file beside it, owner-only (0600: progress,
 * profiles, owners and lock holders are nobody else's to read or change), then a rename. A crash
 * leaves the old file; `fsync` where a lost write would lose progress.
 */
import fs from 'node:fs';
import path from 'node:path';

export function writePrivateFile(file: string, text: string, opts: { fsync?: boolean } = {}): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w', 0o600);
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
