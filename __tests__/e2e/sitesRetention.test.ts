/**
 * Issue 53 through dist/cli.js: two sites (6 and 7) as two connections on one emulated org, with
 * different run retention (north 30 days, south 90). Old run records of both in the org: each
 * connection's daily clean-up deletes only its own runs past its own days. An org whose log lacks
 * SvcConnection__c and SvcSiteId__c keeps every run record, and the run says why with the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd } from './helpers.js';
import { agedRuns, runIn, runJsonIn, connectionEntry } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 1 };
const RUNS = 'Svc_SyncRun__c';
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString().replace('Z', '+0000');
const FIX = 'svc-sync schema --project svc-org && cd svc-org && sf project deploy start';

interface Body {
  status: number;
  result: { logRetention?: { deleted: number; calls: number; kept?: string } };
}

/** Every salesforce-log.json (the day's clean-up done) under `dir`. */
function retentionFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => path.basename(f) === 'salesforce-log.json').map((f) => path.join(dir, f));
}

describe('one org, two sites: each connection prunes only its own runs', () => {
  let north: Stack;
  let south: Stack;
  let cwd: string;

  const env = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });
  const runJson = (args: string[]): Promise<{ code: number; body: Body; stderr: string }> => runJsonIn<Body>(cwd, env(), args);
  /** The org's run records as [connection, site, finished] rows, sorted. */
  const runs = (): string[][] =>
    north.salesforce
      .records(RUNS)
      .map((r) => [String(r.SvcConnection__c), String(r.SvcSiteId__c), String(r.FinishedAt__c)])
      .sort((a, b) => a.join().localeCompare(b.join()));
  const runsOf = (connection: string): Array<Record<string, unknown>> => north.salesforce.records(RUNS).filter((r) => r.SvcConnection__c === connection);

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 31, siteId: 6 } });
    south = await startStack({ site: { ...SITE, seed: 42, siteId: 7 } });
    cwd = tempCwd('sites-retention');
    const entry = (stack: Stack, site: number, name: string, days: number): Record<string, unknown> => connectionEntry(stack, site, name, north.salesforce, { SVC_RUN_RETENTION_DAYS: days });
    const config = { SVC_SITE_KEYS: true, connections: { north: entry(north, 6, 'north', 30), south: entry(south, 7, 'south', 90) } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close()]);
    removeDir(cwd);
  });

  it('north (30 days) deletes its 60-day run and leaves south its own; south (90 days) deletes only its 120-day run', async () => {
    // Two runs of each connection in the org (the first of each does the day's clean-up: nothing due).
    for (const args of [['sync', '--all'], ['sync']]) {
      const r = await runJson(args);
      if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    }
    const org = north.salesforce;
    const { northOld, northNew, southOld, southMid } = agedRuns(org);
    for (const f of retentionFiles(cwd)) fs.rmSync(f);
    const before = runs();

    const n = await runJson(['sync', '--connection', 'north']);
    expect(n.code).toBe(0);
    expect(n.body.result.logRetention).toMatchObject({ deleted: 1 });
    // Gone: north's 60-day run only. South's 60- and 120-day runs, past north's days, stay. North's new run is added.
    expect(org.get(RUNS, String(northOld.RunKey__c))).toBeUndefined();
    for (const kept of [northNew, southOld, southMid]) expect(org.get(RUNS, String(kept.RunKey__c))).toBeDefined();
    expect(runs()).toHaveLength(before.length);

    const s = await runJson(['sync', '--connection', 'south']);
    expect(s.code).toBe(0);
    expect(s.body.result.logRetention).toMatchObject({ deleted: 1 });
    expect(org.get(RUNS, String(southOld.RunKey__c))).toBeUndefined();
    for (const kept of [northNew, southMid]) expect(org.get(RUNS, String(kept.RunKey__c))).toBeDefined();
    expect(runs().filter(([c, site]) => (c === 'north' && site !== '6') || (c === 'south' && site !== '7'))).toEqual([]);
  }, 180_000);

  it('an org whose log lacks the fields: no run record deleted, said once with the fix; the day after nothing is said', async () => {
    const org = north.salesforce;
    const [old] = runsOf('north');
    org.editRecord(RUNS, String(old!.RunKey__c), { FinishedAt__c: ago(60) });
    org.removeField(RUNS, 'SvcConnection__c');
    org.removeField(RUNS, 'SvcSiteId__c');
    for (const f of retentionFiles(cwd)) fs.rmSync(f);
    const count = org.records(RUNS).length;
    org.resetCalls();
    const r = await runIn(cwd, env(), ['sync', '--connection', 'north']);
    expect(r.code).toBe(0);
    const said = `salesforce log: no run record deleted: the org's ${RUNS} lacks SvcConnection__c and SvcSiteId__c, so this connection cannot tell its own runs from another site's in this shared org; add them: ${FIX}`;
    expect((r.stdout + r.stderr).split(said)).toHaveLength(2);
    // Nothing deleted; this run's own record is written (without the fields).
    expect(org.records(RUNS)).toHaveLength(count + 1);
    expect(org.requests().filter((q) => q.startsWith('DELETE'))).toEqual([]);
    // The clean-up is daily: the next run neither tries again nor says it again.
    const again = await runIn(cwd, env(), ['sync', '--connection', 'north']);
    expect(again.code).toBe(0);
    expect(again.stdout + again.stderr).not.toContain('no run record deleted');
  }, 180_000);
});
