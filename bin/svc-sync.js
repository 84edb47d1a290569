#!/usr/bin/env node
// Thin shim: the CLI is the bundled build (npm run build writes dist/cli.js).
import module from 'node:module';

// Node 22+ keeps V8's compiled code for the bundle between runs (checked against the source, in
// the temp folder or NODE_COMPILE_CACHE): a start compiles the CLI once, not every time.
module.enableCompileCache?.();

const entry = new URL('../dist/cli.js', import.meta.url);

let cli;
try {
  cli = await import(entry.href);
} catch (err) {
  // A package the CLI imports at start is missing from the install: named, as lazyModule does.
  const pkg = err && err.code === 'ERR_MODULE_NOT_FOUND' ? /^Cannot find package '([^']+)'/.exec(String(err.message))?.[1] : undefined;
  if (pkg !== undefined) {
    process.stderr.write(`svc-sync: package ${pkg} is not installed (this command needs it): reinstall svc-sync, or run npm install ${pkg} in its folder\n`);
    process.exit(2);
  }
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.js')) {
    process.stderr.write('svc-sync: not built yet: run `npm run build` in the package folder first\n');
    process.exit(2);
  }
  throw err;
}

process.exitCode = await cli.main(process.argv);
