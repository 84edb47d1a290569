/**
 * Issue 53, what the org shares and what stays per connection (SITES.md "What stays per
 * connection", decisions 2 and 5), through dist/cli.js: two sites (6 and 7, overlapping ids) as
 * two connections on one emulated org. Run records name their connection and site, an error
 * record its site; sync --all's orphan candidates and queue's failed events name qualified keys;
 * the org's daily allowance is one: a cron run that finds it used up stops the other connection
 * in a running serve before it calls; an org whose log lacks the new fields is written without
 * them, said once with the fix, and doctor names them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, type CliResult, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { donationSynced, keyOf, removeDir, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { runIn, runJsonIn, connectionEntry } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 24, newsletterSubscriptions: 2 };
const HOOKS = { north: 'north-hook-3f81c2', south: 'south-hook-7d20e9' };

interface Body {
  status: number;
  warnings?: string[];
  result: Record<string, unknown> & { connections?: Array<{ connection: string; status: number }> };
}
/** Polls an asynchronous check (a CLI run) until it gives a value; fails after `timeoutMs`. */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface FailedShown {
  id: number;
  refType: string;
  refId: number;
  lastError: string;
  connection?: string;
  key?: string;
}

describe('one org, two sites: what the org shares, what stays per connection', () => {
  let north: Stack;
  let south: Stack;
  let cwd: string;
  const dirs: string[] = [];

  const env = (): Record<string, string> => ({
    NORTH_KEY: north.env.SVC_API_KEY!,
    SOUTH_KEY: south.env.SVC_API_KEY!,
    ORG_TOKEN: north.env.SF_ACCESS_TOKEN!,
    NORTH_HOOK: HOOKS.north,
    SOUTH_HOOK: HOOKS.south,
  });
  const run = (args: string[]): Promise<CliResult> => runIn(cwd, env(), args);
  const runJson = (args: string[]): Promise<{ code: number; body: Body; stderr: string }> => runJsonIn<Body>(cwd, env(), args);
  const sharedId = (): number => {
    const southIds = new Set(south.platform.site.donation.filter(donationSynced).map((d) => d.id));
    return north.platform.site.donation.find((d) => donationSynced(d) && southIds.has(d.id))!.id;
  };

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 63, siteId: 6 } });
    south = await startStack({ site: { ...SITE, seed: 74, siteId: 7 } });
    cwd = tempCwd('sites-shared');
    dirs.push(cwd);
    const entry = (stack: Stack, site: number, name: 'north' | 'south'): Record<string, unknown> =>
      connectionEntry(stack, site, name, north.salesforce, { SVC_WEBHOOK_SECRET: { env: `${name.toUpperCase()}_HOOK` } });
    const config = { SVC_SITE_KEYS: true, connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('run records name their connection and site; an error record its site', async () => {
    const org = north.salesforce;
    const id = sharedId();
    org.addValidationRule({ object: 'Svc_Donation__c', keys: [`6:${keyOf('donation', id)}`], message: 'Amount refused by a rule', field: 'Amount__c' });
    try {
      const r = await runJson(['sync', '--all']);
      expect(r.body.result.connections?.map((c) => [c.connection, c.status])).toEqual([
        ['north', 1],
        ['south', 0],
      ]);
    } finally {
      org.removeValidationRules();
    }
    const runs = org.records('Svc_SyncRun__c').map((x) => [x.Command__c, x.SvcConnection__c, x.SvcSiteId__c]);
    expect(runs).toEqual(
      expect.arrayContaining([
        ['sync', 'north', '6'],
        ['sync', 'south', '7'],
      ]),
    );
    expect(org.get('Svc_SyncError__c', `6:${keyOf('donation', id)}`)).toMatchObject({ SvcSiteId__c: '6', Status__c: 'Open' });
    // The same id of the other site is its own record, and no error of it.
    expect(org.get('Svc_SyncError__c', `7:${keyOf('donation', id)}`)).toBeUndefined();
  }, 180_000);

  it("sync --all names its orphan candidates as the org holds them (the site's prefix)", async () => {
    const southIds = new Set(south.platform.site.donation.filter(donationSynced).map((d) => d.id));
    const gone = north.platform.site.donation.find((d) => donationSynced(d) && southIds.has(d.id) && d.id !== sharedId())!.id;
    expect(north.platform.remove('donation', gone)).toBe(true);
    const r = await runJson(['sync', '--all', '--connection', 'north']);
    expect(r.code).toBe(0);
    const candidates = (r.body.result as { orphanCandidates?: Array<{ key: string }> }).orphanCandidates;
    expect(candidates?.map((c) => c.key)).toEqual([`6:${keyOf('donation', gone)}`]);
    const text = await run(['sync', '--all', '--connection', 'north']);
    expect(text.stdout + text.stderr).toContain(`6:${keyOf('donation', gone)}`);
  }, 180_000);

  describe('serve with both connections', () => {
    let child: ChildProcess | undefined;
    let stderr = '';
    afterAll(async () => {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      await exited;
    });

    const failedEvents = async (): Promise<FailedShown[]> => {
      const q = await runJson(['queue']);
      expect(q.code).toBe(0);
      return (q.body.result as { failed: FailedShown[] }).failed;
    };

    it("queue names a failed event's record by its qualified key; a cron run that finds the org's allowance used up stops serve's other connection before it calls", async () => {
      const proc = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
      const post = (site: number, secret: string, id: number): Promise<Response> =>
        fetch(`${base}/webhooks`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Webhook-Secret': secret },
          body: JSON.stringify({ object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: site }),
        });

      // A record the org refuses: its event fails, and queue names it as the org holds it.
      const org = north.salesforce;
      const id = sharedId();
      const key = `6:${keyOf('donation', id)}`;
      org.addValidationRule({ object: 'Svc_Donation__c', keys: [key], message: 'Amount refused by a rule', field: 'Amount__c' });
      north.platform.update('donation', id, { message: 'refused in the org' });
      expect((await post(6, HOOKS.north, id)).status).toBe(200);
      const failed = await until(
        async () => {
          const f = await failedEvents();
          return f.length > 0 ? f : undefined;
        },
        60_000,
        `the event to fail (serve said:\n${stderr})`,
      );
      expect(failed.map((f) => [f.connection, f.key])).toEqual([['north', key]]);
      const text = await run(['queue']);
      expect(text.stdout).toContain(key);
      org.removeValidationRules();

      // A cron run of north finds the org's allowance past its maximum and stops, keeping the figure.
      org.setApiUsage(95_000);
      const cron = await run(['sync', '--connection', 'north']);
      expect(cron.code).not.toBe(0);
      expect(cron.stdout + cron.stderr).toMatch(/stopping: 9500\d of the org's 100000 daily API requests are used/);
      expect(fs.readdirSync(path.join(cwd, '.svc-sync')).filter((f) => f.startsWith('allowance-'))).toHaveLength(1);

      // South in serve, whose own last figure was low, meets the org's figure and calls nothing.
      const calls = org.requests().length;
      const southId = south.platform.site.donation.find((d) => donationSynced(d))!.id;
      south.platform.update('donation', southId, { message: 'changed on site 7' });
      expect((await post(7, HOOKS.south, southId)).status).toBe(200);
      const refused = await until(async () => (await failedEvents()).find((f) => f.connection === 'south'), 60_000, `south's event to fail (serve said:\n${stderr})`);
      expect(refused.lastError).toMatch(/daily API requests are used \(95%\) \(as another connection of this org read it \d+ s ago\)/);
      expect(refused.key).toBe(`7:${keyOf('donation', southId)}`);
      expect(org.requests().length).toBe(calls);
      org.setApiUsage(0);
    }, 180_000);
  });

  it('an org whose log was set up before the new fields: the run is written without them and says how to add them; doctor names them', async () => {
    const org = north.salesforce;
    org.removeField('Svc_SyncRun__c', 'SvcConnection__c');
    org.removeField('Svc_SyncRun__c', 'SvcSiteId__c');
    org.removeField('Svc_SyncError__c', 'SvcSiteId__c');
    const before = org.records('Svc_SyncRun__c').length;
    const r = await run(['sync', '--connection', 'south']);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain(
      'salesforce log: the org lacks Svc_SyncRun__c.SvcConnection__c and Svc_SyncRun__c.SvcSiteId__c (its sync log was set up before they were added): written without them; add them: svc-sync schema --project svc-org && cd svc-org && sf project deploy start',
    );
    expect(org.records('Svc_SyncRun__c').length).toBe(before + 1);
    const doctor = await run(['doctor', '--connection', 'south']);
    expect(doctor.code).not.toBe(0);
    expect(doctor.stdout).toContain('svc-sync schema --project svc-org && cd svc-org && sf project deploy start');
    expect(doctor.stdout).toMatch(/Svc_SyncRun__c +2: SvcConnection__c, SvcSiteId__c\n +Svc_SyncError__c +1: SvcSiteId__c\n/);
  }, 120_000);
});
