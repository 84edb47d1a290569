/**
 * Golden shapes of the human output at 80 columns (stdout is a pipe here, so 80 is what the CLI
 * lays out for), for the big cases of issue 21: the widest line and the line count, so a site of
 * 20,000 records, 187 doctor findings or 50 failed events read in a screen or two, not hundreds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { renderQueue } from '../../src/cli/render/queueText.js';
import { renderHuman } from '../../src/cli/render/tables.js';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { emptyObjectCounts } from '../../src/model/outcomes.js';
import type { RunResult } from '../../src/sync/result.js';
import type { FailedEvent } from '../../src/webhook/queue/store.js';
import { cli, cliJson, removeDir, tempCwd } from '../e2e/helpers.js';

const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));
const lines = (text: string): number => text.replace(/\n$/, '').split('\n').length;

describe('doctor against an org where the permission set is not assigned', () => {
  const stacks: Stack[] = [];
  let cwd: string;
  beforeAll(() => {
    cwd = tempCwd('golden');
  });
  afterAll(async () => {
    await Promise.all(stacks.map((s) => s.close()));
    removeDir(cwd);
  });
  const start = async (fieldAccess: 'read' | 'none'): Promise<Stack> => {
    const s = await startStack({
      site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 1, newsletterSubscriptions: 0 },
      salesforce: { fieldAccess },
    });
    stacks.push(s);
    return s;
  };

  it('read-only fields: 187 findings (the eight objects and the sync log) in --json, the fix first and one line per object at 80 columns', async () => {
    const stack = await start('read');
    const json = await cliJson(stack, ['doctor'], cwd);
    const findings = (json.body.result as unknown as { findings: unknown[] }).findings;
    expect(findings).toHaveLength(187);
    const res = await cli(stack, ['doctor'], cwd);
    expect(res.code).toBe(1);
    const out = res.stdout.split('\n');
    expect(out.slice(0, 4).join('\n')).toMatch(/187 problem\(s\)\. To fix, run in this order:\n {2}1\. give the connected user access to the fields:\n {5}sf org assign permset --name \w+$/);
    expect(res.stdout.indexOf('sf org assign permset')).toBeLessThan(res.stdout.indexOf('Fields the connected user may read but not write (187):'));
    expect(res.stdout).toMatch(/^ {2}Svc_Donation__c\s+\d+: \w+__c, /m);
    expect(widest(res.stdout)).toBeLessThanOrEqual(80);
    expect(lines(res.stdout)).toBe(GOLDEN.doctorRead);
  });

  it('fields hidden from the user: within 80 columns, one line per object', async () => {
    const stack = await start('none');
    const res = await cli(stack, ['doctor'], cwd);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('sf org assign permset');
    expect(widest(res.stdout)).toBeLessThanOrEqual(80);
    expect(lines(res.stdout)).toBe(GOLDEN.doctorNone);
  });
});

describe('queue with 50 failed events', () => {
  const failed: FailedEvent[] = Array.from({ length: 50 }, (_, i) => ({
    id: 1000 + i,
    eventType: i % 2 ? 'donation.updated' : 'newsletter_subscription.created',
    refType: i % 2 ? 'donation' : 'newsletter_subscription',
    refId: 700_000 + i,
    attempts: 12,
    lastError: `network error connect ECONNREFUSED 127.0.0.1:${40000 + i} (platform) while reading /v1/donations/${700_000 + i}: the platform did not answer`,
    receivedAt: '2026-11-24T17:00:00.000Z',
    nextAttemptAt: '2026-11-24T18:04:13.512Z',
  }));

  it('fits 80 columns, one line per event, errors cut at a word with an ellipsis', () => {
    const text = renderQueue('/srv/svc-sync/queue.db', { queued: 3, due: 0, failed: 50, done: 6, skipped: 1, ignored: 1 } as never, failed, 80).join('\n');
    expect(widest(text)).toBeLessThanOrEqual(80);
    // The counts (two lines at 80), the heading, one line per event, the hint.
    expect(lines(text)).toBe(2 + 1 + 50 + 1);
    expect(text).toMatch(/^ {1,4}1000 {2}subscription 700000 {2}\s*12 {2}11-24 18:04 {2}network error .*…$/m);
    // Never a word split: the cut cell ends in a whole word of the message.
    const cut = text.split('\n')[3]!.split('  ').pop()!.replace('…', '');
    expect(failed[0]!.lastError.startsWith(cut)).toBe(true);
    expect(failed[0]!.lastError[cut.length]).toMatch(/[\s,:]/);
  });
});

describe('sync summary of a site of 20,000 records', () => {
  it('fits 80 columns in a bounded number of lines', () => {
    const objects = ['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Action__c', 'Svc_ActionQuestion__c', 'Svc_Donation__c', 'Svc_NewsletterSubscription__c'] as const;
    const summary = {} as RunResult['summary'];
    for (const o of objects) summary[o] = emptyObjectCounts();
    const records: RecordOutcome[] = [];
    for (let i = 0; i < 20_000; i++) {
      const object = objects[i % objects.length]!;
      const key = `${object.replace(/^Svc_|__c$/g, '')}_${i}`;
      const r: RecordOutcome =
        i % 100 === 1
          ? { object, key, action: 'update', changes: { Message__c: { from: 'a long old message '.repeat(10), to: 'a long new message '.repeat(10) } } }
          : i % 250 === 2
            ? { object, key, action: 'skip', reason: `parent Project_${i} is not on the platform (deleted or never published) so the record was not written` }
            : i % 1000 === 3
              ? { object, key, action: 'fail', error: { code: 'STRING_TOO_LONG', message: `Message: data value too large: ${'x'.repeat(200)} (max length=255)` } }
              : { object, key, action: 'insert' };
      records.push(r);
      const c = summary[object];
      if (r.action === 'insert') c.inserted += 1;
      else if (r.action === 'update') c.updated += 1;
      else if (r.action === 'skip') c.skipped += 1;
      else c.failed += 1;
    }
    const result: RunResult = {
      command: 'sync',
      dryRun: false,
      summary,
      requests: {
        platform: 412,
        salesforce: 37,
        platformByKind: { total: 412, byId: 0, list: 412, retries: 0, rateLimitWaits: 3, waitedMs: 95_000 },
        salesforceByKind: { total: 37, query: 12, collections: 0, bulk: 25, describe: 0, auth: 0 },
      },
      records,
      missingParents: [],
      outsideParents: [],
    };
    const text = renderHuman(result, { verbose: false, columns: 80 });
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(lines(text)).toBe(GOLDEN.sync20k);
    expect(text).toMatch(/^total\s+19,\d{3}\s+200\s+0\s+\d+\s+20$/m);
  });
});

/** Line counts at 80 columns: a change to the layout shows here as a changed figure. */
// Doctor's counts include the platform lists block (a title, a heading and a row per collection: 9 lines).
const GOLDEN = { doctorRead: 27, doctorNone: 31, sync20k: 74 };
