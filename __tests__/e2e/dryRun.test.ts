/** `--dry-run` on object, replay and sync: no write at all, the diff as a table and as --json data. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, expectEnvelope, expectedKeys, keyOf, OBJECTS, recordCount, removeDir, tempCwd, writeCalls, type Envelope } from './helpers.js';

const isNotice = (w: string): boolean => /dry run/i.test(w) && /cannot be foreseen/.test(w);

describe('--dry-run', () => {
  let stack: Stack;
  let cwd: string;
  let a: ApiDonation;
  let b: ApiDonation;

  beforeAll(async () => {
    stack = await startStack({ site: { segments: 2, projectsPerSegment: 1, donations: 50, newsletterSubscriptions: 6 } });
    cwd = tempCwd('dryrun');
    // A has a phone and a message, so the update below changes values rather than filling blanks.
    const synced = stack.platform.site.donation.filter(donationSynced);
    const withPhone = synced.find((d) => typeof d.phone === 'string');
    const other = synced.find((d) => d.id !== withPhone?.id && typeof d.action_id === 'number');
    if (!withPhone || !other) throw new Error('site lacks the donations this test needs');
    a = withPhone;
    b = other;
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('sync --all on an empty org: every record would be inserted, nothing is written, no state is kept', async () => {
    const run = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'sync', true);
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
    expect(run.body.warnings.filter(isNotice)).toHaveLength(1);
    const want = expectedKeys(stack.platform.site);
    for (const o of OBJECTS) {
      const inserts = run.body.result.records
        .filter((r) => r.object === o && r.action === 'insert')
        .map((r) => r.key)
        .sort();
      expect({ o, inserts }).toEqual({ o, inserts: want[o] });
      expect(run.body.result.summary[o].inserted).toBe(want[o].length);
    }
    // Pending and zero donations are skips with a reason, not inserts.
    const skipped = run.body.result.records.filter((r) => r.object === 'Svc_Donation__c' && r.action === 'skip');
    expect(skipped.length).toBe(stack.platform.site.donation.filter((d) => !donationSynced(d)).length);
    for (const s of skipped) expect(s.reason).toMatch(/\S/);
    // A dry run neither resumes nor records a watermark.
    expect(fs.existsSync(path.join(cwd, '.svc-sync', 'state.json'))).toBe(false);
  });

  it('object (human): the summary with what would be inserted and the notice, nothing written', async () => {
    const res = await cli(stack, ['object', 'donation', String(a.id), '--dry-run'], cwd);
    expect(res.code).toBe(0);
    // Inserts are counts (listed by key with -v): the donation and the parents it brings.
    expect(res.stdout).toMatch(/^object\s+inserted\s+updated/);
    expect(res.stdout).toMatch(/\nSvc_Donation__c\s+1\s+0\s+0\s+0\s+0\n/);
    expect(res.stdout).toContain('cannot be foreseen');
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
  });

  describe('after a real write and a change on the platform', () => {
    let oldPhone: string;
    let oldMessage: string | null;
    let oldUpdatedAt: string;
    let changedAt: string;
    let writesBefore: number;

    beforeAll(async () => {
      const real = await cli(stack, ['object', 'donation', String(a.id)], cwd);
      if (real.code !== 0) throw new Error(`real write failed: ${real.stderr}`);
      const stored = stack.salesforce.get('Svc_Donation__c', keyOf('donation', a.id));
      if (!stored) throw new Error('donation not written');
      oldPhone = String(stored.Phone__c);
      oldMessage = typeof stored.Message__c === 'string' ? stored.Message__c : null;
      oldUpdatedAt = String(stored.UpdatedAt__c);
      changedAt = new Date(Date.now() - 60_000).toISOString();
      const updated = stack.platform.update('donation', a.id, { phone: '0611112222', message: 'Thanks from the e2e test' });
      expect(updated.phone).toBe('0611112222');
      writesBefore = writeCalls(stack);
    });

    const expectOnlyTheChange = (body: Envelope): void => {
      const update = body.result.records.find((r) => r.key === keyOf('donation', a.id));
      expect(update?.action).toBe('update');
      expect(update?.object).toBe('Svc_Donation__c');
      const changes = update?.changes ?? {};
      // Exactly what changed on the platform: phone, message, and updated_at (bumped by the change).
      expect(Object.keys(changes).sort()).toEqual(['Message__c', 'Phone__c', 'UpdatedAt__c']);
      expect(changes.Phone__c).toEqual({ from: oldPhone, to: '0611112222' });
      expect(changes.Message__c).toEqual({ from: oldMessage, to: 'Thanks from the e2e test' });
      // Both sides in one form: Salesforce's .000+0000 answer is shown as the UTC instant it is.
      expect(changes.UpdatedAt__c?.from).toBe(new Date(Date.parse(oldUpdatedAt.replace(/\+0000$/, 'Z'))).toISOString());
      expect(changes.UpdatedAt__c?.to).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(String(changes.UpdatedAt__c?.to))).toBeGreaterThan(Date.parse(oldUpdatedAt));
    };

    const expectUntouched = (): void => {
      expect(writeCalls(stack)).toBe(writesBefore);
      const stored = stack.salesforce.get('Svc_Donation__c', keyOf('donation', a.id));
      expect(stored?.Phone__c).toBe(oldPhone);
      expect(stored?.UpdatedAt__c).toBe(oldUpdatedAt);
    };

    it('object --json: the update with changes {Field: {from, to}} for exactly the changed fields', async () => {
      const run = await cliJson(stack, ['--dry-run', 'object', 'donation', String(a.id)], cwd);
      expect(run.code).toBe(0);
      expectEnvelope(run, 'object', true);
      expect(run.body.result.records).toHaveLength(1);
      expectOnlyTheChange(run.body);
      expect(run.body.result.summary.Svc_Donation__c).toEqual({ inserted: 0, updated: 1, unchanged: 0, skipped: 0, failed: 0 });
      expect(run.body.warnings.filter(isNotice)).toHaveLength(1);
      expectUntouched();
    });

    it('object (human): each changed field as old -> new', async () => {
      const res = await cli(stack, ['--dry-run', 'object', 'donation', String(a.id)], cwd);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`\\n {4}Phone__c +${oldPhone} -> 0611112222\\n`));
      expect(res.stdout).toMatch(/\n {4}Message__c +.* -> Thanks from the e2e test\n/);
      expect(res.stdout).toContain(`Updates (1):\n  Svc_Donation__c ${keyOf('donation', a.id)}\n`);
      expectUntouched();
    });

    it('replay --json from stdin: the update and the inserts it would make, nothing written', async () => {
      // A CSV file with a webhook body mixed in (a file whose first line is JSON is JSON lines throughout).
      const input = [`donation,${b.id}`, JSON.stringify({ object_type: 'donations', object_id: a.id, event_type: 'donations.update', application: 'Kentaa' })].join('\n');
      const run = await cliJson(stack, ['--dry-run', 'replay', '--file', '-'], cwd, input);
      expect(run.code).toBe(0);
      expectEnvelope(run, 'replay', true);
      expectOnlyTheChange(run.body);
      const insertB = run.body.result.records.find((r) => r.key === keyOf('donation', b.id));
      expect(insertB?.action).toBe('insert');
      expect(insertB?.changes).toBeUndefined();
      // b's action is not in Salesforce: it would be inserted first.
      expect(run.body.result.records.some((r) => r.key === keyOf('action', b.action_id as number) && r.action === 'insert')).toBe(true);
      expect(run.body.warnings.filter(isNotice)).toHaveLength(1);
      expectUntouched();
      expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', b.id))).toBeUndefined();
    });

    it('sync --since --json: only the changed record, as an update', async () => {
      const run = await cliJson(stack, ['--dry-run', 'sync', '--since', changedAt], cwd);
      expect(run.code).toBe(0);
      expectEnvelope(run, 'sync', true);
      expect(run.body.result.records).toHaveLength(1);
      expectOnlyTheChange(run.body);
      expectUntouched();
      expect(fs.existsSync(path.join(cwd, '.svc-sync', 'state.json'))).toBe(false);
    });
  });
});
