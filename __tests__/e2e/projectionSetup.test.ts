/**
 * SVC_PROJECTION as an admin meets it: `doctor` checks the org for the Nonprofit Cloud projection
 * (objects, key fields, Person Account record type, picklist values) and says how to fix each;
 * sync and serve check the org once at their start (the org guard): `npc` in an org that cannot
 * take it is refused with exit 2 before anything is read or written, `auto` there mirrors alone
 * and says so; off changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { WAIT_MS } from '../support/patience.js';
import { cli, cliJson, recordCount, removeDir, tempCwd, unstamp, waitFor, writeCalls } from './helpers.js';
import { reap } from '../support/reap.js';

interface Finding {
  object: string;
  field?: string;
  problem: string;
  message: string;
}

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 5, newsletterSubscriptions: 0 };

describe('an org without Nonprofit Cloud', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: SITE });
    cwd = tempCwd('projection-none');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('doctor: one wrong_model finding that says what to enable, or to turn the setting off', async () => {
    const run = await cliJson(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
    expect(run.body.status).toBe(1);
    const result = run.body.result as unknown as { findings: Finding[]; actions: string[] };
    const projection = result.findings.filter((f) => !f.object.startsWith('Svc_'));
    expect(projection).toEqual([expect.objectContaining({ object: 'GiftTransaction', problem: 'wrong_model', message: expect.stringMatching(/no GiftTransaction object/) })]);
    expect(result.actions).toContainEqual(expect.stringMatching(/enable Nonprofit Cloud Fundraising .*or set SVC_PROJECTION=off/));
  });

  it('sync and object with SVC_PROJECTION=npc: exit 2 in one line, nothing read from the platform, nothing written', async () => {
    const before = stack.platform.requests.total;
    for (const args of [
      ['sync', '--all'],
      ['object', 'donation', '1'],
    ]) {
      const res = await cli(stack, args, cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
      expect(res.code).toBe(2);
      const lines = res.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/SVC_PROJECTION npc: the org has no GiftTransaction object .*; next: svc-sync doctor$/);
    }
    expect(stack.platform.requests.total).toBe(before);
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
  });

  it('serve with SVC_PROJECTION=npc: refused at start (exit 2), before it listens', async () => {
    const res = await cli(stack, ['serve', '--host', '127.0.0.1', '--port', '0'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/SVC_PROJECTION npc: the org has no GiftTransaction object .*; next: svc-sync doctor/);
    expect(res.stderr).not.toMatch(/listening/);
  });

  it('serve with SVC_PROJECTION=npc while Salesforce is out of reach: starts, says so, the first batch checks', async () => {
    const down = await startStack({ site: SITE, salesforce: { npc: true } });
    // Every Salesforce request answers 503 for a while: the guard's login and describes cannot run.
    down.salesforce.failUnavailable(1000);
    const child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0']), {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...down.env, SVC_PROJECTION: 'npc', SVC_WEBHOOK_SECRET: 'hook-secret-5f2a-projection' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => (/listening on http/.test(stderr) ? true : undefined), WAIT_MS, 'serve to listen');
      expect(stderr).toMatch(/warning: the org could not be checked for the gift projection at start \(.*\); the first batch checks it/);
    } finally {
      await reap([child]);
      await down.close();
    }
  });

  it('sync with SVC_PROJECTION=auto: the mirror alone, said in the header and in --json', async () => {
    const res = await cli(stack, ['sync', '--all', '--dry-run'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto' });
    expect(res.code).toBe(0);
    expect(unstamp(res.stderr).split('\n')).toContain('gifts: off (SVC_PROJECTION=auto: the org has no GiftTransaction and no NPSP)');
    const run = await cliJson(stack, ['sync', '--all', '--dry-run'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto' });
    expect(run.body.status).toBe(0);
    expect((run.body.result as unknown as { where: { projection: unknown } }).where.projection).toEqual({ setting: 'auto', resolved: 'off', reason: 'the org has no GiftTransaction and no NPSP' });
    expect(writeCalls(stack)).toBe(0);
  });

  it('SVC_PROJECTION=off (and unset): doctor finds nothing of the projection, sync mirrors as before', async () => {
    const doctor = await cliJson(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'off' });
    expect((doctor.body.result as unknown as { findings: Finding[] }).findings.filter((f) => !f.object.startsWith('Svc_'))).toEqual([]);
    const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'off' });
    expect(res.code).toBe(0);
    expect(recordCount(stack)).toBeGreaterThan(0);
  });
});

describe('an org with Nonprofit Cloud', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npc: true } });
    cwd = tempCwd('projection-npc');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  const projectionFindings = async (): Promise<{ findings: Finding[]; actions: string[]; status: number }> => {
    const run = await cliJson(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
    const result = run.body.result as unknown as { findings: Finding[]; actions: string[] };
    return { findings: result.findings.filter((f) => !f.object.startsWith('Svc_')), actions: result.actions, status: run.body.status };
  };

  it('doctor: nothing to fix when the objects, key fields, record type and values are there', async () => {
    expect((await projectionFindings()).findings).toEqual([]);
  });

  it('sync with npc or auto: the guard passes, the header and --json say gifts: npc', async () => {
    const npc = await cli(stack, ['sync', '--all', '--dry-run'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npc' });
    expect(npc.code).toBe(0);
    expect(unstamp(npc.stderr).split('\n')).toContain('gifts: npc');
    const run = await cliJson(stack, ['sync', '--all', '--dry-run'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto' });
    expect(run.body.status).toBe(0);
    expect((run.body.result as unknown as { where: { projection: unknown } }).where.projection).toEqual({ setting: 'auto', resolved: 'npc', reason: 'GiftTransaction and key fields found' });
    expect(writeCalls(stack)).toBe(0);
  });

  it('sync with npc in an NPC org lacking a key field: exit 2 naming it, nothing written; auto mirrors alone', async () => {
    const fresh = await startStack({ site: SITE, salesforce: { npc: true } });
    // Another org than the shared folder's: a state folder of its own (a folder is bound to its org).
    try {
      fresh.salesforce.npc?.removeField('GiftRefund', 'SvcRefundKey__c');
      const refused = await cli(fresh, ['sync', '--all'], cwd, undefined, { ...fresh.env, SVC_PROJECTION: 'npc', SVC_STATE_DIR: '.svc-sync-fresh' });
      expect(refused.code).toBe(2);
      expect(unstamp(refused.stderr).trim().split('\n')).toEqual(['svc-sync: SVC_PROJECTION npc: the org cannot take the gift projection: GiftRefund.SvcRefundKey__c missing; next: svc-sync doctor']);
      expect(fresh.platform.requests.total).toBe(0);
      expect(writeCalls(fresh)).toBe(0);
      const auto = await cli(fresh, ['sync', '--all'], cwd, undefined, { ...fresh.env, SVC_PROJECTION: 'auto', SVC_STATE_DIR: '.svc-sync-fresh' });
      expect(auto.code).toBe(0);
      expect(unstamp(auto.stderr).split('\n')).toContain('gifts: off (SVC_PROJECTION=auto: key fields not deployed, see doctor)');
      expect(fresh.salesforce.npc?.records('GiftTransaction')).toEqual([]);
      expect(recordCount(fresh)).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
  });

  it('doctor: a missing key field, a deactivated value and a hidden field each get their fix', async () => {
    const npc = stack.salesforce.npc as NonNullable<Stack['salesforce']['npc']>;
    npc.removeField('GiftTransaction', 'SvcGiftKey__c');
    npc.deactivateValue('GiftSoftCredit', 'Role', 'Solicitor');
    npc.removeField('Account', 'PersonEmail');
    const { findings, actions, status } = await projectionFindings();
    expect(status).toBe(1);
    expect(findings.map((f) => [f.object, f.field, f.problem])).toEqual([
      ['Account', 'PersonEmail', 'missing_field'],
      ['GiftTransaction', 'SvcGiftKey__c', 'missing_field'],
      ['GiftSoftCredit', 'Role', 'missing_value'],
    ]);
    expect(findings[1]?.message).toMatch(/schema --project svc-org --projection npc/);
    expect(findings[2]?.message).toMatch(/no active value "Solicitor"/);
    expect(actions).toEqual(expect.arrayContaining([expect.stringMatching(/deploy the projection's key fields/), expect.stringMatching(/picklist values/)]));
  });
});
