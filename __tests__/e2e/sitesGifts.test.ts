/**
 * Issue 53, the gift projection in a shared org (SITES.md): two sites whose donation, project and
 * action ids overlap, projected into one emulated Nonprofit Cloud org with SVC_SITE_KEYS. Each
 * site's gifts, refunds, soft credits and campaigns are exact field by field (against the org the
 * site writes alone) under its own prefix; a donor who gives on both sites is one Person Account;
 * a second sync writes nothing; one site's audit --fix leaves the other's gifts alone. Then an org
 * one site projected with bare keys: keys qualify --apply, the second site beside it, both exact,
 * no gift re-inserted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { CliResult } from '../../fixtures/cli.js';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiAction, ApiDonation } from '../../src/model/apiRecords.js';
import { personKey } from '../../src/mapping/gifts/normalise.js';
import { cli, removeDir, tempCwd, totals, writeCalls, type Result } from './helpers.js';
import { runIn, runJsonIn, siteRows, connectionEntry } from './siteRows.js';
import { GIFT_KEYS, siteGiftRows } from './siteGiftRows.js';

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 0, newsletterSubscriptions: 0 };
const SHARED_DONOR = personKey('john.doe@kentaa.nl', 'Doe', 'John');

interface ProjectionJson {
  gifts: Record<string, number>;
  failures: string[];
}
interface Connections {
  result: { connections: Array<{ connection: string; status: number; result: (Result & { projection?: ProjectionJson }) | null; error?: string }> };
}

/** One site's donations, ids 1-9 on both sites, amounts their own: a gift, a slot, a refund, a per-donation donor, the pool, and John Doe, who gives on both. */
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
    base(7, 3 + a, { action_id: action.id }),
    base(9, 8 + a, { first_name: 'Wim', last_name: 'Kok', email: `wim${site}@x.nl`, payment_status: 'chargedback', payment_status_at: '2016-05-20T10:00:00Z' }),
  ];
}

/** Exit 0, else the run's own words. */
function ok(r: CliResult): void {
  if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

function fill(stack: Stack, site: number): void {
  const action = stack.platform.site.action[0] as ApiAction;
  for (const d of donationsOf(site, action, stack.platform.site.project[0]?.id ?? 0)) stack.platform.add('donation', d);
}

/** Salesforce Id of every gift-side record, by object and key as the org holds it. */
function giftIds(npc: NpcOrg): Map<string, string> {
  const out = new Map<string, string>();
  for (const [o, f] of Object.entries(GIFT_KEYS)) for (const r of npc.records(o)) out.set(`${o}/${String(r[f])}`, r.Id);
  return out;
}

describe('the gift projection in a shared org', () => {
  let north: Stack;
  let south: Stack;
  /** North alone, bare keys: the reference for its part of the shared org. */
  let refNorth: Emulator;
  const dirs: string[] = [];
  let cwd: string;

  const secrets = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });

  /** Both connections (or north alone, bare keys) on north's org, the projection on. */
  function writeConfig(dir: string, both: boolean): void {
    const entry = (stack: Stack, site: number, name: string): Record<string, unknown> => connectionEntry(stack, site, name, north.salesforce);
    const config = both
      ? { SVC_SITE_KEYS: true, SVC_PROJECTION: 'npc', connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } }
      : { SVC_PROJECTION: 'npc', connections: { north: entry(north, 6, 'north') } };
    fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }

  const run = (args: string[]): Promise<CliResult> => runIn(cwd, secrets(), args);
  const runJson = (args: string[]): Promise<{ code: number; body: Connections; stderr: string }> => runJsonIn<Connections>(cwd, secrets(), args);
  const npcOf = (e: Emulator): NpcOrg => e.npc as NpcOrg;

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 31, siteId: 6 }, salesforce: { npc: true } });
    south = await startStack({ site: { ...SITE, seed: 42, siteId: 7 }, salesforce: { npc: true } });
    fill(north, 6);
    fill(south, 7);
    refNorth = await startSalesforceEmulator({ apiVersion: north.salesforce.apiVersion, npc: true });
    // Each site alone, bare keys: north into the reference org, south into its own stack's org.
    for (const [stack, org] of [
      [north, refNorth],
      [south, south.salesforce],
    ] as const) {
      const dir = tempCwd('sites-gifts-ref');
      dirs.push(dir);
      const alone = await cli(stack, ['sync', '--all'], dir, undefined, { ...stack.env, SF_INSTANCE_URL: org.url, SF_ACCESS_TOKEN: org.accessToken, SVC_SALESFORCE_LOG: 'off', SVC_PROJECTION: 'npc' });
      ok(alone);
    }
    cwd = tempCwd('sites-gifts');
    dirs.push(cwd);
    writeConfig(cwd, true);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close(), refNorth.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('the two sites overlap in donation, project and action ids', () => {
    expect(north.platform.site.project[0]?.id).toBe(south.platform.site.project[0]?.id);
    expect(north.platform.site.action[0]?.id).toBe(south.platform.site.action[0]?.id);
  });

  it('sync --all of both: each site exact under its prefix, John Doe one Person Account, a second sync writes nothing', async () => {
    const r = await runJson(['sync', '--all']);
    expect(r.body.result.connections.map((c) => [c.connection, c.status, c.result?.projection?.failures])).toEqual([
      ['north', 0, []],
      ['south', 0, []],
    ]);
    const npc = npcOf(north.salesforce);
    for (const o of Object.keys(GIFT_KEYS)) {
      const keys = npc.records(o).map((x) => String(x[GIFT_KEYS[o] as string]));
      expect({ o, six: keys.some((k) => k.startsWith('6:')), seven: keys.some((k) => k.startsWith('7:')), bare: keys.filter((k) => !/^[67]:/.test(k)) }).toEqual({
        o,
        six: true,
        seven: true,
        bare: [],
      });
    }
    expect(
      npc
        .records('GiftTransaction')
        .map((g) => g.SvcGiftKey__c)
        .sort(),
    ).toEqual(['6:Donation_1', '6:Donation_2', '6:Donation_4', '6:Donation_7', '6:Donation_9', '7:Donation_1', '7:Donation_2', '7:Donation_4', '7:Donation_7', '7:Donation_9']);
    expect(
      npc
        .records('GiftSoftCredit')
        .map((g) => g.SvcSoftCreditKey__c)
        .sort(),
    ).toEqual(['6:Donation_1:fundraiser', '6:Donation_7:fundraiser', '7:Donation_1:fundraiser', '7:Donation_7:fundraiser']);
    expect(
      npc
        .records('GiftRefund')
        .map((g) => g.SvcRefundKey__c)
        .sort(),
    ).toEqual(['6:Donation_9', '7:Donation_9']);
    const accounts = npc.records('Account');
    expect(accounts.filter((a) => a.SvcDonorKey__c === SHARED_DONOR)).toHaveLength(1);
    const john = accounts.find((a) => a.SvcDonorKey__c === SHARED_DONOR)!.Id;
    expect(
      npc
        .records('GiftTransaction')
        .filter((g) => g.DonorId === john)
        .map((g) => g.SvcGiftKey__c)
        .sort(),
    ).toEqual(['6:Donation_1', '7:Donation_1']);
    expect(
      accounts
        .map((a) => a.SvcDonorKey__c)
        .filter((k) => /^[DA]:/.test(String(k)))
        .sort(),
    ).toEqual(['A:6', 'A:7', 'D:6:Donation_4', 'D:7:Donation_4']);

    expect(siteGiftRows(npc, '6:')).toEqual(siteGiftRows(npcOf(refNorth), ''));
    expect(siteGiftRows(npc, '7:')).toEqual(siteGiftRows(npcOf(south.salesforce), ''));
    // The mirror under both prefixes (its exactness is sitesOneOrg.test.ts's): every donation row there.
    expect(siteRows(north.salesforce, '6:').Svc_Donation__c).toHaveLength(5);
    expect(siteRows(north.salesforce, '7:').Svc_Donation__c).toHaveLength(5);

    const before = writeCalls(north);
    const again = await runJson(['sync', '--all']);
    for (const c of again.body.result.connections) {
      const sum = totals(c.result!);
      expect({ connection: c.connection, status: c.status, inserted: sum.inserted, updated: sum.updated, gifts: c.result?.projection?.gifts }).toEqual({
        connection: c.connection,
        status: 0,
        inserted: 0,
        updated: 0,
        gifts: expect.objectContaining({ insert: 0, update: 0, fail: 0 }),
      });
    }
    expect(writeCalls(north)).toBe(before);
  }, 180_000);

  it("one site's audit --fix mends its own drift and leaves the other site's gifts alone", async () => {
    const npc = npcOf(north.salesforce);
    const southBefore = siteGiftRows(npc, '7:');
    const ids = giftIds(npc);
    north.platform.update('donation', 2, { message: 'seen by the audit' });
    const r = await run(['audit', '--fix', '--connection', 'north']);
    ok(r);
    expect(north.salesforce.get('Svc_Donation__c', '6:Donation_2')?.Message__c).toBe('seen by the audit');
    expect(siteGiftRows(npc, '7:')).toEqual(southBefore);
    expect(siteGiftRows(npc, '7:')).toEqual(siteGiftRows(npcOf(south.salesforce), ''));
    expect(giftIds(npc)).toEqual(ids);
  }, 120_000);
});
describe('the gift projection in a shared org: the org one site projected, its keys qualified, then the second site', () => {
  let north: Stack;
  let south: Stack;
  let refSouth: Emulator;
  const dirs: string[] = [];
  let cwd: string;
  let refNorth: ReturnType<typeof siteGiftRows>;

  const secrets = (): Record<string, string> => ({ NORTH_KEY: north.env.SVC_API_KEY!, SOUTH_KEY: south.env.SVC_API_KEY!, ORG_TOKEN: north.env.SF_ACCESS_TOKEN! });
  function writeConfig(both: boolean): void {
    const entry = (stack: Stack, site: number, name: string): Record<string, unknown> => connectionEntry(stack, site, name, north.salesforce);
    const config = both
      ? { SVC_SITE_KEYS: true, SVC_PROJECTION: 'npc', connections: { north: entry(north, 6, 'north'), south: entry(south, 7, 'south') } }
      : { SVC_PROJECTION: 'npc', connections: { north: entry(north, 6, 'north') } };
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
  }
  const run = (args: string[]): Promise<CliResult> => runIn(cwd, secrets(), args);
  const runJson = (args: string[]): Promise<{ code: number; body: Connections; stderr: string }> => runJsonIn<Connections>(cwd, secrets(), args);
  const npcOf = (e: Emulator): NpcOrg => e.npc as NpcOrg;

  beforeAll(async () => {
    north = await startStack({ site: { ...SITE, seed: 53, siteId: 6 }, salesforce: { npc: true } });
    south = await startStack({ site: { ...SITE, seed: 64, siteId: 7 }, salesforce: { npc: true } });
    fill(north, 6);
    fill(south, 7);
    refSouth = await startSalesforceEmulator({ apiVersion: north.salesforce.apiVersion, npc: true });
    const alone = tempCwd('sites-gifts-migration-ref');
    dirs.push(alone);
    const ref = await cli(south, ['sync', '--all'], alone, undefined, {
      ...south.env,
      SF_INSTANCE_URL: refSouth.url,
      SF_ACCESS_TOKEN: refSouth.accessToken,
      SVC_SALESFORCE_LOG: 'off',
      SVC_PROJECTION: 'npc',
    });
    ok(ref);
    cwd = tempCwd('sites-gifts-migration');
    dirs.push(cwd);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([north.close(), south.close(), refSouth.close()]);
    for (const d of dirs) removeDir(d);
  });

  it('north alone projects with bare keys; keys qualify --apply moves every gift-side key onto 6:, Ids kept, again writes nothing', async () => {
    writeConfig(false);
    const first = await run(['sync', '--all', '--connection', 'north']);
    ok(first);
    const npc = npcOf(north.salesforce);
    refNorth = siteGiftRows(npc, '');
    expect(npc.records('Account').map((a) => a.SvcDonorKey__c)).toContain('D:Donation_4');
    const before = giftIds(npc);
    // An open error the run log holds under a bare key (an earlier failure of north's): it moves with the records.
    const org = north.salesforce;
    const seeded = await fetch(`${org.url}/services/data/v${org.apiVersion}/composite/sobjects/Svc_SyncError__c/Key__c`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${org.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ allOrNone: false, records: [{ attributes: { type: 'Svc_SyncError__c' }, Key__c: 'Donation_2:gift', ObjectName__c: 'GiftTransaction', Status__c: 'Open' }] }),
    });
    expect(seeded.status).toBe(200);

    const dry = await runJsonIn<{ result: { bare: number; objects: Record<string, { bare: number }> } }>(cwd, secrets(), ['keys', 'qualify', '--connection', 'north']);
    expect(dry.code).toBe(0);
    expect(dry.body.result.objects).toMatchObject({
      Campaign: { bare: 4 },
      GiftTransaction: { bare: 5 },
      GiftSoftCredit: { bare: 2 },
      GiftRefund: { bare: 1 },
      Account: { bare: 1 },
      Svc_SyncError__c: { bare: 1 },
    });
    expect(giftIds(npc)).toEqual(before);

    const apply = await run(['keys', 'qualify', '--connection', 'north', '--apply']);
    ok(apply);
    const after = giftIds(npc);
    expect(after.size).toBe(before.size);
    for (const [key, id] of before) expect({ key, id: after.get(key.replace('/', '/6:')) }).toEqual({ key, id });
    expect(npc.records('Account').map((a) => a.SvcDonorKey__c)).toContain('D:6:Donation_4');
    expect(npc.records('Account').map((a) => a.SvcDonorKey__c)).toContain(SHARED_DONOR);
    expect(org.records('Svc_SyncError__c').map((e) => e.Key__c)).toEqual(['6:Donation_2:gift']);

    const writes = writeCalls(north);
    const again = await run(['keys', 'qualify', '--connection', 'north', '--apply']);
    ok(again);
    expect(writeCalls(north)).toBe(writes);
  }, 180_000);

  it('south added beside it: both exact, no gift of north re-inserted, a second sync writes nothing', async () => {
    writeConfig(true);
    const npc = npcOf(north.salesforce);
    const qualified = giftIds(npc);
    const both = await runJson(['sync', '--all']);
    expect(both.body.result.connections.map((c) => [c.connection, c.status, c.result?.projection?.failures])).toEqual([
      ['north', 0, []],
      ['south', 0, []],
    ]);
    const north6 = both.body.result.connections.find((c) => c.connection === 'north')!.result!;
    expect(north6.projection?.gifts).toMatchObject({ insert: 0, update: 0 });
    const after = giftIds(npc);
    for (const [key, id] of qualified) expect({ key, id: after.get(key) }).toEqual({ key, id });
    expect(siteGiftRows(npc, '6:')).toEqual(refNorth);
    expect(siteGiftRows(npc, '7:')).toEqual(siteGiftRows(npcOf(refSouth), ''));
    expect(npc.records('Account').filter((a) => a.SvcDonorKey__c === SHARED_DONOR)).toHaveLength(1);

    const writes = writeCalls(north);
    const again = await runJson(['sync', '--all']);
    for (const c of again.body.result.connections)
      expect({ c: c.connection, status: c.status, gifts: c.result?.projection?.gifts }).toEqual({ c: c.connection, status: 0, gifts: expect.objectContaining({ insert: 0, update: 0 }) });
    expect(writeCalls(north)).toBe(writes);
    expect(giftIds(npc)).toEqual(after);
  }, 180_000);
});
