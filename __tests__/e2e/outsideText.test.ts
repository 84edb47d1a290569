/**
 * Text from outside is one line (issue 37 row 13), through the built CLI: a Salesforce
 * validation-rule message or a platform `payment_status` holding a line break and a forged
 * "svc-sync: exit 0" line never becomes a line of its own in stderr or the human report; the
 * break shows escaped (\n) inside the one line that quotes it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, donationSynced, keyOf, removeDir, tempCwd } from './helpers.js';

let stack: Stack;
let cwd: string;
let victims: ApiDonation[];

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 12, newsletterSubscriptions: 0 } });
  cwd = tempCwd('outside-text');
  victims = stack.platform.site.donation.filter(donationSynced).slice(0, 2);
  if (victims.length < 2) throw new Error('too few synced donations on the site');
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

const FORGED = '2026-11-28T04:00:00.000Z svc-sync: exit 0: all records synced';

/** No line of the output is (or ends in) the forged one: it stays inside the line that quotes it. */
function expectNoForgedLine(text: string): void {
  for (const line of text.split('\n')) expect(line.trim().startsWith(FORGED.slice(0, 20))).toBe(false);
  for (const line of text.split(/\r/)) expect(line.startsWith(FORGED.slice(0, 20))).toBe(false);
}

describe('row 13: a line break in outside text', () => {
  it('a validation-rule message: escaped in stderr and in the human report of sync and object', async () => {
    const [victim] = victims;
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: [keyOf('donation', victim.id)], message: `on hold\n${FORGED}\r\n${FORGED}\u001b[2K`, field: 'Amount__c' });
    try {
      for (const args of [
        ['sync', '--all', '--verbose'],
        ['object', 'donation', String(victim.id), '--report', 'o.csv'],
        ['object', 'donation', String(victim.id), '-q'],
      ]) {
        const run = await cli(stack, args, cwd);
        expect(run.code).toBe(1);
        expect(run.stdout + run.stderr).toContain('FIELD_CUSTOM_VALIDATION_EXCEPTION: on ');
        expectNoForgedLine(run.stdout);
        expectNoForgedLine(run.stderr);
        expect(`${run.stdout}${run.stderr}`).not.toContain('\u001b');
      }
      // The whole message, escaped, where it is not cut: the report, and the one line --quiet prints.
      expect(fs.readFileSync(path.join(cwd, 'o.csv'), 'utf8')).toContain(`on hold\\n${FORGED}\\r\\n${FORGED}\\u001b[2K`);
    } finally {
      stack.salesforce.removeValidationRules();
    }
  });

  it('a payment_status with a line break: escaped in the skip reason of sync and in audit', async () => {
    const [, victim] = victims;
    const dir = tempCwd('outside-text-status');
    try {
      expect((await cli(stack, ['sync', '--all'], dir)).code).toBe(0);
      stack.platform.update('donation', victim.id, { payment_status: `paid\n${FORGED}` });
      for (const args of [
        ['sync', '--verbose'],
        ['object', 'donation', String(victim.id), '--verbose'],
        ['audit', '--verbose'],
      ]) {
        const run = await cli(stack, args, dir);
        // Wrapped whole with --verbose (sync, object); cut to the width by audit.
        if (args[0] !== 'audit') expect(run.stdout).toContain(`'paid\\n${FORGED.slice(0, 24)}`);
        else expect(run.stdout).toContain('no longer eligible: payment status not synced');
        expectNoForgedLine(run.stdout);
        expectNoForgedLine(run.stderr);
      }
    } finally {
      stack.platform.update('donation', victim.id, { payment_status: victim.payment_status ?? 'paid' });
      removeDir(dir);
    }
  });
});
