/**
 * `audit --delete-orphans` and `--fix` against a platform that is not the mirror's (another site
 * with overlapping ids, a site that lists nothing), partial list pages, a parent that cannot be
 * fetched, and Ctrl-C mid-delete: refused or stopped, never a wiped or overwritten mirror.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startFakePlatform, type FakePlatform } from '../../fixtures/platform/server.js';
import { generateSite, type Site, type SiteOptions } from '../../fixtures/platform/site.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiAction } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, keyOf, parseCsv, questionKey, questionSynced, recordCount, removeDir, tempCwd, unstamp, waitFor, writeCalls, type JsonRun } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

interface Deletion {
  object: string;
  key: string;
  outcome: string;
}

interface AuditJson {
  drift: Array<{ object: string; key: string; kind: string; reason?: string }>;
  problems: string[];
  deletions?: Deletion[];
  refused?: string;
  stopped?: string;
}

const resultOf = (run: JsonRun): AuditJson => run.body.result as unknown as AuditJson;

const SHAPE: SiteOptions = { segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, newsletterSubscriptions: 20 };

function emptied(site: Site): Site {
  const out = { ...site };
  for (const k of Object.keys(out) as Array<keyof Site>) (out[k] as unknown[]) = [];
  return out;
}

describe('audit guards', () => {
  let stack: Stack;
  let cwd: string;
  let other: FakePlatform;
  let empty: FakePlatform;
  const otherKey = 'key-other-site-5f2c9a71';

  beforeAll(async () => {
    stack = await startStack({ site: { ...SHAPE, seed: 7, donations: 150 } });
    cwd = tempCwd('audit-guards');
    // Another charity of the same agency: the same generator, so ids overlap, but other records and site 7.
    other = await startFakePlatform({ site: generateSite({ ...SHAPE, seed: 11, siteId: 7, donations: 60 }), apiKey: otherKey });
    empty = await startFakePlatform({ site: emptied(generateSite({ seed: 3 })), apiKey: otherKey });
    const sync = await cli(stack, ['sync', '--all'], cwd);
    expect(sync.code).toBe(0);
  });

  afterAll(async () => {
    await Promise.all([stack.close(), other.close(), empty.close()]);
    removeDir(cwd);
  });

  const otherEnv = (): Record<string, string> => ({ ...stack.env, SVC_API_URL: other.url, SVC_API_KEY: otherKey });

  it('another site with overlapping ids: --delete-orphans and --fix are refused, exit 2, nothing written', async () => {
    const before = recordCount(stack);
    stack.salesforce.resetCalls();
    const del = await cli(stack, ['audit', '--delete-orphans'], cwd, undefined, otherEnv());
    expect(del.code).toBe(2);
    expect(del.stderr).toMatch(/refused, nothing written: .*\d+ of \d+ Svc_Donation__c would be deleted/);
    expect(del.stderr).toMatch(/run again with --max-delete \d+/);
    const fix = await cliJson(stack, ['audit', '--fix'], cwd, undefined, otherEnv());
    expect(fix.code).toBe(2);
    expect(fix.body.status).toBe(2);
    expect(resultOf(fix).refused).toMatch(/would be overwritten .*--max-fix \d+/);
    expect((fix.body as unknown as { actions?: string[] }).actions).toEqual(expect.arrayContaining([expect.stringMatching(/^svc-sync audit/)]));
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(before);
    // The dry run shows what a real run would refuse, and writes nothing either.
    const dry = await cliJson(stack, ['--dry-run', 'audit', '--delete-orphans', '--fix'], cwd, undefined, otherEnv());
    expect(dry.code).toBe(1);
    expect(dry.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^a real run would be refused/)]));
    expect(writeCalls(stack)).toBe(0);
  });

  it('SVC_SITE_ID: records of another site stop audit and sync before anything is written', async () => {
    const before = recordCount(stack);
    stack.salesforce.resetCalls();
    for (const args of [
      ['audit', '--delete-orphans', '--max-delete', '100%'],
      ['audit', '--fix', '--max-fix', '100%'],
      ['sync', '--all'],
    ]) {
      const run = await cli(stack, args, cwd, undefined, { ...otherEnv(), SVC_SITE_ID: '6' });
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/SVC_SITE_ID is 6, but http:\/\/127\.0\.0\.1:\d+ serves records of site 7 \(segment \d+\): wrong SVC_API_URL or SVC_API_KEY\?/);
    }
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(before);
    // The right site passes, and a malformed id is a usage error naming the setting.
    expect((await cli(stack, ['audit'], cwd, undefined, { ...stack.env, SVC_SITE_ID: '6' })).code).toBe(0);
    const bad = await cli(stack, ['audit'], cwd, undefined, { ...stack.env, SVC_SITE_ID: 'six' });
    expect(bad.code).toBe(2);
    expect(unstamp(bad.stderr).trim()).toMatch(/^svc-sync: SVC_SITE_ID: must be a site's id/);
  });

  it('a site that lists nothing: refused without a single request by id, and a read-only audit says why', async () => {
    const before = recordCount(stack);
    empty.resetCounts();
    const del = await cli(stack, ['audit', '--delete-orphans'], cwd, undefined, { ...stack.env, SVC_API_URL: empty.url, SVC_API_KEY: otherKey });
    expect(del.code).toBe(2);
    expect(del.stderr).toMatch(/the platform lists no Svc_Segment__c records, Salesforce holds 2/);
    expect(del.stderr).toMatch(/--max-delete 100% if the platform really holds none/);
    expect(empty.requests.byIdTotal).toBe(0);
    expect(recordCount(stack)).toBe(before);
    const read = await cliJson(stack, ['audit'], cwd, undefined, { ...stack.env, SVC_API_URL: empty.url, SVC_API_KEY: otherKey });
    expect(read.code).toBe(1);
    expect(resultOf(read).problems).toEqual(expect.arrayContaining([expect.stringMatching(/^Svc_Donation__c: the platform lists none, Salesforce holds \d+: not confirmed one by one/)]));
    expect(resultOf(read).drift.filter((d) => d.kind === 'orphan')).toEqual([]);
    expect(empty.requests.byIdTotal).toBe(0);
  });

  it('list pages without payment_status and total_amount: every donation judged on its by-id record, none deleted', async () => {
    const before = recordCount(stack);
    const held = stack.salesforce.records('Svc_Donation__c').length;
    Object.assign(stack.platform.behaviour, { listOmit: { donations: ['payment_status', 'total_amount'] } });
    try {
      stack.platform.resetCounts();
      const run = await cliJson(stack, ['audit', '--delete-orphans'], cwd);
      expect(run.code).toBe(0);
      const result = resultOf(run);
      expect(result.drift).toEqual([]);
      expect((result.deletions ?? []).filter((d) => d.outcome === 'deleted')).toEqual([]);
      // The profile kept by the earlier sync says the lists were complete: the audit confirms that with
      // one record by id, finds the lists partial, and judges every donation on its by-id record.
      expect(held).toBeGreaterThan(0);
      expect(stack.platform.requests.byId.donations).toBe(stack.platform.site.donation.length);
      expect(recordCount(stack)).toBe(before);
    } finally {
      delete stack.platform.behaviour.listOmit;
    }
  });

  it('SVC_LIST_IDS_ONLY and an action whose GET by id fails: its questions are "unknown: parent not fetched", never deleted', async () => {
    const action = stack.platform.site.action.find((a: ApiAction) => (a.questions ?? []).filter(questionSynced).length > 0) as ApiAction;
    const questions = (action.questions ?? []).filter(questionSynced).map((q) => questionKey(action.id, q.id));
    const before = recordCount(stack);
    stack.platform.faults.next(100, 'html500', { path: new RegExp(`^/v1/actions/${action.id}$`) });
    try {
      const run = await cliJson(stack, ['audit', '--delete-orphans'], cwd, undefined, { ...stack.env, SVC_LIST_IDS_ONLY: 'true' });
      expect(run.code).toBe(1);
      const result = resultOf(run);
      expect(result.drift.filter((d) => questions.includes(d.key))).toEqual([]);
      for (const key of questions) expect(result.problems).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${key.replace('.', '\\.')}: unknown: parent not fetched`))]));
      expect(result.problems).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${keyOf('action', action.id)}: could not be fetched`))]));
      expect(recordCount(stack)).toBe(before);
    } finally {
      stack.platform.faults.clear();
    }
  });
});

describe('audit --delete-orphans stopped by Ctrl-C', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    stack = await startStack({ site: { ...SHAPE, seed: 5, donations: 120 } });
    cwd = tempCwd('audit-stop');
    expect((await cli(stack, ['sync', '--all'], cwd)).code).toBe(0);
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('the chunk in flight completes; stdout, --json and --report list every deletion done; exit 130', async () => {
    // Orphans in two objects: donations are deleted first (children), the subscriptions after them.
    const donations = stack.platform.site.donation
      .filter(donationSynced)
      .slice(0, 30)
      .map((d) => d.id);
    const subscriptions = stack.platform.site.newsletter_subscription.slice(0, 5).map((s) => s.id);
    for (const id of donations) stack.platform.remove('donation', id);
    for (const id of subscriptions) stack.platform.remove('newsletter_subscription', id);
    const heldBefore = stack.salesforce.records('Svc_Donation__c').length;
    stack.salesforce.slowDeletes(3_000);
    stack.salesforce.resetCalls();
    const report = path.join(cwd, 'drift.csv');
    const child = spawn(process.execPath, cliArgs(['--json', 'audit', '--delete-orphans', '--max-delete', '100%', '--report', report]), {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, HOME: cwd, ...stack.env },
      stdio: 'pipe',
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : -1))));
    // The first deletion call is in flight (audit is read-only until then).
    await waitFor(() => (stack.salesforce.calls().collections > 0 ? true : undefined), WAIT_MS, 'the first delete call');
    child.kill('SIGINT');
    const code = await exited;
    stack.salesforce.slowDeletes(0);
    expect(code).toBe(130);
    const result = (JSON.parse(stdout) as { status: number; result: AuditJson }).result;
    const deleted = (result.deletions ?? []).filter((d) => d.outcome === 'deleted');
    expect(deleted.map((d) => d.key).sort()).toEqual(donations.map((id) => keyOf('donation', id)).sort());
    expect((result.deletions ?? []).some((d) => d.object === 'Svc_NewsletterSubscription__c')).toBe(false);
    expect(result.stopped).toMatch(/stopped by Ctrl-C/);
    // What the report says is what Salesforce holds.
    expect(stack.salesforce.records('Svc_Donation__c')).toHaveLength(heldBefore - donations.length);
    for (const id of subscriptions) expect(stack.salesforce.get('Svc_NewsletterSubscription__c', keyOf('newsletter_subscription', id))).toBeDefined();
    const csv = parseCsv(fs.readFileSync(report, 'utf8'));
    expect(
      csv
        .filter((r) => r[5] === 'deleted')
        .map((r) => r[1])
        .sort(),
    ).toEqual(donations.map((id) => keyOf('donation', id)).sort());
  }, 60_000);
});
