/**
 * A state folder that cannot be one: the folder itself, or a folder above it, is a file. Said as
 * such before the lock is opened in it, instead of the lock's `cannot be opened (EEXIST)`. And one
 * that another user could write to (model/ownerOnly.ts): they could plant a symlink where svc-sync
 * writes, or change its progress; refused (exit 2) before anything is written in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { ownerOnlyFolder } from '../../model/ownerOnly.js';

export function checkStateDir(dir: string): void {
  for (let at = dir; ; at = path.dirname(at)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(at);
    } catch {
      // Not there yet (made with the lock), or not readable: the lock's own error names that.
      if (at === path.dirname(at)) return;
      continue;
    }
    if (stat.isDirectory()) return ownerOnlyFolder(dir, 'state folder', 'SVC_STATE_DIR');
    const what = at === dir ? 'is a file, not a folder' : `${at} is a file, not a folder`;
    throw new ConfigError(`state folder ${dir}: ${what}; move it away, or choose another folder (SVC_STATE_DIR)`);
  }
}
