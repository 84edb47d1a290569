/** `svc-sync sync`: a full backfill, a re-run that changes nothing, the watermark, and --report. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, expectEnvelope, isStartCheck, expectFullMirror, expectedKeys, keyOf, OBJECTS, parseCsv, recordCount, removeDir, tempCwd, totals, writeCalls } from './helpers.js';

interface StateOnDisk {
  version: number;
  watermarks?: Record<string, string>;
  run?: unknown;
}

/** The one watermark every type got from a run of all types. */
function watermarkOf(state: StateOnDisk): string | undefined {
  const values = [...new Set(Object.values(state.watermarks ?? {}))];
  expect(Object.keys(state.watermarks ?? {}).sort()).toEqual(['action', 'company', 'donation', 'newsletter_subscription', 'project', 'segment', 'team']);
  return values.length === 1 ? values[0] : undefined;
}

describe('sync', () => {
  let stack: Stack;
  let cwd: string;
  const stateFile = (): StateOnDisk => JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as StateOnDisk;

  beforeAll(async () => {
    // The demo's site (fixtures/demo.ts): 2 segments, 4 projects, 8 teams, 4 companies, 32 actions, 150 donations, 20 subscriptions.
    stack = await startStack({ site: { segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 150, newsletterSubscriptions: 20 } });
    cwd = tempCwd('sync');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('without --since, --all or a watermark: exit 2 with a clear message, nothing written', async () => {
    const res = await cli(stack, ['sync'], cwd);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no watermark/);
    expect(res.stderr).toMatch(/--since/);
    expect(res.stderr).toMatch(/--all/);
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
    expect(stack.platform.requests.total).toBe(0);
  });

  it('sync --all writes every object with every lookup set; --report has one CSV row per outcome', async () => {
    const report = path.join(cwd, 'outcomes.csv');
    const run = await cliJson(stack, ['sync', '--all', '--report', report], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'sync', false);
    expect(run.body.result.resumed).toBe(false);
    expect(run.body.result.since).toBeNull();
    const want = expectedKeys(stack.platform.site);
    for (const o of OBJECTS) expect({ o, inserted: run.body.result.summary[o].inserted }).toEqual({ o, inserted: want[o].length });
    expect(totals(run.body.result)).toMatchObject({ updated: 0, failed: 0 });
    expect(want.Svc_Donation__c.length).toBeGreaterThan(100);
    expectFullMirror(stack, stack.platform.site);

    // The state file: a watermark, no run in progress.
    const state = stateFile();
    expect(state.run).toBeUndefined();
    expect(typeof watermarkOf(state)).toBe('string');
    expect(run.body.result.watermarks).toEqual(state.watermarks);

    // --report: a header and one row per outcome (skips included), keys matching the summary.
    const rows = parseCsv(fs.readFileSync(report, 'utf8'));
    expect(rows[0]).toEqual(['object', 'key', 'action', 'changed_fields', 'reason', 'error_code', 'error_message', 'warnings']);
    const body = rows.slice(1);
    const t = totals(run.body.result);
    expect(body).toHaveLength(t.inserted + t.updated + t.unchanged + t.skipped + t.failed);
    for (const o of OBJECTS) {
      const inserted = body
        .filter((r) => r[0] === o && r[2] === 'insert')
        .map((r) => r[1])
        .sort();
      expect({ o, inserted }).toEqual({ o, inserted: want[o] });
    }
    const skips = body.filter((r) => r[2] === 'skip');
    expect(skips).toHaveLength(t.skipped);
    for (const s of skips) expect(s[4]).toMatch(/\S/);
  });

  it('a second sync --all reports zero inserts and zero updates and makes no upsert call', async () => {
    const writes = writeCalls(stack);
    const run = await cliJson(stack, ['sync', '--all'], cwd);
    expect(run.code).toBe(0);
    const t = totals(run.body.result);
    expect(t).toMatchObject({ inserted: 0, updated: 0, failed: 0 });
    const want = expectedKeys(stack.platform.site);
    expect(t.unchanged).toBe(OBJECTS.reduce((n, o) => n + want[o].length, 0));
    expect(run.body.result.records.every((r) => r.action === 'skip')).toBe(true);
    expect(writeCalls(stack)).toBe(writes);
  });

  it('sync without --since continues from the watermark: only what changed since is scanned and written', async () => {
    const before = watermarkOf(stateFile());
    if (before === undefined) throw new Error('no watermark after the full sync');
    const donation = stack.platform.site.donation.find((d) => stack.salesforce.get('Svc_Donation__c', keyOf('donation', d.id)) !== undefined);
    if (!donation) throw new Error('no synced donation');
    stack.platform.update('donation', donation.id, { message: 'Changed after the backfill' });
    stack.platform.resetCounts();

    const run = await cliJson(stack, ['sync'], cwd);
    expect(run.code).toBe(0);
    expect(run.body.result.since).toBe(before);
    expect(run.body.result.records).toEqual([expect.objectContaining({ object: 'Svc_Donation__c', key: keyOf('donation', donation.id), action: 'update' })]);
    expect(Object.keys(run.body.result.records[0].changes ?? {}).sort()).toEqual(['Message__c', 'UpdatedAt__c']);
    expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', donation.id))?.Message__c).toBe('Changed after the backfill');
    // Every list request was narrowed to the watermark.
    const lists = stack.platform.requests.log.filter((e) => e.kind === 'list' && !isStartCheck(e));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    for (const e of lists) {
      const after = new URL(e.url, 'http://127.0.0.1').searchParams.get('updated_after');
      expect(after === null ? NaN : Date.parse(after)).toBe(Date.parse(before));
    }
    const next = watermarkOf(stateFile());
    expect(next !== undefined && Date.parse(next) > Date.parse(before)).toBe(true);
  });
});
