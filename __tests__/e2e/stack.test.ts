/**
 * `npm run stack` as a person uses it: start it, copy the export lines it prints, run svc-sync
 * with those settings from elsewhere, stop it with Ctrl-C (SIGINT).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot, runCli } from '../../fixtures/cli.js';
import { removeDir, tempCwd, totals, type Envelope } from './helpers.js';

const ROOT = packageRoot();
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const ENTRY = /node (\S+)$/.exec(pkg.scripts.stack)?.[1] ?? 'missing';

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let running: Running | undefined;
let cwd: string | undefined;
afterEach(() => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  running = undefined;
  if (cwd) removeDir(cwd);
  cwd = undefined;
});

function start(args: string[]): Running {
  const child = spawn(process.execPath, [path.join(ROOT, ENTRY), ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The `export A=1` / `export B='x y'` lines, read back the way a POSIX shell would. */
function readExports(lines: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of lines) {
    const words = line.slice('export '.length).match(/(?:[^\s']+|'[^']*')+/g) ?? [];
    for (const w of words) {
      const eq = w.indexOf('=');
      env[w.slice(0, eq)] = w.slice(eq + 1).replace(/'([^']*)'/g, '$1');
    }
  }
  return env;
}

/** Lines wider than an 80-column terminal (characters, not bytes). */
const wide = (text: string): string[] => text.split('\n').filter((l) => [...l].length > 80);

async function exportsOf(r: Running): Promise<Record<string, string>> {
  const until = Date.now() + 20_000;
  for (;;) {
    // The lines come in one write, after the servers started.
    const lines = r
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('export '));
    if (lines.length > 0) return readExports(lines);
    if (r.child.exitCode !== null) throw new Error(`stack exited ${r.child.exitCode}: ${r.stderr()}`);
    if (Date.now() > until) throw new Error(`no export line; stdout so far:\n${r.stdout()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('npm run stack', () => {
  it('is what the package script runs', () => {
    expect(pkg.scripts.stack).toMatch(/&& node dist\/fixtures\/stackCli\.js$/);
    expect(fs.existsSync(path.join(ROOT, ENTRY))).toBe(true);
  });

  it('prints the settings to paste, serves a real sync with them, and stops cleanly on Ctrl-C', async () => {
    running = start(['--donations', '30', '--subscriptions', '5', '--segments', '1']);
    const env = await exportsOf(running);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['SVC_API_URL', 'SVC_API_KEY', 'SF_INSTANCE_URL', 'SF_ACCESS_TOKEN']));
    for (const k of ['SVC_API_URL', 'SF_INSTANCE_URL']) expect(env[k]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.stdout()).toMatch(/30 donations,\s+5\s+newsletter\s+subscriptions/);
    // Several export lines, each within 80 columns, like everything else it prints.
    expect(running.stdout().match(/^export /gm)?.length).toBeGreaterThanOrEqual(4);
    expect(wide(running.stdout())).toEqual([]);

    cwd = tempCwd('stack');
    const run = await runCli(['--json', 'sync', '--all'], { env, cwd });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const { result } = JSON.parse(run.stdout) as Envelope;
    expect(totals(result).inserted).toBeGreaterThan(30);
    expect(totals(result).failed).toBe(0);

    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.stdout()).toMatch(/stack: stopped on SIGINT \(served \d+ platform and \d+ Salesforce requests\)\n$/);
    // The ports are free again: nothing is left listening.
    const after = await runCli(['doctor'], { env, cwd });
    expect(after.stderr).toMatch(/ECONNREFUSED/);
  }, 60_000);

  it('stops on SIGTERM too, and lets doctor find a user without field-level security', async () => {
    running = start(['--donations', '3', '--field-access', 'none']);
    const env = await exportsOf(running);
    cwd = tempCwd('stack-fls');
    const doctor = await runCli(['doctor'], { env, cwd });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/Objects whose optional fields are all invisible \(not deployed, or hidden by\s+field-level security\)/);
    expect(doctor.stdout).toContain('sf org assign permset --name Svc_Sync_Integration');
    // A sync against that org stops at the first hidden column and points to doctor.
    const sync = await runCli(['sync', '--all'], { env, cwd });
    expect(sync.code).not.toBe(0);
    expect(sync.stderr).toMatch(/No such column '\w+__c' on entity 'Svc_\w+__c'.*hidden from this user by field-level security: run svc-sync doctor/);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.stdout()).toMatch(/stopped on SIGTERM/);
  }, 60_000);

  it("takes the platform's behaviours as flags, and a sync against it says what it learned", async () => {
    running = start(['--donations', '40', '--max-per-page', '25', '--omit-from-lists', 'donations:consents,donation_amount', '--ignore-filter', 'updated_after', '--no-rate-limit-headers']);
    const env = await exportsOf(running);
    expect(running.stdout()).toMatch(/behaves: ignores updated_after; pages of at most 25; donations lists lack\s+consents, donation_amount; no rate-limit headers/);
    expect(wide(running.stdout())).toEqual([]);
    cwd = tempCwd('stack-modes');
    const sync = await runCli(['--json', 'sync', '--all'], { env, cwd });
    expect(sync.code).toBe(0);
    const learned = (JSON.parse(sync.stdout) as { result: { learned: string[] } }).result.learned;
    expect(learned).toEqual(expect.arrayContaining([expect.stringMatching(/serves \w+ lists 25 a page/), expect.stringMatching(/list pages of donations lack consents, donation_amount/)]));
    running.child.kill('SIGTERM');
    await running.exited;
  }, 60_000);

  it('explains its flags, and refuses a bad one in one line with exit code 2', async () => {
    running = start(['--help']);
    expect((await running.exited).code).toBe(0);
    expect(running.stdout()).toMatch(/--donations <n> +donations on the site \(default: 100\)/);
    expect(running.stdout()).toMatch(/npm run stack -- --donations 5000/);
    expect(wide(running.stdout())).toEqual([]);
    running = start(['--donations', 'many']);
    expect((await running.exited).code).toBe(2);
    expect(running.stderr().split('\n').slice(0, 2)).toEqual(["error: option '--donations <n>' argument 'many' is invalid. must be a whole", '  number from 0 to 1000000']);
    expect(wide(running.stderr())).toEqual([]);
    expect(running.stdout()).toBe('');
  });
});
