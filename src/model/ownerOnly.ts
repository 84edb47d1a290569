/**
 * One rule for what svc-sync trusts on disk (its configuration file, its state folder), the rule
 * the compile cache follows (scripts/node-from-registry.sh): trusted only when only its owner can
 * write it. The file or folder is this user's or root's and writable by no one else; every folder
 * above it is this user's or root's, writable by others only with the sticky bit (/tmp), so no one
 * else can put another file or a symlink in its place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors.js';

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;

/** Whose it is: this process's user or root may own what is trusted (on Windows: not checked). */
function foreignOwner(stat: fs.Stats): boolean {
  const me = process.getuid?.();
  return me !== undefined && stat.uid !== me && stat.uid !== 0;
}

/**
 * Why `target` could be changed by someone other than its owner, or undefined when only its owner
 * can. A missing target is judged by the folders above it. Symlinks are followed (what is read).
 */
export function writableByOthers(target: string): string | undefined {
  const full = path.resolve(target);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(full);
  } catch {
    stat = undefined;
  }
  if (stat !== undefined) {
    if (foreignOwner(stat)) return `owned by another user (uid ${stat.uid})`;
    if ((stat.mode & 0o022) !== 0) return `writable by other users (mode ${octal(stat.mode)})`;
  }
  for (let at = path.dirname(fs.existsSync(full) ? fs.realpathSync(full) : full); ; at = path.dirname(at)) {
    let dir: fs.Stats | undefined;
    try {
      dir = fs.statSync(at);
    } catch {
      dir = undefined;
    }
    if (dir !== undefined) {
      if (foreignOwner(dir)) return `the folder ${at} above it is owned by another user (uid ${dir.uid})`;
      if ((dir.mode & 0o022) !== 0 && (dir.mode & 0o1000) === 0) return `the folder ${at} above it is writable by other users (mode ${octal(dir.mode)}, no sticky bit)`;
    }
    if (at === path.dirname(at)) return undefined;
  }
}

/**
 * A folder svc-sync writes its own files in (`what`: "state folder"; `setting`: the one that moves
 * it), refused (exit 2) when another user could write to it: they could plant a symlink where
 * svc-sync is about to write, or change what it reads back.
 */
export function ownerOnlyFolder(dir: string, what: string, setting: string): void {
  if (process.platform === 'win32') return;
  const why = writableByOthers(dir);
  if (why === undefined) return;
  throw new ConfigError(`${what} ${dir}: ${why}: another user could plant files or symlinks in it; chmod 700 it (and go-w the folders above), or choose another folder (${setting})`);
}
