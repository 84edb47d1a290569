/**
 * Issue 53, the gift projection in a shared NPSP org: two sites of overlapping ids projected with
 * SVC_SITE_KEYS into one emulated NPSP org (its automation on: households, primary contact roles,
 * payments). Each site's part equals, record for record, the org that site writes alone, under
 * its prefix; a donor who gives on both sites is one Contact; a second sync writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { CliResult } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiAction, ApiDonation } from '../../src/model/apiRecords.js';
import { personKey } from '../../src/mapping/gifts/normalise.js';
import { projectedNpsp } from '../support/npspOrg.js';
import { cli, removeDir, tempCwd, writeCalls, type Result } from './helpers.js';
import { runJsonIn, connectionEntry } from './siteRows.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 0, newsletterSubscriptions: 0 };
const SHARED_DONOR = personKey('john.doe@kentaa.nl', 'Doe', 'John');

type Org = ReturnType<typeof projectedNpsp>;
interface Connections {
  result: { connections: Array<{ connection: string; status: number; result: (Result & { projection?: { gifts: Record<string, number>; failures: string[] } }) | null }> };
}

function donationsOf(site: number, action: ApiAction, projectId: number): ApiDonation[] {
  const base = (id: number, amount: number, over: Partial<ApiDonation>): ApiDonation => ({
    id,
    site_id: site,
    created_at: '2016-03-30T14:41:48Z',
    updated_at: '2016-03-30T14:41:48Z',
    payment_status: 'paid',
    payment_status_at: '2016-03-30T14:41:48Z',
    currency: 'EUR',
    payment_method: 'creditcard',
    donation_amount: `${amount}.0`,
    total_amount: `${amount}.0`,
    ...over,
  });
  const a = site === 6 ? 0 : 100;
  return [
    base(1, 15 + a, { first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl', action_id: action.id }),
    base(2, 20 + a, { first_name: 'Jane', last_name: `Site${site}`, email: `jane${site}@x.nl`, project_id: projectId }),
    base(4, 10 + a, { first_name: 'Karel', last_name: `Smit${site}` }),
    base(9, 8 + a, { first_name: 'Wim', last_name: 'Kok', email: `wim${site}@x.nl`, payment_status: 'chargedback', payment_status_at: '2016-05-20T10:00:00Z' }),
  ];
}

/** A key or value of `site` as the site alone writes it: its prefix off (`6:Donation_1`, `D:6:Donation_4`, `HH:D:6:Donation_4`). */
const bare = (site: number, v: string): string => v.replace(new RegExp(`(^|:)${site}:(?=[A-Z][A-Za-z]*_\\d)`, 'g'), '$1');
const otherSite = (site: number, v: string): boolean => new RegExp(`(^|:)(?!${site}:)\\d+:(?=[A-Z][A-Za-z]*_\\d)`).test(v);

/** The shared org's records that are `site`'s (its own keys, and the shared donors the site alone also has), prefix off. */
function partOf(org: Org, site: number, alone: Org): Org {
  const out = {} as Org;
  for (const kind of Object.keys(org) as Array<keyof Org>) {
    const rows: Org[typeof kind] = {};
    for (const [key, row] of Object.entries(org[kind])) {
      if (otherSite(site, key)) continue;
      const k = bare(site, key);
      // A shared donor (no site in its key) is the site's when the site alone has it too.
      if (k === key && !(k in alone[kind])) continue;
      rows[k] = Object.fromEntries(Object.entries(row).map(([f, v]) => [f, typeof v === 'string' ? bare(site, v) : v]));
    }
    out[kind] = rows;
  }
  return out;
}

describe('the gift projection in a shared NPSP org', () => {
  let north: Stack;
  let south: Stack;
  let refNorth: Stack;
  const dirs: string[] = [];
  let cwd: string;
  const alone: Partial<Record<'north' | 'south', Org>> = {};

  const secrets = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });
  const runJson = (args: string[]): Promise<{ code: number; body: Connections; stderr: string }> => runJsonIn<Connections>(cwd, secrets(), args);

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 75, siteId: 6 }, salesforce: { npsp: true } });
    south = await startStack({ site: { ...SITE, seed: 86, siteId: 7 }, salesforce: { npsp: true } });
    // North alone writes into a third stack's org (its platform unused), south alone into its own.
    refNorth = await startStack({ site: { ...SITE, seed: 75, siteId: 6 }, salesforce: { npsp: true } });
    for (const [stack, site] of [
      [north, 6],
      [south, 7],
    ] as const)
      for (const d of donationsOf(site, stack.platform.site.action[0] as ApiAction, stack.platform.site.project[0]?.id ?? 0)) stack.platform.add('donation', d);
    for (const [stack, org, name] of [
      [north, refNorth, 'north'],
      [south, south, 'south'],
    ] as const) {
      const dir = tempCwd('sites-gifts-npsp-ref');
      dirs.push(dir);
      const r: CliResult = await cli(stack, ['sync', '--all'], dir, undefined, {
        ...stack.env,
        SF_INSTANCE_URL: org.salesforce.url,
        SF_ACCESS_TOKEN: org.salesforce.accessToken,
        SVC_SALESFORCE_LOG: 'off',
        SVC_PROJECTION: 'npsp',
        SVC_SITE_ID: String(stack === north ? 6 : 7),
      });
      if (r.code !== 0) throw new Error(`${name} alone: exit ${r.code}\n${r.stderr}`);
      alone[name] = projectedNpsp(org);
    }
    cwd = tempCwd('sites-gifts-npsp');
    dirs.push(cwd);
    const entry = (stack: Stack, site: number, name: string): Record<string, unknown> => connectionEntry(stack, site, name, north.salesforce);
    const config = { SVC_SITE_KEYS: true, SVC_PROJECTION: 'npsp', connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close(), refNorth.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('sync --all of both: each site as it alone writes, under its prefix; John Doe one Contact; a second sync writes nothing', async () => {
    const r = await runJson(['sync', '--all']);
    expect(r.body.result.connections.map((c) => [c.connection, c.status, c.result?.projection?.failures])).toEqual([
      ['north', 0, []],
      ['south', 0, []],
    ]);
    const org = projectedNpsp(north);
    expect(Object.keys(org.opportunities).sort()).toEqual(['6:Donation_1', '6:Donation_2', '6:Donation_4', '6:Donation_9', '7:Donation_1', '7:Donation_2', '7:Donation_4', '7:Donation_9']);
    expect(Object.keys(org.contacts).filter((k) => k.startsWith('D:'))).toEqual(expect.arrayContaining(['D:6:Donation_4', 'D:7:Donation_4']));
    expect(Object.keys(org.contacts).filter((k) => k === SHARED_DONOR)).toHaveLength(1);
    expect(org.opportunities['6:Donation_1']?.Primary).toBe(SHARED_DONOR);
    expect(org.opportunities['7:Donation_1']?.Primary).toBe(SHARED_DONOR);
    expect(partOf(org, 6, alone.north!)).toEqual(alone.north);
    expect(partOf(org, 7, alone.south!)).toEqual(alone.south);

    const before = writeCalls(north);
    const again = await runJson(['sync', '--all']);
    for (const c of again.body.result.connections)
      expect({ c: c.connection, status: c.status, gifts: c.result?.projection?.gifts }).toEqual({ c: c.connection, status: 0, gifts: expect.objectContaining({ insert: 0, update: 0, fail: 0 }) });
    expect(writeCalls(north)).toBe(before);
  }, 180_000);
});
