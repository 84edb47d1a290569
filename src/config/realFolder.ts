/**
 * A folder's real path, whether or not it exists yet: two state folders that are one folder
 * through a symlink (of the folder or of a parent) must compare equal, or two connections share
 * one watermark. The nearest existing ancestor is resolved (fs.realpathSync), the rest appended.
 */
import fs from 'node:fs';
import path from 'node:path';

export function realFolder(folder: string): string {
  const rest: string[] = [];
  let at = path.resolve(folder);
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      // The root itself unreadable: nothing to resolve, the path as given.
      if (parent === at) return path.resolve(folder);
      rest.push(path.basename(at));
      at = parent;
    }
  }
}
