/**
 * A package loaded on first use, not when the CLI starts: `--help` or `queue` must not pay for
 * jsforce, pg or html-to-text. Synchronous (CommonJS `require`), so a pure function such as the
 * HTML converter can stay synchronous; for packages that ship CommonJS (and Node's own modules).
 */
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

export function lazyModule<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(id) as T);
}
