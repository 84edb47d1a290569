/**
 * What the gift projection keeps between runs to save calls (issue 42, cost), end to end: the org
 * guard's verdict and the record types for a day, for the org they were made on (doctor always
 * checks; an older verdict, another org, or a write failing as a describe would explain -> checked
 * again); and the repair path: `sync --all` compares the projection with the org, so a gift an
 * admin deleted comes back, while an incremental run trusts its digests.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { addPaidDonation } from './paidDonation.js';
import { cli, cliJson, removeDir, tempCwd, unstamp, writeCalls } from './helpers.js';

const SITE = { siteId: 6, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 0, newsletterSubscriptions: 0 };

let stack: Stack;
let cwd: string;
let nextId = 1;
/** The org the login reached (the session's), as the first run kept it. */
let orgId = '';
const env = (): Record<string, string> => ({ ...stack.env, SVC_SITE_ID: '6', SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });
const npc = (): NpcOrg => stack.salesforce.npc as NpcOrg;
const verdictFile = (): string => path.join(cwd, '.svc-sync', 'projection-org.json');
const guardCalls = (): string[] => stack.salesforce.requests().filter((r) => /\/describe\b|FROM RecordType/.test(r));

/** A paid donation to the site's first action, by a donor of its own. */
const addDonation = (): ApiDonation => addPaidDonation(stack, nextId++);

const gift = (id: number): Record<string, unknown> | undefined =>
  npc()
    .records('GiftTransaction')
    .find((g) => g.SvcGiftKey__c === `Donation_${id}`);
const slot = (id: number): Record<string, unknown> | undefined =>
  npc()
    .records('GiftSoftCredit')
    .find((s) => s.SvcSoftCreditKey__c === `Donation_${id}:fundraiser`);

beforeAll(async () => {
  stack = await startStack({ site: SITE, salesforce: { npc: true } });
  cwd = tempCwd('gift-projection-kept');
  for (let i = 0; i < 3; i++) addDonation();
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

describe('the org verdict kept for a day', () => {
  it('the first run checks the org and keeps the verdict, with the org id and the record types', async () => {
    const run = await cli(stack, ['sync', '--all'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(guardCalls().length).toBeGreaterThan(0);
    const kept = JSON.parse(fs.readFileSync(verdictFile(), 'utf8')) as Record<string, unknown>;
    orgId = String(kept.orgId);
    expect(orgId).toMatch(/^00D\w{12}(\w{3})?$/);
    expect(kept).toMatchObject({ version: 1, setting: 'npc', personRecordType: 'PersonAccount', choice: { resolved: 'npc' } });
    expect(kept.recordTypes).toEqual({ person: npc().recordTypeId('PersonAccount'), business: npc().recordTypeId('Business_Account'), currency: 'EUR' });
    expect(fs.statSync(verdictFile()).mode & 0o077).toBe(0);
    expect(gift(1)).toBeDefined();
  });

  it('a run within the day: no describe, no record-type query, the new gift written', async () => {
    const d = addDonation();
    stack.salesforce.resetCalls();
    const run = await cli(stack, ['sync'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(guardCalls()).toEqual([]);
    expect(gift(d.id)).toBeDefined();
    expect(slot(d.id)).toBeDefined();
    // The fundraiser's link and the new donor's key in one read, then the email; no read by key alone.
    const accounts = stack.salesforce
      .requests()
      .map((r) => decodeURIComponent(r))
      .filter((r) => /FROM Account WHERE/.test(r));
    expect(accounts.map((r) => (/WHERE Id IN \(.*\) OR SvcDonorKey__c IN \(/.test(r) ? 'Id OR SvcDonorKey__c' : /WHERE (\w+) IN/.exec(r)?.[1]))).toEqual(['Id OR SvcDonorKey__c', 'PersonEmail']);
  });

  it('doctor checks the org all the same', async () => {
    stack.salesforce.resetCalls();
    const run = await cli(stack, ['doctor'], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(guardCalls().filter((r) => /GiftTransaction\/describe/.test(r))).toHaveLength(1);
  });

  it('a verdict over a day old, or made on another org, is checked again', async () => {
    const kept = JSON.parse(fs.readFileSync(verdictFile(), 'utf8')) as Record<string, unknown>;
    for (const stale of [{ checkedAt: new Date(Date.now() - 25 * 3600_000).toISOString() }, { orgId: '00D5g000000OtherAAA' }]) {
      fs.writeFileSync(verdictFile(), JSON.stringify({ ...kept, ...stale }));
      stack.salesforce.resetCalls();
      expect((await cli(stack, ['sync'], cwd, undefined, env())).code).toBe(0);
      expect(guardCalls().filter((r) => /GiftTransaction\/describe/.test(r))).toHaveLength(1);
      const now = JSON.parse(fs.readFileSync(verdictFile(), 'utf8')) as Record<string, unknown>;
      expect(now.orgId).toBe(orgId);
      expect(Date.now() - Date.parse(String(now.checkedAt))).toBeLessThan(3600_000);
    }
  });
});

describe('the repair path', () => {
  it('a gift an admin deleted: an incremental run trusts its digests, `sync --all` writes it back', async () => {
    const deleted = gift(1);
    if (typeof deleted?.Id !== 'string') throw new Error('no gift of donation 1');
    npc().adminDelete(deleted.Id);
    expect(slot(1)).toBeUndefined();
    stack.salesforce.resetCalls();
    const incremental = await cliJson(stack, ['sync'], cwd, undefined, env());
    expect(incremental.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(gift(1)).toBeUndefined();
    const full = await cliJson(stack, ['sync', '--all'], cwd, undefined, env());
    expect(full.code).toBe(0);
    expect(gift(1)).toMatchObject({ Status: 'Paid', OriginalAmount: 10 });
    expect(slot(1)).toMatchObject({ Role: 'Solicitor', GiftTransactionId: gift(1)?.Id });
    // Compared again, the rest is as svc-sync wrote it: one gift and its slot written, nothing else.
    const rows = full.body.result.records.filter((r) => !r.object.startsWith('Svc_'));
    expect(rows.map((r) => [r.object, r.key, r.action]).sort()).toEqual([
      ['GiftSoftCredit', 'Donation_1:softCredit', 'insert'],
      ['GiftTransaction', 'Donation_1:gift', 'insert'],
    ]);
    stack.salesforce.resetCalls();
    expect((await cli(stack, ['sync', '--all'], cwd, undefined, env())).code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
  });
});

describe('the campaigns kept', () => {
  it("a new gift to a campaign written before: neither the Campaign nor the ancestors' mirror rows are read", async () => {
    const d = addDonation();
    stack.salesforce.resetCalls();
    expect((await cli(stack, ['sync'], cwd, undefined, env())).code).toBe(0);
    const reads = stack.salesforce.requests().map((r) => decodeURIComponent(r));
    expect(reads.filter((r) => /FROM Campaign\b/.test(r))).toEqual([]);
    // The projection's reads of mirror rows carry the campaign's fields (Name, CreatedAt__c).
    expect(reads.filter((r) => /SELECT Id, SvcId__c, Name, CreatedAt__c.* FROM Svc_(Segment|Project|Team|Company)__c/.test(r))).toEqual([]);
    const action = stack.platform.site.action[0];
    const campaign = npc()
      .records('Campaign')
      .find((c) => c.SvcCampaignKey__c === `Action_${action?.id}`);
    expect(gift(d.id)).toMatchObject({ CampaignId: campaign?.Id });
    expect(fs.statSync(path.join(cwd, '.svc-sync', 'projected-campaigns.json')).mode & 0o077).toBe(0);
  });

  it("E10 in an incremental run: a donation moved to another fundraiser's page credits that fundraiser, no one else", async () => {
    const [from, to] = stack.platform.site.action;
    if (!from || !to) throw new Error('the generated site has fewer than two actions');
    const email = (a: typeof from): string | undefined => a.owner?.email?.toLowerCase();
    expect(email(to)).not.toBe(email(from));
    const before = slot(2);
    stack.platform.update('donation', 2, { action_id: to.id });
    const run = await cliJson(stack, ['sync'], cwd, undefined, env());
    expect(run.code).toBe(0);
    const campaign = npc()
      .records('Campaign')
      .find((c) => c.SvcCampaignKey__c === `Action_${to.id}`);
    expect(gift(2)).toMatchObject({ CampaignId: campaign?.Id });
    const slots = npc()
      .records('GiftSoftCredit')
      .filter((s) => s.GiftTransactionId === gift(2)?.Id);
    expect(slots).toHaveLength(1);
    expect(slots[0]).toMatchObject({ SvcSoftCreditKey__c: 'Donation_2:fundraiser', Role: 'Solicitor', PartialPercent: 100 });
    const recipient = npc()
      .records('Account')
      .find((a) => a.Id === slots[0]?.RecipientId);
    expect(recipient?.PersonEmail).toBe(email(to));
    expect(slots[0]?.RecipientId).not.toBe(before?.RecipientId);
  });
});

describe('a refund undone (PROJECTION.md §2.3: refunded -> paid)', () => {
  it("deletes svc-sync's GiftRefund by its key, keeps the gift Paid and an admin's refund untouched", async () => {
    const refundOf = (id: number): Record<string, unknown> | undefined =>
      npc()
        .records('GiftRefund')
        .find((r) => r.SvcRefundKey__c === `Donation_${id}`);
    const at = new Date().toISOString();
    stack.platform.update('donation', 3, { payment_status: 'refunded', payment_status_at: at });
    expect((await cli(stack, ['sync'], cwd, undefined, env())).code).toBe(0);
    expect(refundOf(3)).toMatchObject({ GiftTransactionId: gift(3)?.Id, Amount: 10, Status: 'Completed' });
    const admins = npc().seed('GiftRefund', { GiftTransactionId: gift(3)?.Id as string, Amount: 1, Date: at.slice(0, 10), Status: 'Completed' });
    stack.platform.update('donation', 3, { payment_status: 'paid', payment_status_at: new Date().toISOString() });
    expect((await cli(stack, ['sync'], cwd, undefined, env())).code).toBe(0);
    expect(refundOf(3)).toBeUndefined();
    expect(
      npc()
        .records('GiftRefund')
        .map((r) => r.Id),
    ).toContain(admins);
    expect(gift(3)).toMatchObject({ Status: 'Paid', OriginalAmount: 10 });
  });
});

describe('the org changed after the verdict was kept', () => {
  it('the write that fails as a describe would explain drops the verdict; the next run is refused (exit 2)', async () => {
    npc().removeField('GiftTransaction', 'SvcAnonymous__c');
    const d = addDonation();
    const run = await cli(stack, ['sync'], cwd, undefined, env());
    expect(run.code).toBe(1);
    expect(gift(d.id)).toBeUndefined();
    expect(fs.existsSync(verdictFile())).toBe(false);
    const next = await cli(stack, ['sync'], cwd, undefined, env());
    expect(next.code).toBe(2);
    expect(unstamp(next.stderr).trim().split('\n')).toEqual([expect.stringMatching(/SVC_PROJECTION npc: .*GiftTransaction\.SvcAnonymous__c missing; next: svc-sync doctor$/)]);
  });
});
