/**
 * What every command loads before it reads its command line: the static imports of the bundled CLI
 * (dist/cli.js, what bin/svc-sync.js runs). The heavy packages (jsforce, got, pg, prom-client,
 * html-to-text, ora, cli-table3, csv-parse, better-sqlite3) must be loaded by the code that uses
 * them, when it runs, so `--help` or `queue` costs little more than Node's own start; bench/startup
 * prints the times. A structural check: no timing here.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const BUNDLE = path.join(packageRoot(), 'dist', 'cli.js');
/** Small and needed by every command: the argument parser and the pacer's queue. */
const AT_START = new Set(['commander', 'p-limit']);

function staticImports(source: string): string[] {
  const specifiers = new Set<string>();
  for (const m of source.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"([^"]+)";/gm)) specifiers.add(m[1]!);
  return [...specifiers].sort();
}

describe('start-up', () => {
  it('the bundled CLI imports only commander, p-limit and Node built-ins up front', () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`);
    const packages = staticImports(readFileSync(BUNDLE, 'utf8')).filter((s) => !s.startsWith('node:'));
    expect(packages).toEqual([...AT_START].sort());
  });

  it('is one module of our own: no relative import is left to load file by file', () => {
    const specifiers = staticImports(readFileSync(BUNDLE, 'utf8'));
    expect(specifiers.filter((s) => s.startsWith('.'))).toEqual([]);
  });
});
