/**
 * The naive start-up for bench/startup: the same program as tsc emits it (one module per file)
 * with every package it uses loaded before the command line is read, as a CLI that imports
 * everything at the top of its entry does. Run as `node dist/bench/eager-cli.js <args>`.
 */
const PACKAGES = ['commander', 'got', 'jsforce', 'pg', 'prom-client', 'html-to-text', 'ora', 'cli-table3', 'node:sqlite', 'p-limit', 'csv-parse'];
await Promise.all(PACKAGES.map((p) => import(p)));
const { main } = await import('../src/cli/main.js');
process.exitCode = await main(process.argv);
