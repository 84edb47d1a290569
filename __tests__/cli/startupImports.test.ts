/**
 * What every command loads before it reads its command line: the static imports of the bundled CLI
 * (dist/cli.js, what bin/svc-sync.js runs). The heavy packages (jsforce, got, pg, prom-client,
 * html-to-text, ora, cli-table3, csv-parse, node:sqlite) must be loaded by the code that uses
 * them, when it runs, so `--help` or `queue` costs little more than Node's own start; bench/startup
 * prints the times. A structural check: no timing here.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';

const BUNDLE = path.join(packageRoot(), 'dist', 'cli.js');
/** Loaded by a request, a hash or a server only: the bundle holds a stand-in that loads each on first use. */
const ON_USE = ['node:http', 'node:https', 'node:tls', 'node:net', 'node:crypto', 'node:zlib'];

function staticImports(source: string): string[] {
  const specifiers = new Set<string>();
  for (const m of source.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"([^"]+)";/gm)) specifiers.add(m[1]!);
  return [...specifiers].sort();
}

describe('start-up', () => {
  it('the bundled CLI imports no package up front (commander and p-limit are bundled in)', () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`);
    const packages = staticImports(readFileSync(BUNDLE, 'utf8')).filter((s) => !s.startsWith('node:'));
    expect(packages).toEqual([]);
  });

  it('imports none of the network, hash and compression built-ins up front (--help never loads them)', () => {
    const imported = staticImports(readFileSync(BUNDLE, 'utf8'));
    expect(imported.filter((s) => ON_USE.includes(s))).toEqual([]);
  });

  it('holds commander, whose node:child_process is loaded only when called (no executable subcommands here)', () => {
    const source = readFileSync(BUNDLE, 'utf8');
    expect(source).toMatch(/^\/\/ node_modules\/commander\/lib\/command\.js$/m);
    expect(staticImports(source)).not.toContain('node:child_process');
    expect(source).not.toMatch(/^\s*var childProcess = __require\("node:child_process"\)/m);
  });

  it('loads node:sqlite only where a database is opened (Node 22 warns that it is experimental when loaded)', () => {
    const source = readFileSync(BUNDLE, 'utf8');
    expect(staticImports(source)).not.toContain('node:sqlite');
    expect(source).not.toMatch(/from "node:sqlite"|import\("node:sqlite"\)/);
  });

  it('is one module of our own: no relative import is left to load file by file', () => {
    const specifiers = staticImports(readFileSync(BUNDLE, 'utf8'));
    expect(specifiers.filter((s) => s.startsWith('.'))).toEqual([]);
  });
});
