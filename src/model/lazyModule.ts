/**
 * A package loaded on first use, not when the CLI starts: `--help` or `queue` must not pay for
 * jsforce, pg or html-to-text. Synchronous (CommonJS `require`), so a pure function such as the
 * HTML converter can stay synchronous; for packages that ship CommonJS (and Node's own modules).
 */
import { createRequire } from 'node:module';
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
