#!/usr/bin/env node
// Thin shim: the CLI is the bundled build (npm run build writes dist/cli.js).
//
// Nothing is imported before the Node version is checked: on an older Node, the bundle or a
// package could fail to load with a stack trace; this says what is needed in one line instead.
const FLOOR = [22, 19];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < FLOOR[0] || (major === FLOOR[0] && minor < FLOOR[1])) {
  process.stderr.write(`svc-sync needs Node.js ${FLOOR.join('.')}+ (this is ${process.versions.node}): get it at https://nodejs.org\n`);
  process.exit(2);
}

// Node keeps V8's compiled code for the bundle between runs (checked against the source, in the
// temp folder or NODE_COMPILE_CACHE): a start compiles the CLI once, not every time.
const { default: module } = await import('node:module');
module.enableCompileCache?.();

const entry = new URL('../dist/cli.js', import.meta.url);

let cli;
try {
  cli = await import(entry.href);
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.js')) {
    process.stderr.write('svc-sync: not built yet: run `npm run build` in the package folder first\n');
    process.exit(2);
  }
  throw err;
}

process.exitCode = await cli.main(process.argv);
