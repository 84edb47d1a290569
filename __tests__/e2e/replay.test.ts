/**
 * `svc-sync replay --file`: CSV (header optional, extra columns ignored) or JSON lines of webhook
 * bodies, `-` for stdin; each distinct record synced once; bad lines reported by number and skipped.
 * Exit code with bad lines: 1 (replay.ts: part of the input was not synced); with no valid line: 2.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, expectEnvelope, expectLinked, keyOf, removeDir, tempCwd, writeCalls, unstamp } from './helpers.js';

describe('replay --file', () => {
  let stack: Stack;
  let cwd: string;
  let donations: ApiDonation[];

  const write = (name: string, lines: string[]): string => {
    const file = path.join(cwd, name);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };

  beforeAll(async () => {
    stack = await startStack({ site: { donations: 60, newsletterSubscriptions: 6 } });
    cwd = tempCwd('replay');
    // Donations to distinct actions, so each case starts from parents Salesforce lacks.
    const seen = new Set<number>();
    donations = stack.platform.site.donation.filter((d) => {
      if (!donationSynced(d) || typeof d.action_id !== 'number' || seen.has(d.action_id)) return false;
      seen.add(d.action_id);
      return true;
    });
    if (donations.length < 6) throw new Error('site lacks donations to distinct actions');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('CSV with a header and an event_type column: duplicates synced once, a donation listed before its action still linked', async () => {
    const d = donations[0];
    const file = write('with-header.csv', [
      'object_type,object_id,event_type',
      `donation,${d.id},donations.update`,
      `donations,${d.id},donations.update`,
      `action,${d.action_id},actions.update`,
      `Donation,${d.id},donations.update`,
    ]);
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['replay', '--file', file], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'replay', false);
    expect(run.body.result.input).toEqual({ records: 2, duplicates: 2, badLines: [] });
    expect(run.body.result.summary.Svc_Donation__c.inserted).toBe(1);
    expect(run.body.result.summary.Svc_Action__c.inserted).toBe(1);
    expect(stack.platform.requests.byId.donations).toBe(1);
    expect(stack.platform.requests.byId.actions).toBe(1);
    expectLinked(stack, stack.platform.site, 'donation', d.id);
  });

  it('CSV without a header, and with the columns in another order under a header', async () => {
    const [, d1, d2] = donations;
    const plain = await cliJson(stack, ['replay', '--file', write('plain.csv', [`donation,${d1.id}`, `segment,${d1.segment_id}`])], cwd);
    expect(plain.code).toBe(0);
    expect(plain.body.result.input).toEqual({ records: 2, duplicates: 0, badLines: [] });
    expect(plain.body.result.summary.Svc_Donation__c.inserted).toBe(1);
    expectLinked(stack, stack.platform.site, 'donation', d1.id);

    const swapped = await cliJson(stack, ['replay', '--file', write('swapped.csv', ['object_id,event_type,object_type', `${d2.id},donations.update,donation`])], cwd);
    expect(swapped.code).toBe(0);
    expect(swapped.body.result.input).toEqual({ records: 1, duplicates: 0, badLines: [] });
    expectLinked(stack, stack.platform.site, 'donation', d2.id);
  });

  it('JSON lines of webhook bodies on stdin (`--file -`)', async () => {
    const d = donations[3];
    const subscription = stack.platform.site.newsletter_subscription[0];
    const body = (type: string, id: number | string, event: string): string => JSON.stringify({ object_type: type, object_id: id, event_type: event, application: 'Kentaa', site_id: 6 });
    const input = [
      body('donations', d.id, 'donations.update'),
      body('newsletter_subscriptions', subscription.id, 'newsletter_subscriptions.update'),
      body('donations', String(d.id), 'donations.update'),
    ].join('\n');
    const run = await cliJson(stack, ['replay', '--file', '-'], cwd, input);
    expect(run.code).toBe(0);
    expect(run.body.result.input).toEqual({ records: 2, duplicates: 1, badLines: [] });
    expect(run.body.result.summary.Svc_Donation__c.inserted).toBe(1);
    expect(run.body.result.summary.Svc_NewsletterSubscription__c.inserted).toBe(1);
    expectLinked(stack, stack.platform.site, 'donation', d.id);
    expectLinked(stack, stack.platform.site, 'newsletter_subscription', subscription.id);
  });

  it('JSON lines read as serve reads them: orders.update and news.create ignored (exit 0), questions.update re-syncs the action, users.update the actions the user owns by one scan; a line that is not JSON is unreadable (exit 1)', async () => {
    const site = stack.platform.site;
    const body = (type: string, id: number, event: string): string => JSON.stringify({ object_type: type, object_id: id, event_type: event, application: 'Kentaa' });
    // A user owning actions none of the earlier cases wrote, and an action with questions of another owner.
    const written = new Set(donations.map((d) => d.action_id));
    const owned = (userId: number): number[] => site.action.filter((a) => a.owner?.id === userId).map((a) => a.id);
    const owners = site.action.map((a) => a.owner?.id).filter((id): id is number => typeof id === 'number');
    const owner = owners.find((userId) => owned(userId).every((id) => !written.has(id)));
    if (owner === undefined) throw new Error('site lacks a user whose actions are unwritten');
    const questioned = site.action.find((a) => a.owner?.id !== owner && !written.has(a.id));
    if (!questioned) throw new Error('site lacks another unwritten action');
    const lines = [
      body('Order', 11, 'orders.update'),
      body('News', 12, 'news.create'),
      body('Action', questioned.id, 'questions.update'),
      body('User', owner, 'users.update'),
      body('Order', 13, 'orders.update'),
      body('User', owner, 'users.update'),
    ];
    stack.platform.resetCounts();
    const clean = await cliJson(stack, ['replay', '--file', write('events.jsonl', lines)], cwd);
    expect(clean.code).toBe(0);
    expect(clean.body.status).toBe(0);
    expect(clean.body.result.input).toEqual({
      records: 1,
      duplicates: 0,
      badLines: [],
      ignored: [
        { reason: 'object type Order is not mirrored', count: 2, lines: [1, 5] },
        { reason: 'object type News is not mirrored', count: 1, lines: [2] },
      ],
      usersUpdate: { users: 1, actions: owned(owner).length },
    });
    expect(clean.body.result.summary.Svc_Action__c.inserted).toBe(1 + owned(owner).length);
    for (const id of [questioned.id, ...owned(owner)]) expect(stack.salesforce.get('Svc_Action__c', keyOf('action', id))).toBeDefined();
    // The owner's actions: one scan of the action list for every users.update line, no request per action.
    // 1: the one by-id sample on the first list page that tells whether the list's records are complete (once per collection).
    expect(stack.platform.requests.byId.actions ?? 0).toBeLessThanOrEqual(2);

    const human = await cli(stack, ['replay', '--file', write('events-bad.jsonl', [...lines, 'not json'])], cwd);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/line 7: not valid JSON: "not json" \(skipped\)/);
    expect(human.stderr).not.toMatch(/unknown object type/);
    expect(human.stderr).toMatch(/ignored 2 lines \(as serve does\): object type Order is not mirrored \(line 1, 5\)/);
    expect(human.stderr).toMatch(/users\.update: 1 user owns \d+ actions? \(one scan of the action list\)/);
  });

  it('bad lines are reported with their line numbers and skipped; the rest is written; exit 1', async () => {
    const d = donations[4];
    const other = donations[5];
    const file = write('bad-lines.csv', [
      'object_type,object_id,event_type',
      `donation,${d.id},donations.update`,
      'widget,5,widgets.update',
      'donation,abc,donations.update',
      '{"object_type": "donations", "object_id":',
      '',
      `action,${other.action_id},actions.update`,
    ]);
    const run = await cliJson(stack, ['replay', '--file', file], cwd);
    expect(run.code).toBe(1);
    expect(run.body.status).toBe(1);
    expect(run.body.result.input?.badLines.map((b) => b.line)).toEqual([3, 4, 5]);
    for (const line of [3, 4, 5]) expect(run.body.warnings.some((w) => w.startsWith(`line ${line}:`))).toBe(true);
    expect(run.body.warnings.some((w) => w.startsWith('line 6:'))).toBe(false);
    expect(run.body.result.summary.Svc_Donation__c).toMatchObject({ inserted: 1, failed: 0 });
    expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', d.id))).toBeDefined();
    expect(stack.salesforce.get('Svc_Action__c', keyOf('action', other.action_id as number))).toBeDefined();

    const human = await cli(stack, ['replay', '--file', file], cwd);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/line 3: unknown object type "widget"/);
    expect(human.stderr).toMatch(/line 4: .*"abc"/);
    expect(human.stderr).toMatch(/line 5: not valid JSON/);
    // The last line says why the exit code is 1.
    expect(unstamp(human.stderr).trim().split('\n').at(-1)).toMatch(/^exit 1: 3 lines of --file .*bad-lines\.csv could not be read \(each named in a warning; not synced\); next: \S.*$/);
  });

  it('no valid line at all, or a file that cannot be read: exit 2, nothing written', async () => {
    const writes = writeCalls(stack);
    const none = await cli(stack, ['replay', '--file', write('all-bad.csv', ['widget,1', 'donation,-3'])], cwd);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no valid line/);
    const missing = await cli(stack, ['replay', '--file', path.join(cwd, 'does-not-exist.csv')], cwd);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot be read/);
    expect(writeCalls(stack)).toBe(writes);
  });

  it('ids that do not exist cost no request each once a complete list scan is in hand; the file is read in chunks', async () => {
    const real = stack.platform.site.donation.slice(0, 5).map((d) => d.id);
    // 600 distinct ids past the site's last donation, the real ones among them, and repeats across chunks.
    const ghosts = Array.from({ length: 600 }, (_, i) => 9_000_000 + i);
    const lines = ['object_type,object_id', ...ghosts.slice(0, 300).map((id) => `donation,${id}`), ...real.map((id) => `donation,${id}`), ...ghosts.map((id) => `donation,${id}`)];
    const file = write('ghosts.csv', lines);
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['replay', '--file', file, '--batch-size', '100'], cwd);
    expect(run.code).toBe(0);
    expect(run.body.result.input).toEqual({ records: 605, duplicates: 300, badLines: [] });
    // Before: one by-id request per ghost (600+). Now: the donation list once, then nothing per ghost.
    // 0: a full list page whose records carry every key the mapping reads shows the list complete.
    expect(stack.platform.requests.byId.donations ?? 0).toBe(0);
    expect(stack.platform.requests.list.donations).toBeLessThanOrEqual(2);
    const skipped = run.body.result.records.filter((r) => r.action === 'skip' && r.object === 'Svc_Donation__c');
    expect(skipped).toHaveLength(600);
    expect(new Set(skipped.map((r) => r.reason))).toEqual(new Set(['not found on the platform (deleted or never existed): not in a complete list scan']));
  });

  it('a quoted CSV field with a line break is one field', async () => {
    const d = donations[1];
    const file = write('multiline.csv', ['object_type,object_id,note', `donation,${d.id},"refunded,`, 'then paid again"', 'widget,1,x']);
    const run = await cliJson(stack, ['replay', '--file', file], cwd);
    expect(run.code).toBe(1);
    expect(run.body.result.input).toEqual({ records: 1, duplicates: 0, badLines: [{ line: 4, reason: 'unknown object type "widget"' }] });
  });

  it('a huge id is echoed cut and escaped; a line past the limit, or /dev/zero, stops with one line and no abort', async () => {
    const writes = writeCalls(stack);
    const big = write('big-id.csv', [`donation,${'7'.repeat(30_000)}`, `donation,"1\u2028${'8'.repeat(100)}"`]);
    const bigRun = await cli(stack, ['replay', '--file', big], cwd);
    expect(bigRun.code).toBe(2);
    expect(bigRun.stderr.length).toBeLessThan(1_000);
    expect(bigRun.stderr).toContain('(30000 characters)');

    const huge = path.join(cwd, 'huge-line.csv');
    fs.writeFileSync(huge, `donation,${'9'.repeat(2_000_000)}\n`);
    const hugeRun = await cli(stack, ['replay', '--file', huge], cwd);
    expect(hugeRun.code).toBe(2);
    expect(hugeRun.stderr.trim().split('\n')).toHaveLength(1);
    expect(hugeRun.stderr).toMatch(/--file .*huge-line\.csv: line 1 is longer than 64 KiB/);

    const zero = await cli(stack, ['replay', '--file', '/dev/zero'], cwd);
    expect(zero.code).toBe(2);
    expect(unstamp(zero.stderr)).toMatch(/^svc-sync: --file \/dev\/zero: line 1 is longer than 64 KiB/);
    expect(zero.stderr).not.toMatch(/bad_alloc|Aborted|heap/i);
    expect(writeCalls(stack)).toBe(writes);
  });
});
