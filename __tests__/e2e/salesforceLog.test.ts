/**
 * The sync log in the org (issue 30), end to end against the emulator: one error record per failing
 * record, counted up and resolved; the retry checkbox with no local state; retention; a dry run;
 * an org without the objects; and what the log costs in Salesforce calls.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, expectedKeys, expectFullMirror, removeDir, tempCwd, totals } from './helpers.js';

const RUNS = 'Svc_SyncRun__c';
const ERRORS = 'Svc_SyncError__c';

/** The requests the emulator saw that touched the log's two objects. */
const logCalls = (stack: Stack): string[] => stack.salesforce.requests().filter((r) => r.includes('Svc_SyncRun__c') || r.includes('Svc_SyncError__c'));

/** Marks today's retention as done, so a run's log calls are counted without the daily clean-up. */
function retentionDone(cwd: string): void {
  fs.mkdirSync(path.join(cwd, '.svc-sync'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.svc-sync', 'salesforce-log.json'), JSON.stringify({ retentionAt: new Date().toISOString() }));
}

interface LogResult {
  status: string;
  calls: number;
  opened?: number;
  resolved?: number;
  missing?: string[];
}

describe('the sync log: errors opened, counted up, resolved, retried from the org, cleaned up', () => {
  let stack: Stack;
  let cwd: string;
  let failing: string[];
  beforeAll(async () => {
    stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 30, newsletterSubscriptions: 2 } });
    cwd = tempCwd('salesforce-log');
    failing = expectedKeys(stack.platform.site).Svc_Donation__c.slice(0, 3);
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a planted validation failure gives one Open error per failing record, with code, message and fields, in 3 calls', async () => {
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: failing, message: "Amount needs the finance team's approval", field: 'Amount__c' });
    retentionDone(cwd);
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['sync', '--all'], cwd);
    expect(run.code).toBe(1);
    expect(totals(run.body.result).failed).toBe(3);
    expect(logCalls(stack)).toHaveLength(3);
    expect((run.body.result as unknown as { salesforceLog: LogResult }).salesforceLog).toMatchObject({ status: 'written', calls: 3, opened: 3, resolved: 0 });
    const [runRecord] = stack.salesforce.records(RUNS);
    expect(runRecord).toMatchObject({ Command__c: 'sync', Outcome__c: 'Partial', Failed__c: 3, Inserted__c: totals(run.body.result).inserted, Unchanged__c: 0 });
    expect(String(runRecord.Summary__c)).toMatch(/Svc_Donation__c/);
    const errors = stack.salesforce.records(ERRORS);
    expect(errors.map((e) => e.Key__c).sort()).toEqual([...failing].sort());
    for (const e of errors) {
      expect(e).toMatchObject({
        ObjectName__c: 'Svc_Donation__c',
        StatusCode__c: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
        Message__c: "Amount needs the finance team's approval",
        Fields__c: 'Amount__c',
        Attempts__c: 1,
        Status__c: 'Open',
        RetryRequested__c: false,
        LastRun__c: runRecord.Id,
      });
      expect(e.FirstFailedAt__c).toBe(e.LastFailedAt__c);
    }
  });

  it('a second failing run counts the attempt up on the same records, none added', async () => {
    const before = stack.salesforce.records(ERRORS);
    const run = await cliJson(stack, ['sync'], cwd);
    expect(run.code).toBe(1);
    const errors = stack.salesforce.records(ERRORS);
    expect(errors).toHaveLength(3);
    for (const e of errors) {
      const was = before.find((b) => b.Id === e.Id)!;
      expect({ key: e.Key__c, attempts: e.Attempts__c, status: e.Status__c, first: e.FirstFailedAt__c }).toEqual({ key: was.Key__c, attempts: 2, status: 'Open', first: was.FirstFailedAt__c });
    }
    expect(stack.salesforce.records(RUNS)).toHaveLength(2);
  });

  it('the fault removed, the next run resolves them', async () => {
    stack.salesforce.removeValidationRules();
    const run = await cliJson(stack, ['sync'], cwd);
    expect(run.code).toBe(0);
    expect((run.body.result as unknown as { salesforceLog: LogResult }).salesforceLog).toMatchObject({ status: 'written', resolved: 3, opened: 0 });
    for (const e of stack.salesforce.records(ERRORS)) expect(e).toMatchObject({ Status__c: 'Resolved', Attempts__c: 2, ResolvedAt__c: expect.any(String) });
    expectFullMirror(stack, stack.platform.site);
  });

  it('RetryRequested with the state file deleted: syncs exactly the ticked Open records, clears the box; an Ignored one is left alone', async () => {
    const [a, b] = failing;
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: [a, b], message: 'blocked', field: 'Amount__c' });
    for (const key of [a, b]) expect((await cli(stack, ['object', 'donation', key.replace('Donation_', ''), '--force'], cwd)).code).toBe(1);
    stack.salesforce.removeValidationRules();
    expect(stack.salesforce.get(ERRORS, a)).toMatchObject({ Status__c: 'Open', Attempts__c: 1 });
    // An admin ticks both; b is also marked Ignored. The mirror's copy of a is edited, so a sync shows as an update.
    stack.salesforce.editRecord(ERRORS, a, { RetryRequested__c: true });
    stack.salesforce.editRecord(ERRORS, b, { RetryRequested__c: true, Status__c: 'Ignored' });
    stack.salesforce.editRecord('Svc_Donation__c', a, { Amount__c: 0.01 });
    fs.rmSync(path.join(cwd, '.svc-sync'), { recursive: true, force: true });
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['sync', '--since', new Date().toISOString()], cwd);
    expect(run.code).toBe(0);
    expect(run.body.result.records.map((r) => [r.key, r.action])).toEqual([[a, 'update']]);
    expect(totals(run.body.result)).toEqual({ inserted: 0, updated: 1, unchanged: 0, skipped: 0, failed: 0 });
    expect(stack.salesforce.get(ERRORS, a)).toMatchObject({ Status__c: 'Resolved', RetryRequested__c: false });
    expect(stack.salesforce.get(ERRORS, b)).toMatchObject({ Status__c: 'Ignored', RetryRequested__c: true });
    expect(logCalls(stack).filter((r) => r.startsWith('GET /services/data/v62.0/query?q=SELECT Id, Key__c'))).toHaveLength(1);
  });

  it('retention deletes only the resolved errors and the runs past their days, at most once a day', async () => {
    const day = 24 * 60 * 60 * 1000;
    const ago = (days: number): string => new Date(Date.now() - days * day).toISOString().replace('Z', '+0000');
    const [a, b, c] = failing;
    stack.salesforce.editRecord(ERRORS, a, { ResolvedAt__c: ago(31) });
    stack.salesforce.editRecord(ERRORS, c, { ResolvedAt__c: ago(29) });
    const runs = stack.salesforce.records(RUNS);
    stack.salesforce.editRecord(RUNS, String(runs[0].RunKey__c), { FinishedAt__c: ago(91) });
    stack.salesforce.editRecord(RUNS, String(runs[1].RunKey__c), { FinishedAt__c: ago(89) });
    fs.rmSync(path.join(cwd, '.svc-sync', 'salesforce-log.json'), { force: true });
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['sync'], cwd);
    expect(run.code).toBe(0);
    // Two queries find what is due, one call deletes both objects' records.
    expect((run.body.result as unknown as { logRetention: { deleted: number; calls: number } }).logRetention).toEqual({ deleted: 2, calls: 3 });
    expect(stack.salesforce.requests().filter((r) => r.startsWith('DELETE'))).toHaveLength(1);
    expect(stack.salesforce.get(ERRORS, a)).toBeUndefined();
    expect(stack.salesforce.get(ERRORS, b)).toBeDefined();
    expect(stack.salesforce.get(ERRORS, c)).toBeDefined();
    expect(stack.salesforce.get(RUNS, String(runs[0].RunKey__c))).toBeUndefined();
    expect(stack.salesforce.get(RUNS, String(runs[1].RunKey__c))).toBeDefined();
    // The run record of a deleted run is gone; errors that pointed at it keep no dangling lookup.
    stack.salesforce.resetCalls();
    const again = await cliJson(stack, ['sync'], cwd);
    expect((again.body.result as unknown as { logRetention?: unknown }).logRetention).toBeUndefined();
    expect(stack.salesforce.requests().filter((r) => r.startsWith('DELETE'))).toEqual([]);
  });

  it('a dry run writes nothing to the log and makes no call for it', async () => {
    const errors = stack.salesforce.records(ERRORS);
    const runs = stack.salesforce.records(RUNS);
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', message: 'nothing passes' });
    try {
      stack.salesforce.resetCalls();
      const run = await cliJson(stack, ['--dry-run', 'sync', '--all', '--force'], cwd);
      expect(run.body.result.dryRun).toBe(true);
      expect(logCalls(stack)).toEqual([]);
      expect(stack.salesforce.records(ERRORS)).toEqual(errors);
      expect(stack.salesforce.records(RUNS)).toEqual(runs);
    } finally {
      stack.salesforce.removeValidationRules();
    }
  });

  it('audit --fix is a run too: a fix refused by the org opens its error record; a read-only audit writes nothing there', async () => {
    const key = expectedKeys(stack.platform.site).Svc_Donation__c[5];
    stack.salesforce.editRecord('Svc_Donation__c', key, { Amount__c: 0.02 });
    stack.salesforce.resetCalls();
    const readOnly = await cliJson(stack, ['audit', '--types', 'donations'], cwd);
    expect(readOnly.code).toBe(1);
    expect(logCalls(stack)).toEqual([]);
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: [key], message: 'frozen' });
    try {
      const fix = await cliJson(stack, ['audit', '--types', 'donations', '--fix'], cwd);
      expect(fix.code).toBe(1);
      const error = stack.salesforce.get(ERRORS, key);
      expect(error).toMatchObject({ Status__c: 'Open', Message__c: 'frozen', Attempts__c: 1 });
      const run = stack.salesforce.records(RUNS).find((r) => r.Id === error?.LastRun__c);
      expect(run).toMatchObject({ Command__c: 'audit', Outcome__c: 'Partial', Failed__c: 1 });
    } finally {
      stack.salesforce.removeValidationRules();
    }
  });

  it('a log the org refuses never changes the run: same exit code, the local report written, one line saying so', async () => {
    stack.salesforce.addValidationRule({ object: RUNS, message: 'runs are read-only this week' });
    const report = path.join(cwd, 'outcomes.csv');
    try {
      const res = await cli(stack, ['sync', '--report', report], cwd);
      expect(res.code).toBe(0);
      expect(fs.existsSync(report)).toBe(true);
      expect(res.stderr.split('\n').filter((l) => l.includes('salesforce log:'))).toEqual([expect.stringMatching(/salesforce log: the org refused the run record; the run's own outcome stands$/)]);
    } finally {
      stack.salesforce.removeValidationRules();
    }
  });

  it('SVC_SALESFORCE_LOG=off: no call for the log', async () => {
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['sync'], cwd, undefined, { ...stack.env, SVC_SALESFORCE_LOG: 'off' });
    expect(run.code).toBe(0);
    expect(logCalls(stack)).toEqual([]);
    expect((run.body.result as unknown as { salesforceLog?: unknown }).salesforceLog).toBeUndefined();
  });
});

describe('an org without the sync log objects', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 10, newsletterSubscriptions: 0 } });
    cwd = tempCwd('salesforce-log-missing');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('writes the mirror as today and says once which objects are missing and how to deploy them', async () => {
    const bare = await startStack({
      site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 10, newsletterSubscriptions: 0 },
      salesforce: { syncLog: false },
    });
    try {
      const res = await cli(bare, ['sync', '--all'], cwd);
      expect(res.code).toBe(0);
      expectFullMirror(bare, bare.platform.site);
      const lines = res.stderr.split('\n').filter((l) => l.includes('Svc_SyncRun__c'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/Svc_SyncRun__c and Svc_SyncError__c are missing; deploy the org setup: svc-sync schema --project svc-org && cd svc-org && sf project deploy start/);
      const json = await cliJson(bare, ['sync'], cwd);
      expect(json.code).toBe(0);
      expect((json.body.result as unknown as { salesforceLog: LogResult }).salesforceLog).toMatchObject({ status: 'missing', missing: ['Svc_SyncRun__c', 'Svc_SyncError__c'], calls: 2 });
    } finally {
      await bare.close();
    }
  });

  it('the log costs at most 3 calls a run at 0, 1 and 200 failures', async () => {
    const big = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 400, newsletterSubscriptions: 0 } });
    const dir = tempCwd('salesforce-log-cost');
    try {
      const keys = expectedKeys(big.platform.site).Svc_Donation__c;
      expect(keys.length).toBeGreaterThanOrEqual(200);
      const measured: Array<[number, number]> = [];
      retentionDone(dir);
      for (const n of [0, 1, 200]) {
        big.salesforce.removeValidationRules();
        if (n > 0) big.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: keys.slice(0, n), message: 'refused' });
        big.salesforce.resetCalls();
        const run = await cliJson(big, ['sync', '--all', '--force'], dir);
        expect(totals(run.body.result).failed).toBe(n);
        measured.push([n, logCalls(big).length]);
      }
      expect(measured).toEqual([
        [0, 2],
        [1, 3],
        [200, 3],
      ]);
      expect(big.salesforce.records(ERRORS).filter((e) => e.Status__c === 'Open')).toHaveLength(200);
    } finally {
      await big.close();
      removeDir(dir);
    }
  }, 120_000);
});

/** Issue 37, row 9: a ticked error record that cannot be synced is marked and unticked in the same run. */
describe('Retry Requested on a record that cannot be synced', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 4, donations: 5, newsletterSubscriptions: 0 } });
    cwd = tempCwd('salesforce-log-retry');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  /** Error records as an admin (or a data loader) makes them: Open, the box ticked. */
  async function ticked(keys: string[]): Promise<void> {
    const sf = stack.salesforce;
    const records = keys.map((key) => ({ attributes: { type: ERRORS }, Key__c: key, Name: key, Status__c: 'Open', RetryRequested__c: true, Attempts__c: 1, Message__c: 'blocked' }));
    const res = await fetch(`${sf.url}/services/data/v${sf.apiVersion}/composite/sobjects/${ERRORS}/Key__c`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${sf.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ allOrNone: true, records }),
    });
    expect(res.status).toBe(200);
  }

  it('a removed question and an id the platform does not have are Ignored, saying why; keys not in canonical form are refused with a reason; all unticked, none retried again', async () => {
    expect((await cli(stack, ['sync', '--all'], cwd)).code).toBe(0);
    const action = stack.platform.site.action.find((a) => (a.questions ?? []).length > 0)!;
    const removed = action.questions!.pop()!;
    const questionKey = `ActionQuestion_${action.id}.${removed.id}`;
    const donation = stack.platform.site.donation[0]!.id;
    const malformed = [`Donation_0${donation}`, 'Donation_99999999999999999999', `donation_${donation}`, 'Svc_Donation__c', 'Donation_-5'];
    const missing = 'Donation_99999999';
    await ticked([questionKey, missing, ...malformed]);
    const run = await cliJson(stack, ['sync', '--since', new Date().toISOString()], cwd);
    expect(run.code).toBe(0);
    expect(run.body.warnings).toContain(
      `salesforce log: 5 Retry Requested refused and unticked: not a key svc-sync writes (${malformed
        .slice(0, 3)
        .map((k) => JSON.stringify(k))
        .join(', ')}, ...)`,
    );
    expect(stack.salesforce.get(ERRORS, questionKey)).toMatchObject({
      Status__c: 'Ignored',
      RetryRequested__c: false,
      Message__c: `retry: not on the platform any more (action ${action.id} has no such question); nothing to sync`,
    });
    // A record the platform answers 404 for: nothing was written, so not Resolved: Ignored, saying why.
    expect(stack.salesforce.get(ERRORS, missing)).toMatchObject({
      Status__c: 'Ignored',
      RetryRequested__c: false,
      Message__c: 'retry: nothing to sync (not found on the platform (deleted or never existed): 404 by id)',
    });
    for (const key of malformed) {
      expect(stack.salesforce.get(ERRORS, key)).toMatchObject({ Status__c: 'Open', RetryRequested__c: false, Message__c: expect.stringMatching(/^retry refused: not a key svc-sync writes/) });
    }
    // Nothing left ticked: the next run retries nothing.
    const again = await cliJson(stack, ['sync', '--since', new Date().toISOString()], cwd);
    expect((again.body.result as unknown as { retryRequested: number }).retryRequested).toBe(0);
    expect(again.body.result.records).toEqual([]);
  }, 60_000);
});
