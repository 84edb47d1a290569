/**
 * Through dist/cli.js: two sites (6 and 7) as two connections of one `serve` on one
 * emulated org (SVC_SITE_KEYS), with different run retention (north 30 days, south 90). Each
 * connection's daily clean-up, after its first batch, deletes only its own runs past its own days.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { WAIT_MS } from '../support/patience.js';
import { reap } from '../support/reap.js';
import { removeDir, tempCwd, waitFor } from './helpers.js';
import { agedRuns, connectionEntry, runIn } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 1 };
const RUNS = 'Svc_SyncRun__c';
const HOOK = { north: 'north-hook-secret-71ad', south: 'south-hook-secret-0c4e' };

describe('one serve, two sites on one org: each connection prunes only its own runs', () => {
  let north: Stack;
  let south: Stack;
  let cwd: string;
  let child: ChildProcess | undefined;

  const env = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 31, siteId: 6 } });
    south = await startStack({ site: { ...SITE, seed: 42, siteId: 7 } });
    cwd = tempCwd('serve-sites-retention');
    const entry = (stack: Stack, site: number, name: 'north' | 'south', days: number): Record<string, unknown> =>
      connectionEntry(stack, site, name, north.salesforce, { SVC_RUN_RETENTION_DAYS: days, SVC_WEBHOOK_SECRET: HOOK[name] });
    const config = { SVC_SITE_KEYS: true, connections: { north: entry(north, 6, 'north', 30), south: entry(south, 7, 'south', 90) } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    if (child) await reap([child]);
    await Promise.all([north.close(), south.close()]);
    removeDir(cwd);
  });

  it("north's first batch deletes its 60-day run, south's 60-day run stays; south's deletes only its 120-day run", async () => {
    for (const args of [['sync', '--all'], ['sync']]) {
      const r = await runIn(cwd, env(), args);
      if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    }
    const org = north.salesforce;
    const { northOld, northNew, southOld, southMid } = agedRuns(org);
    for (const f of (fs.readdirSync(cwd, { recursive: true }) as string[]).filter((f) => path.basename(f) === 'salesforce-log.json')) fs.rmSync(path.join(cwd, f));

    let stderr = '';
    child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    const post = async (name: 'north' | 'south', stack: Stack, site: number): Promise<void> => {
      const event = { object_type: 'Donation', object_id: stack.platform.site.donation[0]!.id, event_type: 'donations.update', application: 'Kentaa', site_id: site };
      const res = await fetch(`${base}/webhooks/${name}/${HOOK[name]}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      expect(res.status).toBe(200);
    };

    await post('north', north, 6);
    await waitFor(() => (org.get(RUNS, String(northOld.RunKey__c)) === undefined ? true : undefined), WAIT_MS, "north's 60-day run deleted");
    await waitFor(() => (stderr.includes('connection north: salesforce log: retention deleted 1 old record(s)') ? true : undefined), WAIT_MS, "north's clean-up said");
    // South's runs, past north's days, stay: north deletes only its own.
    for (const kept of [northNew, southOld, southMid]) expect(org.get(RUNS, String(kept.RunKey__c))).toBeDefined();

    await post('south', south, 7);
    await waitFor(() => (org.get(RUNS, String(southOld.RunKey__c)) === undefined ? true : undefined), WAIT_MS, "south's 120-day run deleted");
    await waitFor(() => (stderr.includes('connection south: salesforce log: retention deleted 1 old record(s)') ? true : undefined), WAIT_MS, "south's clean-up said");
    for (const kept of [northNew, southMid]) expect(org.get(RUNS, String(kept.RunKey__c))).toBeDefined();
  }, 180_000);
});
