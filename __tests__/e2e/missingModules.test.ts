/**
 * An install with a package missing (a partial `npm ci`, a package removed by hand): a command
 * that needs it is a configuration error naming the package to install (exit 2, one line);
 * commands that do not need it run as before. Real installs, not mocks: a copy of the built CLI
 * beside a node_modules that links every package of this one but the missing one.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { outputOf, packageRoot, runCli, type CliResult } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { donationSynced, recordCount, removeDir, tempCwd } from './helpers.js';

/** The built CLI, installed in `dir` with every package but `missing`. */
function installWithout(dir: string, missing: string): string {
  const root = packageRoot();
  fs.cpSync(path.join(root, 'bin'), path.join(dir, 'bin'), { recursive: true });
  fs.cpSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  fs.mkdirSync(path.join(dir, 'dist'));
  fs.cpSync(path.join(root, 'dist', 'cli.js'), path.join(dir, 'dist', 'cli.js'));
  // The split bundle's chunks: each command's work, and what the entry shares with them.
  fs.cpSync(path.join(root, 'dist', 'chunks'), path.join(dir, 'dist', 'chunks'), { recursive: true });
  fs.cpSync(path.join(root, 'dist', 'vendor'), path.join(dir, 'dist', 'vendor'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules'));
  for (const name of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (name !== missing) fs.symlinkSync(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name));
  }
  return path.join(dir, 'bin', 'svc-sync.js');
}

/** Lines on stderr, without the time stamp a log line begins with. */
const lines = (r: CliResult): string[] =>
  r.stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, ''));

let stack: Stack;
let base: string;
let donationId: string;
const bins: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 4, newsletterSubscriptions: 0 } });
  base = tempCwd('missing-modules');
  for (const name of ['pg', 'jsforce', 'p-limit', 'csv-parse', 'ora']) {
    const dir = path.join(base, `without-${name}`);
    fs.mkdirSync(dir);
    bins[name] = installWithout(dir, name);
  }
  const found = stack.platform.site.donation.find(donationSynced);
  if (!found) throw new Error('no synced donation on the site');
  donationId = String(found.id);
});

afterAll(async () => {
  await stack.close();
  removeDir(base);
});

const run = (missing: string, args: string[], env: Record<string, string> = stack.env): Promise<CliResult> => {
  const cwd = fs.mkdtempSync(path.join(base, 'cwd-'));
  return runCli(args, { env, cwd, bin: bins[missing]! });
};

describe('a package missing from the install', () => {
  it('pg: a PostgreSQL queue names the package (exit 2, one line); a run that needs no queue works', async () => {
    const queue = await run('pg', ['queue', '--queue-url', 'postgres://svc@127.0.0.1:9/queue']);
    expect(queue.code).toBe(2);
    expect(lines(queue)).toHaveLength(1);
    expect(lines(queue)[0]).toMatch(/svc-sync: package pg is not installed .*npm install pg/);
    expect(queue.stderr).not.toContain('Cannot find module');

    const object = await run('pg', ['object', 'donation', donationId]);
    expect(object.code).toBe(0);
    expect(object.stderr).not.toMatch(/svc-sync: |pg/);
    expect(recordCount(stack)).toBeGreaterThan(0);
  }, 60_000);

  it('jsforce: a command that reaches Salesforce names the package (exit 2, one line); --help works', async () => {
    const writesBefore = stack.salesforce.calls().total;
    const object = await run('jsforce', ['object', 'donation', donationId]);
    expect(object.code).toBe(2);
    // The lines naming the site and the org (the session check needs no jsforce), then the error.
    const errors = lines(object).filter((l) => l.startsWith('svc-sync: '));
    expect(errors).toEqual([expect.stringMatching(/^svc-sync: package jsforce is not installed .*npm install jsforce/)]);
    expect(object.stderr).not.toContain('Cannot find module');
    // The session check's one call, nothing written.
    expect(stack.salesforce.calls().total - writesBefore).toBeLessThanOrEqual(1);

    const help = await run('jsforce', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: svc-sync');
  }, 60_000);

  it('csv-parse: replay of a CSV file names the package before any request; object needs no parser', async () => {
    const cwd = fs.mkdtempSync(path.join(base, 'replay-'));
    fs.writeFileSync(path.join(cwd, 'ids.csv'), `object_type,object_id\ndonation,${donationId}\n`);
    const platformBefore = stack.platform.requests.total;
    const csv = await runCli(['replay', '--file', 'ids.csv'], { env: stack.env, cwd, bin: bins['csv-parse']! });
    expect(csv.code).toBe(2);
    expect(lines(csv)).toEqual([expect.stringMatching(/^svc-sync: package csv-parse is not installed .*npm install csv-parse/)]);
    expect(stack.platform.requests.total).toBe(platformBefore);
    const object = await runCli(['object', 'donation', donationId], { env: stack.env, cwd, bin: bins['csv-parse']! });
    expect(object.code).toBe(0);
  }, 60_000);

  it('ora: a run in a terminal goes on without its spinner (it crashed with an unhandled rejection)', async () => {
    const cwd = fs.mkdtempSync(path.join(base, 'tty-'));
    // A terminal of 80 columns (`script` gives a pty; alone, one of no size).
    const command = `stty cols 80 rows 24; ${[process.execPath, bins.ora!, 'object', 'donation', donationId].map((w) => `'${w}'`).join(' ')}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, TERM: 'xterm', ...stack.env }, stdio: 'pipe' });
    child.stdin.end();
    const res = await outputOf(child);
    expect(res.stdout).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find/);
    expect(res.code).toBe(0);
  }, 60_000);

  it('--help loads no package: each of them missing, it prints the help, exit 0 (p-limit is in the bundle)', async () => {
    for (const name of Object.keys(bins)) {
      const help = await run(name, ['--help']);
      expect({ name, code: help.code, stderr: help.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^Usage: svc-sync /);
    }
  });
});
