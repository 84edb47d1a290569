/**
 * Issue 53's migration, whole (SITES.md, "Migration"): an org one site filled with bare keys, that
 * site's keys qualified with `keys qualify --apply`, then a second site of overlapping ids added
 * beside it in the same config. Both sites end exact under their own prefixes, the first site's
 * records keep their Salesforce Ids (nothing re-inserted), and neither a second --apply nor a
 * second sync writes anything.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { CliResult } from '../../fixtures/cli.js';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { OBJECTS, cli, removeDir, tempCwd, totals, writeCalls, type Result } from './helpers.js';
import { runIn, runJsonIn, siteRows, connectionEntry } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 50, newsletterSubscriptions: 4 };

interface Connections {
  result: { connections: Array<{ connection: string; status: number; result: Result | null }> };
}

/** Salesforce Id of every record of the org, by its key as the org holds it. */
function idsByKey(org: Emulator): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of OBJECTS) for (const r of org.records(o)) out.set(`${o}/${r.SvcId__c}`, r.Id);
  return out;
}

describe('several sites into one org: the org one site filled, its keys qualified, then the second site', () => {
  let north: Stack;
  let south: Stack;
  /** The org south writes alone (bare keys): the reference for its part of the shared org. */
  let refSouth: Emulator;
  /** North alone before the migration, as the reference for its part. */
  let refNorth: ReturnType<typeof siteRows>;
  const dirs: string[] = [];
  let cwd: string;

  const secrets = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });

  /** The deployment's config file: north alone first (bare keys), then both with SVC_SITE_KEYS. */
  function writeConfig(both: boolean): void {
    const entry = (stack: Stack, site: number, name: string): Record<string, unknown> => connectionEntry(stack, site, name, north.salesforce);
    const config = both ? { SVC_SITE_KEYS: true, connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } } : { connections: { north: entry(north, 6, 'north') } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }

  const run = (args: string[]): Promise<CliResult> => runIn(cwd, secrets(), args);
  const runJson = <T>(args: string[]): Promise<{ code: number; body: T; stderr: string }> => runJsonIn<T>(cwd, secrets(), args);

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 83, siteId: 6 } });
    south = await startStack({ site: { ...SITE, seed: 94, siteId: 7, donations: 40 } });
    refSouth = await startSalesforceEmulator({ apiVersion: north.salesforce.apiVersion });
    const alone = tempCwd('sites-migration-ref');
    dirs.push(alone);
    const ref = await cli(south, ['sync', '--all'], alone, undefined, { ...south.env, SF_INSTANCE_URL: refSouth.url, SF_ACCESS_TOKEN: refSouth.accessToken, SVC_SALESFORCE_LOG: 'off' });
    expect(ref.code).toBe(0);
    cwd = tempCwd('sites-migration');
    dirs.push(cwd);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close(), refSouth.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('north alone fills the org with bare keys', async () => {
    writeConfig(false);
    const r = await run(['sync', '--all', '--connection', 'north']);
    expect(r.code).toBe(0);
    refNorth = siteRows(north.salesforce, '');
    for (const o of OBJECTS) expect({ o, bare: north.salesforce.records(o).every((x) => !/^\d+:/.test(x.SvcId__c)) }).toEqual({ o, bare: true });
  }, 120_000);

  it('keys qualify --apply moves them onto 6:, Ids kept, and again writes nothing; south added beside it: both exact, nothing of north re-inserted, a late --apply refused, a second sync writes nothing', async () => {
    const org = north.salesforce;
    const before = idsByKey(org);
    const qualify = await run(['keys', 'qualify', '--connection', 'north', '--apply']);
    expect({ code: qualify.code, stderr: qualify.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const qualified = idsByKey(org);
    expect(qualified.size).toBe(before.size);
    for (const [key, id] of before) expect({ key, id: qualified.get(key.replace('/', '/6:')) }).toEqual({ key, id });

    // Idempotent: a second --apply finds no bare key and writes nothing.
    const beforeAgain = writeCalls(north);
    const again = await run(['keys', 'qualify', '--connection', 'north', '--apply']);
    expect(again.code).toBe(0);
    expect(writeCalls(north)).toBe(beforeAgain);
    expect(idsByKey(org)).toEqual(qualified);

    writeConfig(true);
    const both = await runJson<Connections>(['sync', '--all']);
    expect(both.code).toBe(0);
    const byName = new Map(both.body.result.connections.map((c) => [c.connection, c]));
    expect(totals(byName.get('north')!.result!).inserted).toBe(0);
    expect(totals(byName.get('south')!.result!).inserted).toBeGreaterThan(0);
    // North's records are the ones the migration kept, Id for Id; south's are its own.
    const after = idsByKey(org);
    for (const [key, id] of qualified) expect({ key, id: after.get(key) }).toEqual({ key, id });
    expect(siteRows(org, '6:')).toEqual(refNorth);
    expect(siteRows(org, '7:')).toEqual(siteRows(refSouth, ''));
    for (const o of OBJECTS) expect(org.records(o).filter((x) => !/^[67]:/.test(x.SvcId__c))).toEqual([]);

    // Once south has run on the org, whose a bare key would be cannot be told: refused, nothing written.
    const writes = writeCalls(north);
    const late = await run(['keys', 'qualify', '--connection', 'north', '--apply']);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/south/);
    const second = await runJson<Connections>(['sync', '--all']);
    expect(second.code).toBe(0);
    for (const c of second.body.result.connections) {
      const sum = totals(c.result!);
      expect({ connection: c.connection, inserted: sum.inserted, updated: sum.updated, failed: sum.failed }).toEqual({ connection: c.connection, inserted: 0, updated: 0, failed: 0 });
    }
    expect(writeCalls(north)).toBe(writes);
    expect(idsByKey(org)).toEqual(after);
  }, 240_000);
});
