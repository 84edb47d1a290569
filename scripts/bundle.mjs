// The CLI as a few files: dist/cli.js and its chunks, bundled from what tsc emitted into dist/src.
// Loading ~140 small modules one by one costs more than Node's own start, so the shipped entry is
// one module and a few shared chunks (below: split per command); packages stay external (loaded from node_modules, the heavy ones only when a command
// needs them).
//
// got is the exception: it is on the way to a run's first platform request, and its ~60 ESM
// files load in about twice the time of the same code as one file. It gets a file of its own,
// dist/vendor/got.js, which the CLI imports where it imported `got` (on first use, as before).
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Node's built-ins reach the CLI bundle as stand-ins whose properties load the real module when
 * first read (written through, too). Some cost more to load than the rest of `--help` (node:http
 * about as much as Node's own start, node:v8 thirty internal modules, node:fs/promises fifteen),
 * and even one Node has already loaded is not free to import: an ES import makes Node read every
 * export to build the module's facade, and so does esbuild's copy of a CommonJS module's
 * properties (node:util's lazy `diff` then loads the assert internals, node:fs's ReadStream the
 * streams). `--help`, `queue` and option errors load none of what they do not use; a run loads
 * each at its first use.
 */
const onUseBuiltin = (name) =>
  [
    'let real;',
    `const load = () => (real ??= require('node:${name}'));`,
    `for (const key of ${JSON.stringify(Object.keys(require(`node:${name}`)))})`,
    '  Object.defineProperty(module.exports, key, { enumerable: true, get: () => load()[key], set: (value) => { load()[key] = value; } });',
  ].join('\n');

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(`bundle: ${entry} is missing: run tsc first (npm run build)\n`);
  process.exit(2);
}
// By package.json's "imports" (#vendor/got: dist/vendor/got.js): the same specifier from dist/cli.js
// and from dist/chunks/, where a relative one would differ (esbuild copies an external path as it is).
const GOT_FILE = '#vendor/got';
// Source maps are written beside the bundles for whoever debugs a build, without a
// sourceMappingURL comment: the package ships the bundles alone (package.json "files"), and a
// comment naming a file that is not there is a dangling reference.
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node22', sourcemap: 'external', logLevel: 'warning' };

await build({
  ...common,
  stdin: { contents: "export { default } from 'got';", resolveDir: root, sourcefile: 'got-entry.js' },
  outfile: path.join(root, 'dist', 'vendor', 'got.js'),
  // got's dependencies include CommonJS that requires Node built-ins (http2-wrapper): an ES module
  // has no `require` of its own.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);" },
  plugins: [
    {
      // got imports http2-wrapper (and with it node:http2, a sixth of got's load) for its `http2`
      // option, which the platform client never sets: the wrapper is still bundled, but run only
      // when got first reads it (a require in a getter is called when read).
      name: 'http2-wrapper-on-use',
      setup(b) {
        b.onResolve({ filter: /^http2-wrapper$/ }, (args) => (args.kind === 'import-statement' ? { path: 'http2-wrapper', namespace: 'on-use' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'on-use' }, () => ({
          resolveDir: root,
          contents: "const wrapper = () => require('http2-wrapper');\nexport default { get auto() { return wrapper().auto; }, get globalAgent() { return wrapper().globalAgent; } };",
        }));
      },
    },
  ],
});

// Split per command: dist/cli.js holds the program's declarations (commands, options, help) and
// each command's work is a chunk of dist/chunks/ that its action imports when it runs, so
// `--help`, `help <cmd>` and option errors parse the entry and what it shares with the chunks
// only. A chunk's name carries its content's hash: the folder is emptied first, so a build leaves
// no chunk of an earlier one for the package to ship.
const CHUNKS = path.join(root, 'dist', 'chunks');
rmSync(CHUNKS, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { cli: entry },
  outdir: path.join(root, 'dist'),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  packages: 'external',
  // commander is CommonJS: bundled (below), its requires of Node built-ins need a `require`.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);" },
  plugins: [
    {
      name: 'got-bundled',
      setup(b) {
        b.onResolve({ filter: /^got$/ }, () => ({ path: GOT_FILE, external: true }));
      },
    },
    {
      // p-limit (and yocto-queue, its one dependency, installed beside it): small, and imported
      // by the platform client at the top.
      // Bundled, a start reads no package files for it.
      name: 'p-limit-bundled',
      setup(b) {
        b.onResolve({ filter: /^(p-limit|yocto-queue)$/ }, (args) => ({ path: fileURLToPath(import.meta.resolve(args.path)) }));
      },
    },
    {
      // Every command parses its arguments with commander: bundled, so a start reads no package
      // files for it. Its
      // node:child_process (with net and dgram) serves only executable subcommands, which this CLI
      // has none of: loaded when first called.
      name: 'commander-bundled',
      setup(b) {
        b.onResolve({ filter: /^commander$/ }, () => ({ path: require.resolve('commander') }));
        b.onResolve({ filter: /^node:child_process$/ }, (args) => (args.importer.includes(`${path.sep}commander${path.sep}`) ? { path: 'child_process', namespace: 'on-use' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'on-use' }, () => ({ contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };" }));
      },
    },
    {
      // Every node: import of the CLI's own code and commander's; a dynamic import() stays Node's.
      name: 'builtins-on-use',
      setup(b) {
        b.onResolve({ filter: /^node:/ }, (args) =>
          args.namespace === 'builtin-on-use' || args.namespace === 'on-use' || args.kind === 'dynamic-import' ? undefined : { path: args.path.slice('node:'.length), namespace: 'builtin-on-use' },
        );
        // node:process is the global `process`, already there: itself (its EventEmitter methods are
        // inherited, and need `process` as `this`, which a stand-in's getter would not give).
        b.onLoad({ filter: /.*/, namespace: 'builtin-on-use' }, (args) => ({ contents: args.path === 'process' ? 'module.exports = process;' : onUseBuiltin(args.path) }));
      },
    },
  ],
});
