/**
 * Issue 31, one deployment for several sites: two fake platforms (two sites whose record ids
 * overlap) and two Salesforce emulators (two orgs), named as two connections in one config file.
 * Each org must end up the exact mirror of its own site; one connection's failure, Ctrl-C, lock or
 * allowance guard must leave the other alone; two connections on one org are refused; nothing of
 * one connection shows in the other's output, and no secret anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, type CliResult, outputOf, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import { donationSynced, expectFullMirror, keyOf, removeDir, tempCwd, unstamp, waitFor, type Result } from './helpers.js';
import { STALL_MS, WAIT_MS } from '../support/patience.js';
import { NAMES, secretsOf, writeTwoSites, type Name } from '../support/twoSites.js';

interface ConnectionEntry {
  connection: string;
  status: number;
  result: (Result & { where?: { connection?: string; site: { id: number }; org: { orgId: string | null } } }) | null;
  warnings: string[];
  error?: string;
  actions?: string[];
}

interface Several {
  status: number;
  result: { connections: ConnectionEntry[] };
  warnings: string[];
}

describe('several sites from one config file', () => {
  const stacks = {} as Record<Name, Stack>;
  const dirs: string[] = [];
  /** What the config file takes from the environment: the secrets of both connections. */
  let secrets: Record<string, string>;

  beforeAll(async () => {
    // Two sites from different seeds, both numbering their records from the same base: ids overlap.
    stacks.north = await startStack({ site: { seed: 71, siteId: 7, segments: 1, projectsPerSegment: 2, donations: 450, newsletterSubscriptions: 4 } });
    stacks.south = await startStack({ site: { seed: 82, siteId: 8, segments: 2, projectsPerSegment: 1, donations: 40, newsletterSubscriptions: 3 } });
    secrets = secretsOf(stacks);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(NAMES.map((n) => stacks[n].close()));
    for (const d of dirs) removeDir(d);
  });

  /** A fresh folder with a config file naming both connections (each entry overridable). */
  function deployment(overrides: Partial<Record<Name, Record<string, unknown>>> = {}): string {
    const cwd = tempCwd('connections');
    dirs.push(cwd);
    return writeTwoSites(cwd, stacks, overrides);
  }

  const run = (args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, cliArgs(args), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...secrets, ...env }, stdio: 'pipe' });
      outputOf(child).then(resolve, reject);
      child.stdin.end();
    });

  async function runJson(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; body: Several; stderr: string; stdout: string }> {
    const r = await run(['--json', ...args], cwd, env);
    try {
      return { ...r, body: JSON.parse(r.stdout) as Several };
    } catch {
      throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
    }
  }

  const stateOf = (cwd: string, name: Name, file = 'state.json'): string | undefined => {
    try {
      return fs.readFileSync(path.join(cwd, '.svc-sync', name, file), 'utf8');
    } catch {
      return undefined;
    }
  };

  /** A host:port, not as the start of a longer port. */
  const hostPattern = (url: string): RegExp => new RegExp(`${new URL(url).host.replace(/\./g, '\\.')}(?!\\d)`);

  /** Everything that names the other connection: its secrets, its platform and its org. */
  const traces = (name: Name): Array<string | RegExp> => {
    const upper = name.toUpperCase();
    return [secrets[`${upper}_KEY`]!, secrets[`${upper}_TOKEN`]!, hostPattern(stacks[name].platform.url), hostPattern(stacks[name].salesforce.url)];
  };
  const expectNoTrace = (text: string, of: Name): void => {
    for (const t of traces(of)) {
      if (typeof t === 'string') expect(text).not.toContain(t);
      else expect(text).not.toMatch(t);
    }
  };

  it('the two sites overlap in record ids', () => {
    const ids = (n: Name): Set<number> => new Set(stacks[n].platform.site.donation.filter(donationSynced).map((d) => d.id));
    const south = ids('south');
    expect([...ids('north')].filter((id) => south.has(id)).length).toBeGreaterThan(10);
    expect(stacks.north.salesforce.orgId.slice(0, 15)).not.toBe(stacks.south.salesforce.orgId.slice(0, 15));
  });

  it('sync --all of both from one config: each org the exact mirror of its own site; --json holds both; each records its org', async () => {
    const cwd = deployment();
    for (const n of NAMES) stacks[n].platform.resetCounts();
    const r = await runJson(['sync', '--all', '--report', 'outcomes.csv'], cwd);
    expect(r.code).toBe(0);
    // Each side was asked with its own credentials only: no request refused on either platform or org.
    for (const n of NAMES) {
      expect(stacks[n].platform.requests.status[401] ?? 0).toBe(0);
      expect(stacks[n].platform.requests.total).toBeGreaterThan(0);
      expect(stacks[n].salesforce.calls().unauthorized).toBe(0);
    }
    expect(r.body.status).toBe(0);
    expect(r.body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 0],
    ]);
    expectFullMirror(stacks.north, stacks.north.platform.site);
    expectFullMirror(stacks.south, stacks.south.platform.site);
    // A donation id both sites have holds its own site's amount in each org.
    const shared = stacks.north.platform.site.donation
      .filter(donationSynced)
      .find((d) => stacks.south.platform.site.donation.some((s) => s.id === d.id && donationSynced(s) && s.total_amount !== d.total_amount))!;
    for (const n of NAMES) {
      const own = stacks[n].platform.site.donation.find((d) => d.id === shared.id)!;
      expect(stacks[n].salesforce.get('Svc_Donation__c', keyOf('donation', shared.id))?.TotalAmount__c).toBe(Number(own.total_amount));
    }
    for (const [i, n] of NAMES.entries()) {
      const where = r.body.result.connections[i]!.result!.where!;
      expect(where.connection).toBe(n);
      expect(where.site.id).toBe(n === 'north' ? 7 : 8);
      expect(where.org.orgId).toBe(stacks[n].salesforce.orgId.slice(0, 15));
      expect(JSON.parse(stateOf(cwd, n, 'org.json')!)).toMatchObject({ orgId: stacks[n].salesforce.orgId.slice(0, 15), instanceUrl: stacks[n].salesforce.url });
      // Whose fields each action's owner fields hold, by user id (serve keeps them only for the same user).
      const owners = (JSON.parse(stateOf(cwd, n, 'owners.json')!) as { owners: Record<string, number> }).owners;
      const action = stacks[n].platform.site.action.find((a) => a.owner !== undefined)!;
      expect(owners[String(action.id)]).toBe(action.owner!.id);
      // Each writes its own report: the name before the extension.
      expect(fs.readFileSync(path.join(cwd, `outcomes.${n}.csv`), 'utf8').split('\n').length).toBeGreaterThan(10);
    }
    expect(fs.existsSync(path.join(cwd, 'outcomes.csv'))).toBe(false);
    expect(r.stderr).toBe('');
  }, 120_000);

  it("--verbose, human and --json: nothing of one connection in the other's block, no secret anywhere", async () => {
    const cwd = deployment();
    const human = await run(['--verbose', 'sync', '--all'], cwd);
    expect(human.code).toBe(0);
    const [before, southBlock] = human.stdout.split('== connection south (site 8) ==');
    expect(before).toContain('== connection north (site 7) ==');
    const stderr = unstamp(human.stderr).split('\n');
    const northLines = stderr.filter((l) => /^(svc-sync: )?north: /.test(l)).join('\n');
    const southLines = stderr.filter((l) => /^(svc-sync: )?south: /.test(l)).join('\n');
    // The where lines: labelled once, not "north: connection north: ...".
    expect(northLines).toContain(`north: site 7 at ${new URL(stacks.north.platform.url).host}`);
    expect(northLines).toContain(`north: org ${stacks.north.salesforce.orgId.slice(0, 15)} at ${new URL(stacks.north.salesforce.url).host}`);
    expect(northLines).not.toContain('connection north:');
    expectNoTrace(`${before!}\n${northLines}`, 'south');
    expectNoTrace(`${southBlock!}\n${southLines}`, 'north');
    for (const secret of Object.values(secrets)) expect(`${human.stdout}${human.stderr}`).not.toContain(secret);

    const json = await runJson(['--verbose', 'sync'], cwd);
    expect(json.code).toBe(0);
    const [north, south] = json.body.result.connections;
    expectNoTrace(JSON.stringify(north), 'south');
    expectNoTrace(JSON.stringify(south), 'north');
    for (const secret of Object.values(secrets)) expect(`${json.stdout}${json.stderr}`).not.toContain(secret);
  }, 120_000);

  it('a wrong API key on one connection: the other still syncs, exit code the worst, --json holds both, one closing line for the failed one', async () => {
    const cwd = deployment();
    const r = await runJson(['--quiet', 'sync', '--all'], cwd, { SOUTH_KEY: 'wrong-key-0123456789abcdef' });
    expect(r.code).toBe(2);
    expect(r.body.status).toBe(2);
    const [north, south] = r.body.result.connections;
    expect(north).toMatchObject({ connection: 'north', status: 0 });
    expect(south).toMatchObject({ connection: 'south', status: 2, result: null });
    expect(south!.error).toMatch(/platform API rejected the key or URL/);
    // Cron's mail: one line per failing connection, its name first.
    const lines = unstamp(r.stderr)
      .split('\n')
      .filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc-sync: south: exit 2: platform API rejected the key or URL: .*; next: check SVC_API_KEY and SVC_API_URL/);
    expect(`${r.stdout}${r.stderr}`).not.toContain('wrong-key-0123456789abcdef');
    expect(stateOf(cwd, 'north')).toBeDefined();
    expect(stateOf(cwd, 'south')).toBeUndefined();
    // Without --json, the same: one line for the failed connection, nothing for the other.
    const human = await run(['--quiet', 'sync', '--all'], cwd, { SOUTH_KEY: 'wrong-key-0123456789abcdef' });
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(
      unstamp(human.stderr)
        .split('\n')
        .filter((l) => l !== ''),
    ).toEqual([expect.stringMatching(/^svc-sync: south: platform API rejected the key or URL/)]);
  }, 120_000);

  it("one connection given the other site's key and URL: its site guard stops it before anything is written; the other syncs", async () => {
    const cwd = deployment({ south: { SVC_API_URL: stacks.north.platform.url, SVC_API_KEY: { env: 'NORTH_KEY' } } });
    const before = stacks.south.salesforce.calls();
    const r = await runJson(['sync', '--all'], cwd);
    expect(r.code).toBe(2);
    expect(r.body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 2],
    ]);
    expect(r.body.result.connections[1]!.error).toMatch(/SVC_SITE_ID is 8, but .* serves records of site 7 .*Nothing was written/);
    // No record of the mirror is written; the org's log keeps the refusal (issue 40): one write.
    const after = stacks.south.salesforce.calls();
    expect(after.collections + after.bulk).toBe(before.collections + before.bulk + 1);
    expect(stacks.south.salesforce.records('Svc_SyncRun__c').at(-1)).toMatchObject({ Outcome__c: 'Refused', Inserted__c: 0, Updated__c: 0 });
    expect(String(stacks.south.salesforce.records('Svc_SyncRun__c').at(-1)?.Summary__c)).toMatch(/SVC_SITE_ID is 8/);
  }, 120_000);

  it('--connection picks one (where names it); object and replay refuse to guess among several (exit 2, one line)', async () => {
    const cwd = deployment();
    const one = await run(['--json', 'sync', '--all', '--connection', 'south'], cwd);
    expect(one.code).toBe(0);
    const body = JSON.parse(one.stdout) as { result: { connections?: unknown; where: { connection: string } } };
    expect(body.result.connections).toBeUndefined();
    expect(body.result.where.connection).toBe('south');
    expect(stateOf(cwd, 'north')).toBeUndefined();
    const human = await run(['sync', '--all', '--connection', 'north'], cwd, { SVC_CONNECTION: 'south' });
    expect(human.code).toBe(0);
    expect(unstamp(human.stderr).split('\n')[0]).toBe(`connection north: site 7 at ${new URL(stacks.north.platform.url).host}`);
    fs.writeFileSync(path.join(cwd, 'events.jsonl'), `${JSON.stringify({ type: 'donation', id: 1 })}\n`);
    for (const args of [
      ['object', 'donation', '1'],
      ['replay', '--file', 'events.jsonl'],
    ]) {
      const refused = await run(args, cwd);
      expect(refused.code).toBe(2);
      const lines = unstamp(refused.stderr)
        .split('\n')
        .filter((l) => l !== '');
      expect(lines).toEqual(['svc-sync: 2 connections (north, south): this command acts on one; choose it with --connection NAME']);
    }
    const object = await run(['object', 'donation', String(stacks.south.platform.site.donation.find(donationSynced)!.id), '--connection', 'south'], cwd);
    expect(object.code).toBe(0);
  }, 120_000);

  describe('one org per connection', () => {
    let twin: Emulator;
    beforeAll(async () => {
      // Another address of north's org: its own URL and session, the same org id.
      twin = await startSalesforceEmulator({ orgId: stacks.north.salesforce.orgId, apiVersion: stacks.north.salesforce.apiVersion });
    });
    afterAll(() => twin.close());

    it('the same instance URL twice: refused at load, one line naming both', async () => {
      const cwd = deployment({ south: { SF_INSTANCE_URL: `${stacks.north.salesforce.url}/` } });
      const r = await run(['sync', '--all'], cwd);
      expect(r.code).toBe(2);
      const lines = unstamp(r.stderr)
        .split('\n')
        .filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^svc-sync: connections north and south both write the org at ".*"; set SVC_SITE_KEYS=true on both \(north and south lack it\)/);
      expect(stateOf(cwd, 'north')).toBeUndefined();
    });

    it('two URLs that log in to one org: the second refused after its login, before any record; recorded, refused at the next start too', async () => {
      const cwd = deployment({ south: { SF_INSTANCE_URL: twin.url, SF_ACCESS_TOKEN: twin.accessToken } });
      const why = `both log in to org ${stacks.north.salesforce.orgId.slice(0, 15)}; set SVC_SITE_KEYS=true on both (north and south lack it)`;
      // A dry run records nothing: the refusal comes from what this process saw.
      const dry = await runJson(['--dry-run', 'sync', '--all'], cwd);
      expect(dry.code).toBe(2);
      expect(dry.body.result.connections[1]).toMatchObject({ connection: 'south', status: 2, error: `connections north and south ${why}` });
      expect(stateOf(cwd, 'north', 'org.json')).toBeUndefined();

      const r = await runJson(['sync', '--all'], cwd);
      expect(r.code).toBe(2);
      expect(r.body.result.connections.map((c) => c.status)).toEqual([0, 2]);
      expect(r.body.result.connections[1]!.error).toBe(`connections north and south ${why}`);
      expect(unstamp(r.stderr).trim()).toBe(
        `svc-sync: south: exit 2: connections north and south ${why}; next: or give south its own org; if north no longer logs in to it, delete ${path.join('.svc-sync', 'north', 'org.json')}`,
      );
      // Nothing written in the twin: its one call was the session check.
      expect(twin.records('Svc_Donation__c')).toHaveLength(0);
      expect(twin.calls().collections + twin.calls().bulk).toBe(0);
      expect(stateOf(cwd, 'south', 'org.json')).toBeUndefined();

      // South alone, north's org recorded: refused as well.
      const alone = await run(['sync', '--all', '--connection', 'south'], cwd);
      expect(alone.code).toBe(2);
      expect(unstamp(alone.stderr)).toContain(`svc-sync: connections north and south ${why}`);

      // North's record truncated (or unreadable): its org is unknown, so south may be on it; refused all the same.
      fs.writeFileSync(path.join(cwd, '.svc-sync', 'north', 'org.json'), '{"orgId": "00D');
      const blind = await run(['sync', '--all', '--connection', 'south'], cwd);
      expect(blind.code).toBe(2);
      expect(unstamp(blind.stderr)).toContain(`svc-sync: connections north and south: the org record of north (${path.join('.svc-sync', 'north', 'org.json')}) is not JSON (truncated?)`);
      expect(twin.records('Svc_Donation__c')).toHaveLength(0);
      expect(stateOf(cwd, 'south', 'org.json')).toBeUndefined();
    }, 120_000);
  });

  it("SF_MAX_API_USAGE inside one connection guards that connection's org only", async () => {
    const cwd = deployment({ north: { SF_MAX_API_USAGE: 0.5 } });
    for (const n of NAMES) stacks[n].salesforce.setApiUsage(60_000);
    try {
      const r = await runJson(['sync', '--all'], cwd);
      const [north, south] = r.body.result.connections;
      expect(north!.status).not.toBe(0);
      expect(north!.error).toMatch(/\d+ of the org's 100000 daily API requests are used \(60%\), at or above the configured maximum of 50%/);
      // South is at 60 % too, under the 90 % of the default.
      expect(south!.status).toBe(0);
      expect(r.code).toBe(north!.status);
    } finally {
      for (const n of NAMES) stacks[n].salesforce.setApiUsage(0);
    }
  }, 120_000);

  it('a run lock held on one connection: exit 75 for that one only, the other runs', async () => {
    const cwd = deployment();
    // North's first platform request is held: a run of north alone is under way, holding its lock.
    stacks.north.platform.faults.next(1, 'slow', { delayMs: 600_000 });
    const child = spawn(process.execPath, cliArgs(['sync', '--all', '--connection', 'north']), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...secrets }, stdio: 'pipe' });
    const first = outputOf(child);
    child.stdin.end();
    try {
      await waitFor(() => (fs.existsSync(path.join(cwd, '.svc-sync', 'north', 'run.lock.holder.json')) ? true : undefined), WAIT_MS, "north's run lock");
      const r = await runJson(['sync', '--all'], cwd);
      expect(r.code).toBe(75);
      expect(r.body.result.connections.map((c) => [c.connection, c.status])).toEqual([
        ['north', 75],
        ['south', 0],
      ]);
      expect(r.body.result.connections[0]!.error).toMatch(/another svc-sync run holds .*north.*run\.lock/);
      expect(stateOf(cwd, 'south')).toBeDefined();
    } finally {
      child.kill('SIGKILL');
      await first;
      stacks.north.platform.faults.clear();
    }
  }, 120_000);

  it("Ctrl-C while one connection syncs: exit 130, its progress saved, the other's state untouched; the resume finishes only what was left", async () => {
    const cwd = deployment();
    // South first, alone: its state is what the interrupted run must leave as it was.
    expect((await run(['sync', '--all', '--connection', 'south'], cwd)).code).toBe(0);
    const southState = stateOf(cwd, 'south');
    stacks.north.platform.faults.clear();
    stacks.north.platform.faults.next(1, 'slow', { path: /^\/v1\/donations\?(?:.*&)?page=3(?:&|$)/, delayMs: STALL_MS });
    const child = spawn(process.execPath, cliArgs(['sync', '--all', '--batch-size', '50']), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...secrets }, stdio: 'pipe' });
    const done = outputOf(child);
    child.stdin.end();
    const pagesDone = (): number => (JSON.parse(stateOf(cwd, 'north') ?? '{}') as { run?: { pagesDone?: { donation?: number } } }).run?.pagesDone?.donation ?? 0;
    await waitFor(() => (pagesDone() >= 2 ? true : undefined), 60_000, "north's donation page 2 in its state file");
    child.kill('SIGINT');
    const stopped = await done;
    expect(stopped.code).toBe(130);
    expect(unstamp(stopped.stderr)).toMatch(/svc-sync: north: stopped by Ctrl-C after .*progress saved in \.svc-sync\/north\/state\.json; resume with: svc-sync sync --all --batch-size 50/);
    expect(stopped.stdout).not.toContain('== connection south');
    // South did not start, and its line says so: the run does not end on north's line alone.
    expect(unstamp(stopped.stderr)).toMatch(/^svc-sync: south: not run: interrupted by Ctrl-C$/m);
    expect(pagesDone()).toBe(2);
    expect(stateOf(cwd, 'south')).toBe(southState);

    stacks.north.platform.resetCounts();
    const resumed = await runJson(['sync', '--all', '--batch-size', '50'], cwd);
    expect(resumed.code).toBe(0);
    const [north] = resumed.body.result.connections;
    expect(north!.result!.resumed).toBe(true);
    // Only what was left: no collection done before the stop listed again, nor the first donation page.
    const listed = stacks.north.platform.requests.log.map((e) => e.url).filter((u) => /^\/v1\/donations\?/.test(u) && !/per_page=1(&|$)/.test(u));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.some((u) => /[?&]page=1(&|$)/.test(u))).toBe(false);
    const lists = stacks.north.platform.requests.log.map((e) => e.url).filter((u) => /^\/v1\/[a-z-]+\?/.test(u));
    expect(lists.filter((u) => !/^\/v1\/(donations|newsletter-subscriptions)\?/.test(u))).toEqual([]);
    expectFullMirror(stacks.north, stacks.north.platform.site);
    expectFullMirror(stacks.south, stacks.south.platform.site);
  }, 120_000);

  it('doctor and audit over both connections: one entry each, clean', async () => {
    const cwd = deployment();
    const doctor = await runJson(['doctor'], cwd);
    expect(doctor.code).toBe(0);
    expect(doctor.body.result.connections.map((c) => [c.connection, c.status, (c.result as unknown as { where: { connection: string } }).where.connection])).toEqual([
      ['north', 0, 'north'],
      ['south', 0, 'south'],
    ]);
    const audit = await runJson(['audit', '--report', 'drift.csv'], cwd);
    expect(audit.code).toBe(0);
    expect(audit.body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 0],
    ]);
    for (const n of NAMES) expect(fs.existsSync(path.join(cwd, `drift.${n}.csv`))).toBe(true);
  }, 120_000);
});
