#!/usr/bin/env node
// Thin shim: the CLI lives in the compiled sources (npm run build).
import { main } from '../dist/src/cli/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
