/**
 * `svc-sync audit` end to end: after a full sync, drift of every kind is planted on both sides,
 * and the audit must find exactly that set; then --fix, --delete-orphans and a clean final audit.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiAction, ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, expectFullMirror, keyOf, OBJECTS, parseCsv, questionKey, questionSynced, recordCount, removeDir, tempCwd, writeCalls, type JsonRun } from './helpers.js';

interface Drift {
  object: string;
  key: string;
  kind: 'missing' | 'stale' | 'orphan';
  fields?: string[];
  reason?: string;
}

interface Deletion {
  object: string;
  key: string;
  id: string;
  outcome: 'deleted' | 'would delete' | 'kept' | 'failed';
  reason?: string;
}

interface AuditJson {
  command: string;
  dryRun: boolean;
  drift: Drift[];
  summary: Record<string, { inSync: number; missing: number; stale: number; orphan: number }>;
  requests: { platform: number; salesforce: number };
  problems: string[];
  fixes?: Array<{ object: string; key: string; action: string }>;
  deletions?: Deletion[];
  remaining?: Drift[];
}

const resultOf = (run: JsonRun): AuditJson => run.body.result as unknown as AuditJson;

/** Drift rows as comparable strings: kind, object, key, and the differing fields or the reason's gist. */
const rows = (drift: Drift[]): string[] => drift.map((d) => `${d.kind} ${d.object} ${d.key}${d.fields ? ` [${[...d.fields].sort().join(',')}]` : ''}`).sort();

describe('audit', () => {
  let stack: Stack;
  let cwd: string;
  /** What was planted, as `rows` prints it. */
  const planted: string[] = [];
  const reasons = new Map<string, RegExp>();

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 7, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 150, newsletterSubscriptions: 20 } });
    cwd = tempCwd('audit');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('usage errors exit 2 before any request', async () => {
    for (const args of [
      ['audit', '--types', 'widgets'],
      ['audit', '--batch-size', '0'],
      ['audit', '--report', path.join(cwd, 'no', 'such', 'dir', 'r.csv')],
    ]) {
      const res = await cli(stack, args, cwd);
      expect({ args, code: res.code }).toEqual({ args, code: 2 });
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(stack.platform.requests.total).toBe(0);
    expect(stack.salesforce.calls().query).toBe(0);
  });

  it('right after a full sync: exit 0, no drift, every record in sync, within the request budgets', async () => {
    const sync = await cliJson(stack, ['sync', '--all'], cwd);
    expect(sync.code).toBe(0);
    expect(sync.body.result).toMatchObject({ orphanCandidates: [] });
    stack.platform.resetCounts();
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['audit'], cwd);
    expect(run.code).toBe(0);
    const result = resultOf(run);
    expect(result.command).toBe('audit');
    expect(result.drift).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(Object.keys(result.summary).sort()).toEqual([...OBJECTS].sort());
    for (const o of OBJECTS) {
      expect({ o, ...result.summary[o] }).toEqual({ o, inSync: stack.salesforce.records(o).length, missing: 0, stale: 0, orphan: 0 });
    }
    expect(writeCalls(stack)).toBe(0);
    // The budgets of the issue, against the servers' own counts.
    const records = Object.values(stack.platform.site).reduce((n, list) => n + list.length, 0);
    expect(stack.platform.requests.byIdTotal).toBe(0);
    expect(stack.platform.requests.total).toBe(result.requests.platform);
    expect(stack.salesforce.calls().total).toBe(result.requests.salesforce);
    expect(result.requests.platform).toBeLessThanOrEqual(Math.ceil(records * 0.015) + 8);
  });

  it('above the bulk threshold the key walk is one Bulk API 2.0 query job, with the same verdict', async () => {
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['--bulk-threshold', '100', 'audit'], cwd);
    expect(run.code).toBe(0);
    expect(resultOf(run).drift).toEqual([]);
    // Only donations (more than 100) take the Bulk path; nothing was written.
    expect(stack.salesforce.bulkJobs()).toEqual([]);
    expect(stack.salesforce.calls().bulk).toBeGreaterThanOrEqual(3);
    expect(writeCalls(stack)).toBe(stack.salesforce.calls().bulk);
  });

  it('finds exactly the planted drift: platform edits and deletions, a pending donation, a cleared answer, hand edits and deletions in Salesforce', async () => {
    const site = stack.platform.site;
    const sf = stack.salesforce;
    const withQuestions = site.action.filter((a) => (a.questions ?? []).some(questionSynced));
    const donationsOf = (a: ApiAction): ApiDonation[] => site.donation.filter((d) => d.action_id === a.id);

    // 1. A project edited on the platform (a lost webhook): its Name and Title change, and updated_at.
    const project = site.project[1];
    stack.platform.update('project', project.id, { title: 'Renamed by the organiser' });
    planted.push(`stale Svc_Project__c ${keyOf('project', project.id)} [Name,Title__c,UpdatedAt__c]`);

    // 2. A fundraiser page removed on the platform with its donations: action, questions, donations are orphans.
    const removed = withQuestions.find((a) => donationsOf(a).some(donationSynced)) as ApiAction;
    for (const d of donationsOf(removed)) {
      stack.platform.remove('donation', d.id);
      if (donationSynced(d)) planted.push(`orphan Svc_Donation__c ${keyOf('donation', d.id)}`);
    }
    stack.platform.remove('action', removed.id);
    planted.push(`orphan Svc_Action__c ${keyOf('action', removed.id)}`);
    for (const q of (removed.questions ?? []).filter(questionSynced)) planted.push(`orphan Svc_ActionQuestion__c ${questionKey(removed.id, q.id)}`);
    reasons.set(keyOf('action', removed.id), /404/);

    // 3. A paid donation that went back to pending (not the removed action's).
    const paid = site.donation.find((d) => donationSynced(d) && d.action_id !== removed.id && d.payment_status === 'paid') as ApiDonation;
    stack.platform.update('donation', paid.id, { payment_status: 'pending' });
    planted.push(`orphan Svc_Donation__c ${keyOf('donation', paid.id)}`);
    reasons.set(keyOf('donation', paid.id), /no longer eligible: payment status/);

    // 4. A cleared answer: the question is an orphan; the action's updated_at moves with it.
    const answered = withQuestions.find((a) => a.id !== removed.id) as ApiAction;
    const cleared = (answered.questions ?? []).find(questionSynced)!;
    stack.platform.update('action', answered.id, { questions: (answered.questions ?? []).map((q) => (q.id === cleared.id ? { ...q, answer: '  ' } : q)) });
    planted.push(`orphan Svc_ActionQuestion__c ${questionKey(answered.id, cleared.id)}`);
    planted.push(`stale Svc_Action__c ${keyOf('action', answered.id)} [UpdatedAt__c]`);
    reasons.set(questionKey(answered.id, cleared.id), /no longer eligible: blank answer/);

    // 5. A new paid donation nobody announced.
    const template = site.donation.find((d) => donationSynced(d) && d.action_id !== removed.id && d.id !== paid.id) as ApiDonation;
    const fresh = { ...template, id: 99999 };
    stack.platform.add('donation', fresh);
    planted.push(`missing Svc_Donation__c ${keyOf('donation', fresh.id)}`);

    // 6. By hand in Salesforce: a subscription and a donation deleted, a title and a lookup edited.
    const sub = site.newsletter_subscription[3];
    expect(sf.deleteRecord('Svc_NewsletterSubscription__c', keyOf('newsletter_subscription', sub.id))).toBe(true);
    planted.push(`missing Svc_NewsletterSubscription__c ${keyOf('newsletter_subscription', sub.id)}`);
    const deletedInSf = site.donation.find((d) => donationSynced(d) && d.action_id !== removed.id && ![paid.id, template.id].includes(d.id)) as ApiDonation;
    expect(sf.deleteRecord('Svc_Donation__c', keyOf('donation', deletedInSf.id))).toBe(true);
    planted.push(`missing Svc_Donation__c ${keyOf('donation', deletedInSf.id)}`);
    const edited = site.action.find((a) => a.id !== removed.id && a.id !== answered.id) as ApiAction;
    sf.editRecord('Svc_Action__c', keyOf('action', edited.id), { Title__c: 'Edited in Salesforce' });
    planted.push(`stale Svc_Action__c ${keyOf('action', edited.id)} [Title__c]`);
    const relinked = site.donation.find((d) => donationSynced(d) && d.action_id !== removed.id && ![paid.id, template.id, deletedInSf.id].includes(d.id)) as ApiDonation;
    sf.editRecord('Svc_Donation__c', keyOf('donation', relinked.id), { Svc_Segment__c: null });
    planted.push(`stale Svc_Donation__c ${keyOf('donation', relinked.id)} [Svc_Segment__c]`);

    const before = recordCount(stack);
    stack.platform.resetCounts();
    stack.salesforce.resetCalls();
    const report = path.join(cwd, 'drift.csv');
    const run = await cliJson(stack, ['audit', '--report', report], cwd);
    expect(run.code).toBe(1);
    expect(run.body.status).toBe(1);
    const result = resultOf(run);
    expect(rows(result.drift)).toEqual([...planted].sort());
    for (const d of result.drift) {
      const want = reasons.get(d.key);
      if (want) expect({ key: d.key, reason: d.reason }).toEqual({ key: d.key, reason: expect.stringMatching(want) });
      if (d.kind === 'orphan') expect(typeof d.reason).toBe('string');
      else expect(d.reason).toBeUndefined();
    }
    // Every orphan was confirmed by one GET by id: those gone from the platform (the action once, for
    // its questions too), and those a list page shows as no longer eligible (the pending donation, and
    // the action whose answer was cleared), judged on their by-id records.
    const gone = result.drift.filter((d) => d.kind === 'orphan' && /404/.test(d.reason ?? ''));
    const ineligible = result.drift.filter((d) => d.kind === 'orphan' && /no longer eligible/.test(d.reason ?? ''));
    expect(ineligible.map((d) => d.reason)).toEqual(ineligible.map(() => expect.stringMatching(/\(by-id record\)$/)));
    expect(stack.platform.requests.byIdTotal).toBe(gone.filter((d) => d.object !== 'Svc_ActionQuestion__c').length + ineligible.length);
    // Read-only.
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(before);
    // The summary counts the same rows.
    for (const o of OBJECTS) {
      const of = result.drift.filter((d) => d.object === o);
      expect({ o, missing: result.summary[o].missing, stale: result.summary[o].stale, orphan: result.summary[o].orphan }).toEqual({
        o,
        missing: of.filter((d) => d.kind === 'missing').length,
        stale: of.filter((d) => d.kind === 'stale').length,
        orphan: of.filter((d) => d.kind === 'orphan').length,
      });
    }
    // --report: every drift row as CSV.
    const csv = parseCsv(fs.readFileSync(report, 'utf8'));
    expect(csv[0]).toEqual(['object', 'key', 'kind', 'fields', 'reason', 'outcome']);
    expect(
      csv
        .slice(1)
        .map((r) => `${r[2]} ${r[0]} ${r[1]}${r[3] ? ` [${r[3].split(' ').sort().join(',')}]` : ''}`)
        .sort(),
    ).toEqual([...planted].sort());
  });

  it('human output: a per-object table and the drift grouped by kind, within 80 columns', async () => {
    const res = await cli(stack, ['audit'], cwd);
    expect(res.code).toBe(1);
    for (const line of res.stdout.split('\n')) expect({ line, width: [...line].length <= 80 }).toEqual({ line, width: true });
    expect(res.stdout).toMatch(/^object\s+in sync\s+missing\s+stale\s+orphan$/m);
    expect(res.stdout).toMatch(/Missing from Salesforce: 3/);
    expect(res.stdout).toMatch(/Stale in Salesforce \(fields that differ\): 4/);
    expect(res.stdout).toMatch(/Orphans in Salesforce: \d+/);
    expect(res.stdout).toMatch(/Svc_Action__c Action_\d+: Title__c/);
  });

  it('sync --all lists the orphans its scans show, without asking the platform for more', async () => {
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['--dry-run', 'sync', '--all'], cwd);
    expect(run.code).toBe(0);
    const candidates = (run.body.result as unknown as { orphanCandidates: Array<{ object: string; key: string; reason: string }> }).orphanCandidates;
    const orphans = planted.filter((p) => p.startsWith('orphan ')).map((p) => p.split(' ').slice(1, 3).join(' '));
    expect(candidates.map((c) => `${c.object} ${c.key}`).sort()).toEqual([...orphans].sort());
    expect(stack.platform.requests.byIdTotal).toBe(stack.platform.requests.byId.users ?? 0);
  });

  it('--fix writes the missing and stale records, leaving only the orphans', async () => {
    // What sync recorded of the actions' owners is set aside: the fix records those it writes.
    const ownersFile = path.join(cwd, '.svc-sync', 'owners.json');
    fs.rmSync(ownersFile, { force: true });
    const run = await cliJson(stack, ['audit', '--fix'], cwd);
    expect(run.code).toBe(1);
    const result = resultOf(run);
    expect(rows(result.remaining ?? [])).toEqual(planted.filter((p) => p.startsWith('orphan ')).sort());
    expect(rows(result.drift)).toEqual([...planted].sort());
    const written = (result.fixes ?? [])
      .filter((f) => f.action === 'insert' || f.action === 'update')
      .map((f) => f.key)
      .sort();
    expect(written).toEqual(
      planted
        .filter((p) => !p.startsWith('orphan '))
        .map((p) => p.split(' ')[2])
        .sort(),
    );
    // Whose fields each fixed action's owner fields now hold, by user id (serve keeps them only for the same user).
    const owners = (JSON.parse(fs.readFileSync(ownersFile, 'utf8')) as { owners: Record<string, number> }).owners;
    const fixedActions = written.filter((k) => k.startsWith('Action_')).map((k) => Number(k.slice('Action_'.length)));
    expect(fixedActions.length).toBeGreaterThan(0);
    for (const id of fixedActions) expect(owners[String(id)]).toBe(stack.platform.site.action.find((a) => a.id === id)?.owner?.id);
    const again = await cliJson(stack, ['audit'], cwd);
    expect(rows(resultOf(again).drift)).toEqual(planted.filter((p) => p.startsWith('orphan ')).sort());
  });

  it('--dry-run --delete-orphans lists what would be deleted and deletes nothing', async () => {
    const before = recordCount(stack);
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['--dry-run', 'audit', '--delete-orphans'], cwd);
    expect(run.code).toBe(1);
    const deletions = resultOf(run).deletions ?? [];
    expect(deletions.map((d) => `orphan ${d.object} ${d.key}`).sort()).toEqual(planted.filter((p) => p.startsWith('orphan ')).sort());
    expect(new Set(deletions.map((d) => d.outcome))).toEqual(new Set(['would delete']));
    expect(recordCount(stack)).toBe(before);
    expect(writeCalls(stack)).toBe(0);
  });

  it('--delete-orphans deletes them, children before parents, and a final audit is clean', async () => {
    const before = recordCount(stack);
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['audit', '--delete-orphans'], cwd);
    expect(run.code).toBe(0);
    const result = resultOf(run);
    const deletions = result.deletions ?? [];
    expect(deletions.every((d) => d.outcome === 'deleted')).toBe(true);
    expect(deletions).toHaveLength(planted.filter((p) => p.startsWith('orphan ')).length);
    expect(result.remaining).toEqual([]);
    // The action after its questions and donations.
    const at = (object: string): number[] => deletions.map((d, i) => (d.object === object ? i : -1)).filter((i) => i >= 0);
    expect(Math.min(...at('Svc_Action__c'))).toBeGreaterThan(Math.max(...at('Svc_Donation__c'), ...at('Svc_ActionQuestion__c')));
    expect(recordCount(stack)).toBe(before - deletions.length);
    // One Collections call per object (each under 200 Ids); the run's record in the sync log apart.
    expect(stack.salesforce.requests().filter((r) => r.startsWith('DELETE /services/data/v62.0/composite/sobjects?'))).toHaveLength(new Set(deletions.map((d) => d.object)).size);
    const runs = stack.salesforce.records('Svc_SyncRun__c').filter((r) => r.Command__c === 'audit' && r.Deleted__c === deletions.length);
    expect(runs.map((r) => r.Outcome__c)).toEqual(['Succeeded']);

    const final = await cliJson(stack, ['audit'], cwd);
    expect(final.code).toBe(0);
    expect(resultOf(final).drift).toEqual([]);
    expectFullMirror(stack, stack.platform.site);
  });

  it('keeps an orphan whose children in Salesforce are not orphans, and says why', async () => {
    const site = stack.platform.site;
    // An action removed on the platform while its paid donations stay (they now point at nothing there).
    const action = site.action.find((a) => site.donation.some((d) => d.action_id === a.id && donationSynced(d))) as ApiAction;
    stack.platform.remove('action', action.id);
    const run = await cliJson(stack, ['audit', '--delete-orphans', '--types', 'action'], cwd);
    expect(run.code).toBe(1);
    const kept = (resultOf(run).deletions ?? []).find((d) => d.key === keyOf('action', action.id));
    expect(kept).toMatchObject({ outcome: 'kept', reason: expect.stringMatching(/child record\(s\) in Salesforce are not orphans: Svc_Donation__c Donation_\d+/) });
    expect(stack.salesforce.get('Svc_Action__c', keyOf('action', action.id))).toBeDefined();
    expect(resultOf(run).remaining?.map((r) => r.key)).toContain(keyOf('action', action.id));
  });
});
