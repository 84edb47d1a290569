/**
 * Temporary folders for one test file, removed after its last test: a file that makes them
 * through this leaves nothing in the temp folder (__tests__/support/tempFolderEnvironment.mjs
 * fails a file that does). Call at the top of the file, where jest's afterAll may be registered.
 */
import { afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `prefix` then, if given, `label-`, then mkdtemp's six characters: svc-sync-e2e-stack-Ab12Cd. */
export function tempFolders(prefix: string): (label?: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });
  return (label) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), label === undefined ? prefix : `${prefix}${label}-`));
    made.push(dir);
    return dir;
  };
}
