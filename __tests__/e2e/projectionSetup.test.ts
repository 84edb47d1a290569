/**
 * SVC_PROJECTION as an admin meets it in this version: `doctor` checks the org for the Nonprofit
 * Cloud projection (objects, key fields, Person Account record type, picklist values) and says how
 * to fix each; an org without NPC is refused: sync with the setting on stops before anything is
 * written; off changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';

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

  it('sync with SVC_PROJECTION=npc or auto: exit 2 in one line, nothing written', async () => {
    for (const mode of ['npc', 'auto']) {
      const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: mode });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(new RegExp(`SVC_PROJECTION ${mode}: the org is not ready for the gift projection \\(.*GiftTransaction.*\\); run svc-sync doctor`));
      expect(writeCalls(stack)).toBe(0);
      expect(recordCount(stack)).toBe(0);
    }
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
