/**
 * Issue 53, several sites into one org: two fake platforms (sites 6 and 7, whose record ids
 * overlap) and one Salesforce emulator, named as two connections with SVC_SITE_KEYS=true. The
 * shared org must hold each site's records field by field as that site alone would write them
 * (checked against a reference org per site), under `6:` and `7:` keys; a second sync writes
 * nothing; one site's audit --delete-orphans deletes its own record and never the other site's
 * of the same id; webhooks of both sites to one serve land on the right records.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, type CliResult, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import { OBJECTS, cli, donationSynced, keyOf, removeDir, tempCwd, totals, waitFor, writeCalls, type Result } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { runIn, runJsonIn, siteRows, connectionEntry } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 60, newsletterSubscriptions: 4 };
const HOOKS = { north: 'north-hook-5e2a71', south: 'south-hook-9c04b8' };

interface Several {
  status: number;
  warnings?: string[];
  result: { connections: Array<{ connection: string; status: number; result: Result | null; error?: string }>; drift?: Array<{ key: string }>; deletions?: Array<{ key: string }> };
}

describe('several sites into one org with site-qualified keys', () => {
  let north: Stack;
  let south: Stack;
  /** The org each site writes alone (bare keys): the reference for the shared org. */
  let refNorth: Emulator;
  const dirs: string[] = [];
  let cwd: string;

  const env = (): Record<string, string> => ({
    NORTH_KEY: north.env.SVC_API_KEY!,
    SOUTH_KEY: south.env.SVC_API_KEY!,
    ORG_TOKEN: north.env.SF_ACCESS_TOKEN!,
    NORTH_HOOK: HOOKS.north,
    SOUTH_HOOK: HOOKS.south,
  });

  /** Both connections on north's org (one instance URL, one session), each its own site and platform. */
  function writeConfig(dir: string): void {
    const entry = (stack: Stack, site: number, name: 'north' | 'south'): Record<string, unknown> =>
      connectionEntry(stack, site, name, north.salesforce, { SVC_WEBHOOK_SECRET: { env: `${name.toUpperCase()}_HOOK` } });
    const config = { SVC_SITE_KEYS: true, connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } };
    fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }

  const run = (args: string[], dir = cwd): Promise<CliResult> => runIn(dir, env(), args);
  const runJson = (args: string[]): Promise<{ code: number; body: Several; stderr: string }> => runJsonIn<Several>(cwd, env(), args);

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 61, siteId: 6 } });
    south = await startStack({ site: { ...SITE, seed: 72, siteId: 7, donations: 45 } });
    refNorth = await startSalesforceEmulator({ apiVersion: north.salesforce.apiVersion });
    // Each site alone, bare keys: north into the reference org, south into its own stack's org.
    for (const [stack, org] of [
      [north, refNorth],
      [south, south.salesforce],
    ] as const) {
      const dir = tempCwd('sites-ref');
      dirs.push(dir);
      const alone = await cli(stack, ['sync', '--all'], dir, undefined, { ...stack.env, SF_INSTANCE_URL: org.url, SF_ACCESS_TOKEN: org.accessToken, SVC_SALESFORCE_LOG: 'off' });
      expect(alone.code).toBe(0);
    }
    cwd = tempCwd('sites-one-org');
    dirs.push(cwd);
    writeConfig(cwd);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close(), refNorth.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('the two sites overlap in record ids', () => {
    const ids = (s: Stack): Set<number> => new Set(s.platform.site.donation.filter(donationSynced).map((d) => d.id));
    const southIds = ids(south);
    expect([...ids(north)].filter((id) => southIds.has(id)).length).toBeGreaterThan(10);
  });

  it('sync --all of both: the org holds each site field by field as it alone would, under its own prefix; a second sync writes nothing', async () => {
    const r = await runJson(['sync', '--all']);
    expect(r.code).toBe(0);
    expect(r.body.result.connections.map((c) => [c.connection, c.status])).toEqual([
      ['north', 0],
      ['south', 0],
    ]);
    const org = north.salesforce;
    for (const o of OBJECTS) expect({ o, n: siteRows(org, '6:')[o]!.length > 0 && siteRows(org, '7:')[o]!.length > 0 }).toEqual({ o, n: true });
    expect(siteRows(org, '6:')).toEqual(siteRows(refNorth, ''));
    expect(siteRows(org, '7:')).toEqual(siteRows(south.salesforce, ''));
    // Every record of the org is one site's: no bare key, no third prefix.
    for (const o of OBJECTS) expect(org.records(o).filter((x) => !/^[67]:/.test(x.SvcId__c))).toEqual([]);
    const donations = org.records('Svc_Donation__c').length;
    expect(donations).toBe(refNorth.records('Svc_Donation__c').length + south.salesforce.records('Svc_Donation__c').length);

    const before = writeCalls(north);
    const again = await runJson(['sync', '--all']);
    expect(again.code).toBe(0);
    for (const c of again.body.result.connections) {
      const sum = totals(c.result!);
      expect({ connection: c.connection, inserted: sum.inserted, updated: sum.updated, failed: sum.failed }).toEqual({ connection: c.connection, inserted: 0, updated: 0, failed: 0 });
    }
    expect(writeCalls(north)).toBe(before);
    expect(siteRows(org, '6:')).toEqual(siteRows(refNorth, ''));
    expect(siteRows(org, '7:')).toEqual(siteRows(south.salesforce, ''));
  }, 180_000);

  it("audit --delete-orphans of one connection deletes its site's record and never the other site's of the same id", async () => {
    const southIds = new Set(south.platform.site.donation.filter(donationSynced).map((d) => d.id));
    const shared = north.platform.site.donation.find((d) => donationSynced(d) && southIds.has(d.id));
    expect(shared).toBeDefined();
    const id = shared!.id;
    const org = north.salesforce;
    expect(org.get('Svc_Donation__c', `6:${keyOf('donation', id)}`)).toBeDefined();
    expect(org.get('Svc_Donation__c', `7:${keyOf('donation', id)}`)).toBeDefined();
    expect(north.platform.remove('donation', id)).toBe(true);
    // A record an earlier single-site run left with a bare key: no site's for sure.
    const seeded = await fetch(`${org.url}/services/data/v${org.apiVersion}/composite/sobjects/Svc_Segment__c/SvcId__c`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${org.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ allOrNone: false, records: [{ attributes: { type: 'Svc_Segment__c' }, SvcId__c: 'Segment_999999', Name: 'Left by a single site' }] }),
    });
    expect(seeded.status).toBe(200);

    // South's audit sees nothing of north's: no orphan, no drift; the bare key reported, not its own.
    const southAudit = await runJson(['audit', '--connection', 'south']);
    expect(southAudit.code).toBe(0);
    expect(southAudit.body.result.drift).toEqual([]);
    expect(southAudit.body.warnings).toEqual([expect.stringMatching(/^1 records with no site prefix: left alone/)]);

    const r = await runJson(['audit', '--delete-orphans', '--connection', 'north']);
    expect(r.code).toBe(0);
    expect(r.body.warnings).toEqual([expect.stringMatching(/^1 records with no site prefix: left alone/)]);
    expect(r.body.result.deletions?.map((d) => d.key)).toEqual([`6:${keyOf('donation', id)}`]);
    expect(org.get('Svc_Segment__c', 'Segment_999999')).toBeDefined();
    expect(org.get('Svc_Donation__c', `6:${keyOf('donation', id)}`)).toBeUndefined();
    expect(org.get('Svc_Donation__c', `7:${keyOf('donation', id)}`)).toBeDefined();
    expect(siteRows(org, '7:')).toEqual(siteRows(south.salesforce, ''));
  }, 120_000);

  it('output names records as the org holds them: --json, dry-run lists, audit rows and --report carry the site prefix', async () => {
    const southIds = new Set(south.platform.site.donation.filter(donationSynced).map((d) => d.id));
    const own = north.platform.site.donation.find((d) => donationSynced(d) && !southIds.has(d.id))!;
    north.platform.update('donation', own.id, { message: 'seen by the audit' });
    const key = `6:${keyOf('donation', own.id)}`;

    const audit = await runJson(['audit', '--connection', 'north', '--types', 'donations', '--report', 'drift.csv']);
    expect(audit.body.result.drift?.map((d) => d.key)).toEqual([key]);
    expect(fs.readFileSync(path.join(cwd, 'drift.csv'), 'utf8')).toContain(`,${key},`);

    const dry = await runJson(['--dry-run', 'sync', '--all', '--connection', 'north', '--report', 'outcomes.csv']);
    expect(dry.code).toBe(0);
    const records = (dry.body.result as unknown as { records: Array<{ key: string; action: string }> }).records;
    expect(records.filter((x) => x.action === 'update').map((x) => x.key)).toEqual([key]);
    // Skipped records too (not eligible): every key listed is north's, qualified.
    expect(records.filter((x) => !x.key.startsWith('6:'))).toEqual([]);
    expect(fs.readFileSync(path.join(cwd, 'outcomes.csv'), 'utf8')).toContain(`Svc_Donation__c,${key},update`);
    const text = await run(['--dry-run', '--verbose', 'sync', '--all', '--connection', 'north']);
    expect(text.stdout).toContain(key);
  }, 120_000);

  describe('serve', () => {
    let child: ChildProcess | undefined;
    let stderr = '';
    afterAll(async () => {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      await exited;
    });

    it('holds both connections of the org; webhooks of both sites for the same id land on their own records', async () => {
      const proc = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');

      const southIds = new Set(south.platform.site.donation.filter(donationSynced).map((d) => d.id));
      const target = north.platform.site.donation.find((d) => donationSynced(d) && southIds.has(d.id))!;
      const id = target.id;
      north.platform.update('donation', id, { message: 'changed on site 6' });
      south.platform.update('donation', id, { message: 'changed on site 7' });
      const post = (site: number, secret: string): Promise<Response> =>
        fetch(`${base}/webhooks`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Webhook-Secret': secret },
          body: JSON.stringify({ object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: site }),
        });
      expect((await post(6, HOOKS.north)).status).toBe(200);
      expect((await post(7, HOOKS.south)).status).toBe(200);
      const org = north.salesforce;
      const message = (site: number): unknown => org.get('Svc_Donation__c', `${site}:${keyOf('donation', id)}`)?.Message__c;
      await waitFor(() => (message(6) === 'changed on site 6' && message(7) === 'changed on site 7' ? true : undefined), 60_000, `both donations to change (serve said:\n${stderr})`);
      // Nothing bare was written (the one bare key is the audit test's, left alone), and no refusal of the shared org was logged.
      const bare = OBJECTS.flatMap((o) => org.records(o).filter((x) => !/^[67]:/.test(x.SvcId__c))).map((x) => x.SvcId__c);
      expect(bare).toEqual(['Segment_999999']);
      expect(stderr).not.toMatch(/error/);
    }, 120_000);
  });
});
