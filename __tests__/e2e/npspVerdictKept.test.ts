/**
 * NPSP's org verdict kept for a day (issue 51), end to end through dist/cli.js: the first run
 * describes the org and keeps the verdict with the refund mode the guard chose and NPSP's record
 * types; a second run makes no describe and no record-type query; another refund mode, another
 * org id or instance checks the org again; a dry run reads the verdict and never writes it; a
 * write failing as a describe would explain drops it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { NpspOrg } from '../../fixtures/salesforce/npsp.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { addPaidDonation } from './paidDonation.js';
import { cli, removeDir, tempCwd } from './helpers.js';

const SITE = { siteId: 6, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 0, newsletterSubscriptions: 0 };

let stack: Stack;
let cwd: string;
let nextId = 1;
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ ...stack.env, SVC_SITE_ID: '6', SVC_PROJECTION: 'npsp', SVC_SALESFORCE_LOG: 'off', ...extra });
const npsp = (): NpspOrg => stack.salesforce.npsp as NpspOrg;
const verdictFile = (): string => path.join(cwd, '.svc-sync', 'projection-org.json');
const kept = (): Record<string, unknown> => JSON.parse(fs.readFileSync(verdictFile(), 'utf8')) as Record<string, unknown>;
const describes = (): string[] => stack.salesforce.requests().filter((r) => /\/describe\b/.test(r));
const recordTypeReads = (): string[] => stack.salesforce.requests().filter((r) => /FROM\+RecordType|FROM RecordType|FROM%20RecordType/.test(r));

/** A paid donation to the site's first action, by a donor of its own. */
const addDonation = (): ApiDonation => addPaidDonation(stack, nextId++);

const gift = (id: number): Record<string, unknown> | undefined =>
  npsp()
    .records('Opportunity')
    .find((o) => o.SvcGiftKey__c === `Donation_${id}`);

/** A sync run: its exit code, with the org's calls counted from its start. */
async function sync(args: string[] = [], extra: Record<string, string> = {}): Promise<number> {
  stack.salesforce.resetCalls();
  // --dry-run is a global option: it comes before the command.
  const dry = args.filter((a) => a === '--dry-run');
  const run = await cli(stack, [...dry, 'sync', ...args.filter((a) => a !== '--dry-run')], cwd, undefined, env(extra));
  return run.code;
}

beforeAll(async () => {
  stack = await startStack({ site: SITE, salesforce: { npsp: true } });
  cwd = tempCwd('npsp-verdict-kept');
  addDonation();
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

describe("NPSP's org verdict kept for a day", () => {
  it('a dry run first checks the org and keeps nothing', async () => {
    expect(await sync(['--dry-run', '--all'])).toBe(0);
    expect(describes().length).toBeGreaterThan(0);
    expect(fs.existsSync(verdictFile())).toBe(false);
  });

  it('the first run keeps the verdict: org id and instance, refund mode, NPSP record types', async () => {
    expect(await sync(['--all'])).toBe(0);
    expect(describes().length).toBeGreaterThan(0);
    expect(kept()).toMatchObject({
      version: 1,
      setting: 'npsp',
      instanceUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      choice: { resolved: 'npsp', refundMode: 'payments' },
      npspLookups: { organisation: npsp().recordTypeId('Organization'), donation: npsp().recordTypeId('Donation'), currency: 'EUR' },
    });
    expect(fs.statSync(verdictFile()).mode & 0o077).toBe(0);
    expect(gift(1)).toBeDefined();
  });

  it('a second run: no describe, no record-type query, the new gift written; `sync --all` likewise', async () => {
    const d = addDonation();
    expect(await sync()).toBe(0);
    expect(describes()).toEqual([]);
    expect(recordTypeReads()).toEqual([]);
    expect(gift(d.id)).toMatchObject({ RecordTypeId: npsp().recordTypeId('Donation') });
    expect(await sync(['--all'])).toBe(0);
    expect(describes()).toEqual([]);
  });

  it('a dry run reads the verdict (no describe) and leaves the file as it was', async () => {
    const before = fs.readFileSync(verdictFile(), 'utf8');
    expect(await sync(['--dry-run'])).toBe(0);
    expect(describes()).toEqual([]);
    expect(fs.readFileSync(verdictFile(), 'utf8')).toBe(before);
  });

  it('another SVC_NPSP_REFUND_MODE checks the org again, and so does switching back', async () => {
    expect(await sync([], { SVC_NPSP_REFUND_MODE: 'stage' })).toBe(0);
    expect(describes().length).toBeGreaterThan(0);
    expect(kept()).toMatchObject({ choice: { resolved: 'npsp', refundMode: 'stage' } });
    expect(await sync([], { SVC_NPSP_REFUND_MODE: 'stage' })).toBe(0);
    expect(describes()).toEqual([]);
    expect(await sync()).toBe(0);
    expect(describes().length).toBeGreaterThan(0);
    expect(kept()).toMatchObject({ choice: { resolved: 'npsp', refundMode: 'payments' } });
  });

  it('a verdict made on another org, or on another instance, is checked again', async () => {
    const mine = kept();
    for (const other of [{ orgId: '00D5g000000OtherAAA' }, { instanceUrl: 'https://other.my.salesforce.com' }]) {
      fs.writeFileSync(verdictFile(), JSON.stringify({ ...mine, ...other }));
      expect(await sync()).toBe(0);
      expect(describes().length).toBeGreaterThan(0);
      expect(kept()).toMatchObject({ orgId: mine.orgId, instanceUrl: mine.instanceUrl });
    }
  });

  it('a write failing as a describe would explain drops the verdict; the next run is refused (exit 2)', async () => {
    npsp().removeField('Opportunity', 'SvcGiftKey__c');
    const d = addDonation();
    expect(await sync()).toBe(1);
    expect(gift(d.id)).toBeUndefined();
    expect(fs.existsSync(verdictFile())).toBe(false);
    expect(await sync()).toBe(2);
  });
});
