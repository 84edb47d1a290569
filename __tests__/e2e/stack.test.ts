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

/** The settings to paste (the first block); `oauth`: the block of the unattended login after it. */
async function exportsOf(r: Running, block: 'settings' | 'oauth' = 'settings'): Promise<Record<string, string>> {
  const until = Date.now() + 20_000;
  for (;;) {
    // The lines come in one write, after the servers started.
    const [settings = '', oauth = ''] = r.stdout().split(/^Or log in as an unattended run does.*$/m);
    const lines = (block === 'settings' ? settings : oauth).split('\n').filter((l) => l.startsWith('export '));
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

  it('--npc: an org with Nonprofit Cloud, SVC_PROJECTION=npc printed; a dry run of the gifts exits 0 and writes nothing', async () => {
    running = start(['--npc', '--donations', '12', '--subscriptions', '0', '--segments', '1']);
    const env = await exportsOf(running);
    expect(env.SVC_PROJECTION).toBe('npc');
    expect(running.stdout()).toMatch(/Nonprofit Cloud: GiftTransaction, GiftSoftCredit, GiftRefund/);
    expect(wide(running.stdout())).toEqual([]);
    cwd = tempCwd('stack-npc');
    const run = await runCli(['--dry-run', 'sync', '--all'], { env: { ...env, COLUMNS: '80' }, cwd });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^\S+ gifts: npc$/m);
    expect(run.stdout).toMatch(/^Gifts: \d+ inserted, 0 updated, 0 unchanged, \d+ skipped, 0 failed/m);
    expect(run.stdout).toMatch(/^ {2}Donors: 0 matched, \d+ new, 0 ambiguous$/m);
    expect(wide(run.stdout)).toEqual([]);
    const sync = await runCli(['--json', 'sync', '--all'], { env, cwd });
    expect(sync.code).toBe(0);
    const { result } = JSON.parse(sync.stdout) as Envelope;
    expect((result as unknown as { projection: { gifts: { insert: number } } }).projection.gifts.insert).toBeGreaterThan(0);
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('--npsp: an org with NPSP and its automation, SVC_PROJECTION=npsp printed; --no-npsp-automation switches the triggers off', async () => {
    /** A Contact written without an Account, then its AccountId as the org has it (NPSP gives it a household). */
    const household = async (env: Record<string, string>): Promise<unknown> => {
      const api = `${env.SF_INSTANCE_URL ?? ''}/services/data/v62.0`;
      const headers = { Authorization: `Bearer ${env.SF_ACCESS_TOKEN ?? ''}`, 'Content-Type': 'application/json' };
      const records = [{ attributes: { type: 'Contact' }, SvcDonorKey__c: 'P:jan@example.org:smit:jan', LastName: 'Smit', Email: 'jan@example.org' }];
      const put = await fetch(`${api}/composite/sobjects/Contact/SvcDonorKey__c`, { method: 'PATCH', headers, body: JSON.stringify({ allOrNone: true, records }) });
      expect(put.status).toBe(200);
      const q = await fetch(`${api}/query?q=${encodeURIComponent('SELECT AccountId FROM Contact')}`, { headers });
      return ((await q.json()) as { records: Array<{ AccountId: unknown }> }).records[0]?.AccountId;
    };
    running = start(['--npsp', '--donations', '3', '--subscriptions', '0', '--segments', '1']);
    const env = await exportsOf(running);
    expect(env.SVC_PROJECTION).toBe('npsp');
    expect(running.stdout()).toMatch(/NPSP: Contact, Household and Organization Accounts, Opportunity,[\s\S]*NPSP's\s+automation on/);
    expect(wide(running.stdout())).toEqual([]);
    expect(await household(env)).toEqual(expect.stringMatching(/^001/));
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });

    running = start(['--npsp', '--no-npsp-automation', '--donations', '3', '--subscriptions', '0', '--segments', '1']);
    const off = await exportsOf(running);
    expect(off.SVC_PROJECTION).toBe('npsp');
    expect(running.stdout()).toMatch(/NPSP's\s+automation off/);
    expect(await household(off)).toBeNull();
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
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

  it('--site-id names the site its records carry and prints SVC_SITE_ID; the OAuth client logs in as an unattended run does', async () => {
    running = start(['--donations', '10', '--subscriptions', '2', '--segments', '1', '--site-id', '7']);
    const env = await exportsOf(running);
    expect(env.SVC_SITE_ID).toBe('7');
    const oauth = await exportsOf(running, 'oauth');
    expect(Object.keys(oauth)).toEqual(['SF_LOGIN_URL', 'SF_CLIENT_ID', 'SF_CLIENT_SECRET']);
    expect(running.stdout()).toMatch(/^unset SF_INSTANCE_URL SF_ACCESS_TOKEN$/m);
    expect(wide(running.stdout())).toEqual([]);
    cwd = tempCwd('stack-oauth');
    const { SF_INSTANCE_URL: _url, SF_ACCESS_TOKEN: _token, ...platform } = env;
    const run = await runCli(['sync', '--all'], { env: { ...platform, ...oauth }, cwd });
    expect(run.code).toBe(0);
    // The header names the site as set, and the org the client credentials logged in to.
    expect(run.stderr).toMatch(/^\S+Z site 7 at 127\.0\.0\.1:\d+$/m);
    expect(run.stderr).toMatch(/^\S+Z org 00D\w+ at 127\.0\.0\.1:\d+$/m);
    // Another SVC_SITE_ID is refused: the records really carry 7.
    const other = await runCli(['sync', '--all'], { env: { ...env, SVC_SITE_ID: '6' }, cwd: tempCwd('stack-other-site') });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/SVC_SITE_ID is 6/);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 60_000);

  it('--sites 2 --npc: a second site with the same ids into the one org, and the config file of two connections, gifts on, that rehearses keys qualify', async () => {
    running = start(['--sites', '2', '--npc', '--donations', '8', '--subscriptions', '1', '--segments', '1']);
    const env = await exportsOf(running);
    const out = running.stdout();
    expect(wide(out)).toEqual([]);
    const config = /cat > svc-sync\.config\.json <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(out)?.[1] ?? '';
    const parsed = JSON.parse(config) as { connections: Record<string, Record<string, unknown>> };
    expect(Object.keys(parsed.connections)).toEqual(['north', 'south']);
    expect(parsed.connections.north).toMatchObject({ SVC_SITE_ID: 6, SVC_SITE_KEYS: true, SF_INSTANCE_URL: env.SF_INSTANCE_URL, SVC_PROJECTION: 'npc' });
    expect(parsed.connections.south).toMatchObject({ SVC_SITE_ID: 7, SVC_SITE_KEYS: true, SF_INSTANCE_URL: env.SF_INSTANCE_URL, SVC_PROJECTION: 'npc' });
    const keys = readExports(out.split('\n').filter((l) => /^export (NORTH|SOUTH)_KEY=/.test(l)));
    cwd = tempCwd('stack-sites');
    // The first site alone, bare keys; then the config file and the migration, as printed.
    expect((await runCli(['sync', '--all'], { env, cwd })).code).toBe(0);
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), config, { mode: 0o600 });
    const both = { ...keys, SF_ACCESS_TOKEN: env.SF_ACCESS_TOKEN ?? '', SF_API_VERSION: env.SF_API_VERSION ?? '' };
    const qualify = await runCli(['--json', 'keys', 'qualify', '--connection', 'north', '--apply'], { env: both, cwd });
    expect({ code: qualify.code, stderr: qualify.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(qualify.stdout) as { result: { updated: number } }).result.updated).toBeGreaterThan(8);
    // Both sites from the file alone (no SVC_PROJECTION exported): north's gifts stand, south's are written.
    const sync = await runCli(['--json', 'sync', '--all'], { env: both, cwd });
    const connections = (JSON.parse(sync.stdout) as { result: { connections: Array<{ connection: string; status: number; result: { projection?: { gifts: { insert: number; fail: number } } } }> } })
      .result.connections;
    expect(connections.map((c) => [c.connection, c.status, c.result.projection?.gifts.fail])).toEqual([
      ['north', 0, 0],
      ['south', 0, 0],
    ]);
    expect(connections[0]?.result.projection?.gifts.insert).toBe(0);
    expect(connections[1]?.result.projection?.gifts.insert).toBeGreaterThan(0);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('--validation-rule makes Salesforce refuse some donations (error records to try); kill -USR1 lifts it and the next sync writes them', async () => {
    running = start(['--donations', '20', '--subscriptions', '2', '--segments', '1', '--validation-rule', 'donation-gift-aid']);
    const env = await exportsOf(running);
    const refused = Number(/validation rule donation-gift-aid: (\d+) donations refused/.exec(running.stdout())?.[1]);
    expect(refused).toBeGreaterThan(0);
    cwd = tempCwd('stack-rule');
    const first = await runCli(['--json', 'sync', '--all'], { env, cwd });
    expect(first.code).toBe(1);
    const failed = (JSON.parse(first.stdout) as Envelope).result.records.filter((r) => r.action === 'fail');
    expect(failed).toHaveLength(refused);
    for (const f of failed) expect(f).toMatchObject({ object: 'Svc_Donation__c', error: { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: expect.stringMatching(/Gift Aid/) } });
    running.child.kill('SIGUSR1');
    await new Promise<void>((resolve) => {
      const check = (): void => void (/validation rule donation-gift-aid lifted/.test(running?.stdout() ?? '') ? resolve() : setTimeout(check, 50));
      check();
    });
    const again = await runCli(['--json', 'sync'], { env, cwd });
    expect(again.code).toBe(0);
    expect(totals((JSON.parse(again.stdout) as Envelope).result).inserted).toBe(refused);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 60_000);

  it('two stacks with two site ids run README\'s "Several sites" as written, each site into its own org', async () => {
    const north = start(['--donations', '8', '--subscriptions', '2', '--segments', '1', '--site-id', '7']);
    const south = start(['--donations', '12', '--subscriptions', '2', '--segments', '1', '--site-id', '8']);
    try {
      const [n, s] = await Promise.all([exportsOf(north), exportsOf(south)]);
      cwd = tempCwd('stack-several');
      // README's config, with each stack's own platform URL (two fake platforms stand for one).
      const connection = (e: Record<string, string>, site: number, key: string, token: string): Record<string, unknown> => ({
        SVC_SITE_ID: site,
        SVC_API_URL: e.SVC_API_URL,
        SVC_API_KEY: { env: key },
        SF_INSTANCE_URL: e.SF_INSTANCE_URL,
        SF_ACCESS_TOKEN: { env: token },
      });
      const config = { connections: { north: connection(n, 7, 'NORTH_KEY', 'NORTH_TOKEN'), south: connection(s, 8, 'SOUTH_KEY', 'SOUTH_TOKEN') } };
      fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config));
      const keys = { NORTH_KEY: n.SVC_API_KEY!, NORTH_TOKEN: n.SF_ACCESS_TOKEN!, SOUTH_KEY: s.SVC_API_KEY!, SOUTH_TOKEN: s.SF_ACCESS_TOKEN! };
      const run = await runCli(['--json', 'sync', '--all'], { env: keys, cwd });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const results = (JSON.parse(run.stdout) as { result: { connections: Array<{ connection: string; status: number }> } }).result.connections;
      expect(results.map((r) => [r.connection, r.status])).toEqual([
        ['north', 0],
        ['south', 0],
      ]);
    } finally {
      for (const r of [north, south]) r.child.kill('SIGTERM');
      await Promise.all([north.exited, south.exited]);
    }
  }, 90_000);

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
