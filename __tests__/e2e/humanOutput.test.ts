/**
 * What a person reads, on a site of a few hundred records: the per-object summary first and
 * within 80 columns, inserts as counts (listed with -v), skips grouped by reason with counts and
 * example keys, every line fitting the width. A record a spec filter leaves out on its own fields
 * (a pending donation) is skipped before its parents are looked at: nothing is written for it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, keyOf, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';

describe('human output', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: { seed: 11, donations: 300, newsletterSubscriptions: 30, unlinkableSubscriptions: 2 } });
    cwd = tempCwd('human');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));

  it('object donation <pending id>: skipped with its reason in the normal output, no parent written for it', async () => {
    const pending = stack.platform.site.donation.find((d) => d.payment_status === 'pending' && typeof d.action_id === 'number')!;
    const res = await cli(stack, ['object', 'donation', String(pending.id)], cwd);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Skipped \(1\), by reason:\n\s*1 +Svc_Donation__c: payment status not synced: payment_status 'pending'/);
    expect(res.stdout).toContain(keyOf('donation', pending.id));
    // Decided on the donation's own fields: its action, team, project and segment were not written.
    expect(recordCount(stack)).toBe(0);
    expect(writeCalls(stack)).toBe(0);
  });

  it('object donation <unknown id>: "not found on the platform" without -v, exit 3 (the one record asked for is not there)', async () => {
    const res = await cli(stack, ['object', 'donation', '999999'], cwd);
    expect(res.code).toBe(3);
    expect(res.stdout).toMatch(/1 +Svc_Donation__c: not found on the platform/);
    expect(res.stderr).toMatch(/exit 3: donation \d+ is not on the platform \(deleted or never existed\)/);
  });

  it('a dry-run of the whole site: summary first, no line per insert, skips grouped, nothing wider than 80 columns', async () => {
    const res = await cli(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^object\s+inserted\s+updated\s+unchanged\s+skipped\s+failed$/);
    expect(lines[1]).toMatch(/^Svc_Segment__c\s+\d+/);
    expect(widest(res.stdout)).toBeLessThanOrEqual(80);
    // Hundreds of inserts are counts: the whole report is one screen or so.
    expect(lines.length).toBeLessThan(40);
    expect(res.stdout).not.toMatch(/Inserts \(/);
    const site = stack.platform.site;
    const pending = site.donation.filter((d) => d.payment_status === 'pending').length;
    expect(res.stdout).toMatch(new RegExp(`\\n\\s*${pending} +Svc_Donation__c: payment status not synced: payment_status 'pending'`));
    // A few example keys per reason, not all of them.
    const example = lines.find((l) => /^\s+e\.g\. Donation_/.test(l))!;
    expect(example.split(',').length).toBeLessThanOrEqual(4);
    expect(res.stdout).toMatch(/Missing parents \(2\), by reason:/);
    expect(recordCount(stack)).toBe(0);
  });

  it('with -v the inserts are listed by key, still within 80 columns', async () => {
    const res = await cli(stack, ['--dry-run', '-v', 'sync', '--all', '--types', 'segment,project'], cwd);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Inserts \(\d+\):\n +Svc_Segment__c: Segment_\d+/);
    for (const p of stack.platform.site.project) expect(res.stdout).toContain(keyOf('project', p.id));
    expect(widest(res.stdout)).toBeLessThanOrEqual(80);
  });
});
