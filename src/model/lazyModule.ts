/**
 * A package loaded on first use, not when the CLI starts: `--help` or `queue` must not pay for
 * jsforce, pg or html-to-text. Synchronous (CommonJS `require`), so a pure function such as the
 * HTML converter can stay synchronous; for packages that ship CommonJS.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConfigError } from './errors.js';

const requireHere = createRequire(import.meta.url);

export function lazyModule<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}

/** The package a module id is in: `jsforce/core` is jsforce's, `@scope/name/x` is `@scope/name`'s. */
const packageOf = (id: string): string => id.split('/', id.startsWith('@') ? 2 : 1).join('/');

/**
 * A package missing from the install (a partial `npm ci`, one removed by hand) is a configuration
 * error naming what to install, not `Cannot find module`: the package asked for, or the one of
 * its own dependencies that is missing.
 */
function load(id: string): unknown {
  try {
    return requireHere(id);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    const named = /^Cannot find module '([^'./][^']*)'/.exec((error as Error).message)?.[1];
    const name = packageOf(named ?? id);
    throw new ConfigError(`package ${name} is not installed (this command needs it): reinstall svc-sync, or run npm install ${name} in its folder`);
  }
}

/**
 * better-sqlite3's compiled addon where its build puts it, for its `nativeBinding` option: found
 * there, the package's own lookup (the `bindings` package, which tries a dozen paths) is skipped,
 * a few milliseconds of every run's start. Elsewhere (another layout), that lookup runs as before.
 */
export function sqliteBinding(): { nativeBinding?: string } {
  try {
    const file = path.join(path.dirname(requireHere.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    return existsSync(file) ? { nativeBinding: file } : {};
  } catch {
    return {};
  }
}
