/**
 * A package loaded on first use, not when the CLI starts: `--help` or `queue` must not pay for
 * jsforce, pg or html-to-text. Synchronous (CommonJS `require`), so a pure function such as the
 * HTML converter can stay synchronous; for packages that ship CommonJS.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const requireHere = createRequire(import.meta.url);

export function lazyModule<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(id) as T);
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
