/**
 * The kept org verdict (orgVerdictFile.ts): trusted only for the org and settings it was made for,
 * under a day old and not from the future; a file svc-sync did not write is no verdict; the
 * failures a describe would explain are told from those it would not.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { describeWouldExplain, dropVerdict, keepNpspLookups, keepRecordTypes, keepVerdict, readVerdict } from '../../../src/sync/gifts/orgVerdictFile.js';
import { tempFolders } from '../../support/tempFolders.js';

const dir = tempFolders('svc-sync-verdict-')();
const file = path.join(dir, 'projection-org.json');
const scope = { orgId: '00D5g000000EmuAAA', setting: 'npc' as const, personRecordType: 'PersonAccount' };
const choice = { setting: 'npc' as const, resolved: 'npc' as const, reason: 'the org checked' };
const HOUR = 3600_000;

describe('the kept org verdict', () => {
  it('is read back for its org and settings, owner-only, with the record types added later', () => {
    keepVerdict(file, scope, choice);
    expect(readVerdict(file, scope)?.choice).toEqual(choice);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    keepRecordTypes(file, scope, { person: '0125g000000PersAAA', business: '0125g000000BusiAAA', currency: 'GBP' });
    expect(readVerdict(file, scope)?.recordTypes).toEqual({ person: '0125g000000PersAAA', business: '0125g000000BusiAAA', currency: 'GBP' });
  });

  it('another org, setting or person record type is no verdict', () => {
    keepVerdict(file, scope, choice);
    expect(readVerdict(file, { ...scope, orgId: '00D5g000000OthAAA' })).toBeUndefined();
    expect(readVerdict(file, { ...scope, setting: 'auto' })).toBeUndefined();
    expect(readVerdict(file, { ...scope, personRecordType: 'Donor' })).toBeUndefined();
  });

  it('a day old, or from the future, is checked again', () => {
    const now = Date.now();
    keepVerdict(file, scope, choice, undefined, new Date(now - 23 * HOUR).toISOString());
    expect(readVerdict(file, scope, now)).toBeDefined();
    keepVerdict(file, scope, choice, undefined, new Date(now - 25 * HOUR).toISOString());
    expect(readVerdict(file, scope, now)).toBeUndefined();
    keepVerdict(file, scope, choice, undefined, new Date(now + HOUR).toISOString());
    expect(readVerdict(file, scope, now)).toBeUndefined();
  });

  it('a file svc-sync did not write, or one dropped, is no verdict', () => {
    fs.writeFileSync(file, '{"version": 1, "orgId": "00D5g000000EmuAAA"}');
    expect(readVerdict(file, scope)).toBeUndefined();
    fs.writeFileSync(file, 'not json');
    expect(readVerdict(file, scope)).toBeUndefined();
    keepVerdict(file, scope, choice);
    dropVerdict(file);
    expect(fs.existsSync(file)).toBe(false);
    expect(readVerdict(file, scope)).toBeUndefined();
  });

  it('tells the failures a describe would explain from the others', () => {
    expect(describeWouldExplain('INVALID_FIELD', "No such column 'SvcAnonymous__c'")).toBe(true);
    expect(describeWouldExplain('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', 'bad value for restricted picklist field: Organizational')).toBe(true);
    expect(describeWouldExplain('INSUFFICIENT_ACCESS_OR_READONLY', 'insufficient access rights on object id')).toBe(true);
    expect(describeWouldExplain('PROJECTION_FAILED', "INVALID_FIELD: No such column 'ExpectedRevenue' on entity 'Campaign'.")).toBe(true);
    expect(describeWouldExplain('DUPLICATES_DETECTED', 'Use one of these records?')).toBe(false);
    expect(describeWouldExplain('CURRENCY_MISMATCH', 'GBP is not the org currency EUR')).toBe(false);
    expect(describeWouldExplain('DONOR_FAILED', 'donor P:x failed: DUPLICATES_DETECTED')).toBe(false);
  });

  describe("NPSP's verdict (issue 51)", () => {
    const npspScope = { orgId: '00D5g000000EmuAAA', instanceUrl: 'https://emu.my.salesforce.com', setting: 'npsp' as const, personRecordType: 'PersonAccount', npsp: '{"refundMode":"auto"}' };
    const npspChoice = { setting: 'npsp' as const, resolved: 'npsp' as const, reason: 'the org checked', refundMode: 'payments' as const };
    const lookups = { organisation: '0125g000000OrgsAAA', donation: '0125g000000DonaAAA', currency: 'EUR' };

    it('keeps the refund mode the guard chose and NPSP record types added later', () => {
      keepVerdict(file, npspScope, npspChoice);
      expect(readVerdict(file, npspScope)?.choice).toEqual(npspChoice);
      keepNpspLookups(file, npspScope, lookups);
      expect(readVerdict(file, npspScope)?.npspLookups).toEqual(lookups);
      // An org without a Donation type keeps the Organization type alone.
      keepVerdict(file, npspScope, npspChoice);
      keepNpspLookups(file, npspScope, { organisation: lookups.organisation, currency: 'GBP' });
      expect(readVerdict(file, npspScope)?.npspLookups).toEqual({ organisation: lookups.organisation, currency: 'GBP' });
    });

    it('another instance or other SVC_NPSP_* settings is no verdict', () => {
      keepVerdict(file, npspScope, npspChoice);
      expect(readVerdict(file, { ...npspScope, instanceUrl: 'https://other.my.salesforce.com' })).toBeUndefined();
      expect(readVerdict(file, { ...npspScope, npsp: '{"refundMode":"stage"}' })).toBeUndefined();
      expect(readVerdict(file, { ...npspScope, setting: 'auto' })).toBeUndefined();
    });

    it('an NPSP verdict without its refund mode, or with a bad record type id, is not trusted', () => {
      const base = { version: 1, ...npspScope, checkedAt: new Date().toISOString() };
      fs.writeFileSync(file, JSON.stringify({ ...base, choice: { ...npspChoice, refundMode: undefined } }));
      expect(readVerdict(file, npspScope)).toBeUndefined();
      fs.writeFileSync(file, JSON.stringify({ ...base, choice: npspChoice, npspLookups: { ...lookups, organisation: 'not an id' } }));
      expect(readVerdict(file, npspScope)?.npspLookups).toBeUndefined();
    });

    it("NPSP's record types are not added to an NPC verdict", () => {
      keepVerdict(file, scope, choice);
      keepNpspLookups(file, scope, lookups);
      expect(readVerdict(file, scope)?.npspLookups).toBeUndefined();
    });
  });
});
