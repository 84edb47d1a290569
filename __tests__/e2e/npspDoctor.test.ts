/**
 * `doctor` in an NPSP org, through dist/cli.js against the emulator's NPSP org: with SVC_PROJECTION
 * auto (an org with NPSP and without Nonprofit Cloud) it checks what the NPSP target needs (the
 * objects and fields, the key fields, the stages, the soft-credit role, the record types), each
 * finding with its fix; nothing to fix in a set-up org. NPSP's payments setting is a finding only in
 * refund mode `payments` (P2: auto where the payments show npsp__DebitType__c); the fixes name the
 * SVC_NPSP_* settings that change what is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cliJson, removeDir, tempCwd } from './helpers.js';

interface Finding {
  object: string;
  field?: string;
  problem: string;
  expected: string;
  message: string;
}

const SITE = { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 3, newsletterSubscriptions: 0 };

async function giftFindings(stack: Stack, cwd: string, more: Record<string, string> = {}): Promise<{ findings: Finding[]; actions: string[]; status: number }> {
  const run = await cliJson(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'auto', ...more });
  const result = run.body.result as unknown as { findings: Finding[]; actions: string[] };
  return { findings: result.findings.filter((f) => !f.object.startsWith('Svc_')), actions: result.actions, status: run.body.status };
}

describe('doctor in an NPSP org', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: { npsp: true } });
    cwd = tempCwd('npsp-doctor');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('nothing to fix when the objects, key fields, stages, role, record types and payments are there', async () => {
    const { findings, status } = await giftFindings(stack, cwd);
    expect(findings).toEqual([]);
    expect(status).toBe(0);
  });

  it('a missing key field, a lost refund stage, the soft-credit role and a record type each get their fix; payments off is none (stage mode)', async () => {
    const npsp = stack.salesforce.npsp as NonNullable<Stack['salesforce']['npsp']>;
    npsp.removeField('Opportunity', 'SvcGiftKey__c');
    npsp.removeField('Contact', 'npe01__HomeEmail__c');
    npsp.deactivateStage('Closed Lost');
    npsp.deactivateValue('OpportunityContactRole', 'Role', 'Soft Credit');
    npsp.deactivateRecordType('Opportunity', 'Donation');
    npsp.setSettings({ npe01__Payments_Enabled__c: false });
    const { findings, actions, status } = await giftFindings(stack, cwd, { SVC_NPSP_REFUND_MODE: 'stage' });
    expect(status).toBe(1);
    expect(findings.map((f) => [f.object, f.field, f.problem, f.expected])).toEqual([
      ['Contact', 'npe01__HomeEmail__c', 'missing_field', 'present'],
      ['Opportunity', 'RecordTypeId', 'missing_value', 'Donation'],
      ['Opportunity', 'SvcGiftKey__c', 'missing_field', 'Text(50) unique external id'],
      ['OpportunityContactRole', 'Role', 'missing_value', 'Soft Credit'],
      ['Opportunity', 'StageName', 'missing_value', 'Closed Lost'],
    ]);
    const message = (field: string): string => findings.find((f) => f.field === field)?.message ?? '';
    expect(message('SvcGiftKey__c')).toMatch(/schema --project svc-org --projection npsp/);
    expect(message('RecordTypeId')).toMatch(/no active record type Donation: activate it and assign it to the connected user's profile, or set SVC_NPSP_DONATION_RECORD_TYPE$/);
    expect(message('StageName')).toMatch(/stage "Closed Lost" is not an active stage: fix it in Setup > Object Manager > Opportunity > Fields > Stage, or set SVC_NPSP_STAGE_REFUNDED$/);
    expect(actions).toEqual(expect.arrayContaining([expect.stringMatching(/deploy the projection's key fields/), expect.stringMatching(/stages or record types/)]));
  });

  it('refund mode auto on payments with DebitType (P2): payments off is a finding; the settings name the stages and the role checked', async () => {
    const { findings } = await giftFindings(stack, cwd);
    expect(findings.find((f) => f.field === 'npe01__Payments_Enabled__c')?.message).toMatch(/ORIGINAL_PAYMENT_MISSING.*or set SVC_NPSP_REFUND_MODE=stage$/);
    const named = await giftFindings(stack, cwd, {
      SVC_NPSP_REFUND_MODE: 'stage',
      SVC_NPSP_STAGE_WON: 'Posted',
      SVC_NPSP_STAGE_REFUNDED: 'Refunded',
      SVC_NPSP_STAGE_CANCELED: 'Pledged',
      SVC_NPSP_ROLE_FUNDRAISER: 'Fundraiser',
      SVC_NPSP_DONATION_RECORD_TYPE: 'Gift',
    });
    expect(named.findings.filter((f) => f.field === 'StageName' || f.field === 'Role' || f.field === 'RecordTypeId').map((f) => [f.field, f.expected, f.message.replace(/^.*, or set /, '')])).toEqual([
      ['RecordTypeId', 'Gift', 'SVC_NPSP_DONATION_RECORD_TYPE'],
      ['Role', 'Fundraiser', 'SVC_NPSP_ROLE_FUNDRAISER'],
      ['StageName', 'Posted', 'SVC_NPSP_STAGE_WON'],
      ['StageName', 'Refunded', 'SVC_NPSP_STAGE_REFUNDED'],
      ['StageName', 'Pledged (closed, not won)', 'SVC_NPSP_STAGE_CANCELED'],
    ]);
  });
});

describe('doctor in an NPSP org without DebitType (refund mode stage)', () => {
  it('payments switched off is no finding: the stage mode needs no payment', async () => {
    const stack = await startStack({ site: SITE, salesforce: { npsp: true, npspDebitType: false, npspAutomation: false } });
    const cwd = tempCwd('npsp-doctor-stage');
    try {
      stack.salesforce.npsp?.setSettings({ npe01__Payments_Enabled__c: false });
      const { findings } = await giftFindings(stack, cwd);
      expect(findings).toEqual([]);
    } finally {
      await stack.close();
      removeDir(cwd);
    }
  });
});
