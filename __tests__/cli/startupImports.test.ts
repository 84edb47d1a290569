/**
 * What every command loads before it reads its command line: the static imports of the bundled CLI
 * (dist/cli.js, what bin/svc-sync.js runs, and the chunks of dist/chunks/ it imports statically);
 * each command's work is a chunk its action imports when it runs. The heavy packages (jsforce, got, pg, prom-client,
 * html-to-text, ora, cli-table3, csv-parse, node:sqlite) must be loaded by the code that uses
 * them, when it runs, so `--help` or `queue` costs little more than Node's own start; bench/startup
 * prints the times. A structural check: no timing here.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, packageRoot } from '../../fixtures/cli.js';
import { tempFolders } from '../support/tempFolders.js';

const tempDir = tempFolders('svc-sync-startup-');

const BUNDLE = path.join(packageRoot(), 'dist', 'cli.js');
/** Loaded by a request, a hash or a server only: the bundle holds a stand-in that loads each on first use. */
const ON_USE = ['node:http', 'node:https', 'node:tls', 'node:net', 'node:crypto', 'node:zlib'];

/**
 * Node's modules that `--help` (and `sync --help`) must not load, each of which it loaded before
 * issue 50's last cut: their ES facades read every export (node:fs's ReadStream loaded the
 * streams a second way, node:util's `diff` the assert internals), and the heap setting loaded
 * node:v8 with the worker internals.
 */
const NOT_FOR_HELP = ['v8', 'worker_threads', 'fs/promises', 'dns/promises', 'internal/util/diff', 'internal/readline/interface', 'net', 'http', 'crypto'];

/** The Node modules one run of the built CLI loaded (process.moduleLoadList at exit), its output in files (a pipe would load node:net). */
function modulesLoaded(args: string[]): string[] {
  const dir = tempDir();
  const preload = path.join(dir, 'modules.mjs');
  const list = path.join(dir, 'modules.txt');
  // No ES import of node:fs in the preload: its facade would load what the CLI is checked not to.
  writeFileSync(preload, `process.on('exit', () => process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  const out = openSync(path.join(dir, 'out.txt'), 'w');
  try {
    const r = spawnSync(process.execPath, ['--import', preload, BIN, ...args], { stdio: ['ignore', out, out], timeout: 30_000, cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(r.status).toBe(0);
  } finally {
    closeSync(out);
  }
  return readFileSync(list, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule '))
    .map((l) => l.slice('NativeModule '.length));
}

function staticImports(source: string): string[] {
  const specifiers = new Set<string>();
  for (const m of source.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"([^"]+)";/gm)) specifiers.add(m[1]!);
  return [...specifiers].sort();
}

/** The entry and every chunk it imports statically, transitively: what a start parses. */
function startSources(): Array<{ file: string; source: string }> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`);
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const source = readFileSync(file, 'utf8');
    seen.set(file, source);
    for (const s of staticImports(source)) if (s.startsWith('.')) visit(path.resolve(path.dirname(file), s));
  };
  visit(BUNDLE);
  return [...seen].map(([file, source]) => ({ file, source }));
}

/** What a start parses, as one text. */
const startSource = (): string =>
  startSources()
    .map((s) => s.source)
    .join('\n');

/** The static imports a start makes, of Node and of packages (a chunk of our own is no package). */
const startImports = (): string[] => [...new Set(startSources().flatMap((s) => staticImports(s.source)))].filter((s) => !s.startsWith('.')).sort();

describe('start-up', () => {
  it('the bundled CLI imports no package up front (commander and p-limit are bundled in)', () => {
    const packages = startImports().filter((s) => !s.startsWith('node:'));
    expect(packages).toEqual([]);
  });

  it('imports none of the network, hash and compression built-ins up front (--help never loads them)', () => {
    const imported = startImports();
    expect(imported.filter((s) => ON_USE.includes(s))).toEqual([]);
  });

  it('holds commander, whose node:child_process is loaded only when called (no executable subcommands here)', () => {
    const source = startSource();
    expect(source).toMatch(/^\/\/ node_modules\/commander\/lib\/command\.js$/m);
    expect(startImports()).not.toContain('node:child_process');
    expect(source).not.toMatch(/^\s*var childProcess = __require\("node:child_process"\)/m);
  });

  it('loads node:sqlite only where a database is opened (Node 22 warns that it is experimental when loaded)', () => {
    const source = startSource();
    expect(startImports()).not.toContain('node:sqlite');
    expect(source).not.toMatch(/from "node:sqlite"|import\("node:sqlite"\)/);
  });

  it("parses the commands' declarations only: each command's work is a chunk loaded when it runs", () => {
    const files = startSources().map((s) => path.relative(path.dirname(BUNDLE), s.file));
    // A few shared chunks beside the entry, none of them a command's work.
    expect(files.filter((f) => f !== 'cli.js' && !/^chunks\/chunk-[A-Z0-9]+\.js$/.test(f))).toEqual([]);
    const source = startSource();
    for (const work of ['runner', 'runEngine', 'commands/syncRun', 'commands/auditRun', 'commands/serveRun', 'commands/queueRun']) {
      expect({ work, parsed: source.includes(`// dist/src/cli/${work}.js\n`) }).toEqual({ work, parsed: false });
    }
    expect(source).toMatch(/^\/\/ dist\/src\/cli\/commands\/sync\.js$/m);
  });

  it.each([[['--help']], [['sync', '--help']], [['queue', '--help']]])('%j loads none of the Node modules it does not use', (args) => {
    expect(modulesLoaded(args).filter((m) => NOT_FOR_HELP.includes(m))).toEqual([]);
  });
});
