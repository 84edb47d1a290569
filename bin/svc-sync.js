#!/usr/bin/env node
// Thin shim: the CLI lives in the compiled sources (npm run build).
const entry = new URL('../dist/src/cli/main.js', import.meta.url);

let cli;
try {
  cli = await import(entry.href);
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/src/cli/main.js')) {
    process.stderr.write('svc-sync: not built yet: run `npm run build` in the package folder first\n');
    process.exit(2);
  }
  throw err;
}

process.exitCode = await cli.main(process.argv);
