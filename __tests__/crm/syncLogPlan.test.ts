/** Issue 37, row 9: a ticked retry whose key got no outcome ends in the run that synced its record. */
import { describe, expect, it } from '@jest/globals';
import { planErrors, type StoredError } from '../../src/crm/syncLogPlan.js';
import type { RunOutcomes } from '../../src/model/syncLog.js';

const ticked = (key: string, status: StoredError['status'] = 'Open'): [string, StoredError] => [key.toLowerCase(), { Id: `a0${key}`, key, status, attempts: 1, retryRequested: true }];

function plan(open: Array<[string, StoredError]>, outcomes: Record<string, { action: 'update' | 'skip' | 'fail'; reason?: string }>): Record<string, unknown>[] {
  const run: RunOutcomes = { failures: [], outcomeOf: (key) => outcomes[key] };
  return planErrors({ open: new Map(open), outcomes: run, runKey: undefined, now: '2026-11-28T00:00:00.000Z', redact: (t) => t }).records;
}

describe('a ticked question key with no outcome of its own', () => {
  it('its action synced: Ignored, gone from the platform; skipped: Ignored, saying why; failed: unticked, still Open', () => {
    expect(plan([ticked('ActionQuestion_5.51')], { Action_5: { action: 'update' } })).toEqual([
      { Key__c: 'ActionQuestion_5.51', Status__c: 'Ignored', RetryRequested__c: false, Message__c: 'retry: not on the platform any more (action 5 has no such question); nothing to sync' },
    ]);
    expect(plan([ticked('ActionQuestion_5.51')], { Action_5: { action: 'skip', reason: 'not found on the platform' } })).toEqual([
      { Key__c: 'ActionQuestion_5.51', Status__c: 'Ignored', RetryRequested__c: false, Message__c: 'retry: nothing to sync (action 5 was skipped: not found on the platform)' },
    ]);
    expect(plan([ticked('ActionQuestion_5.51')], { Action_5: { action: 'fail' } })).toEqual([
      { Key__c: 'ActionQuestion_5.51', RetryRequested__c: false, Message__c: 'retry: not synced: action 5 failed (its own error record says why)' },
    ]);
  });

  it('nothing while its action was not synced in this run, or for an Ignored or unticked error', () => {
    expect(plan([ticked('ActionQuestion_5.51')], {})).toEqual([]);
    expect(plan([ticked('ActionQuestion_5.51', 'Ignored')], { Action_5: { action: 'update' } })).toEqual([]);
    const [k, e] = ticked('ActionQuestion_5.51');
    expect(plan([[k, { ...e, retryRequested: false }]], { Action_5: { action: 'update' } })).toEqual([]);
  });
});

describe('a ticked retry whose record was skipped (issue 47, row 13)', () => {
  it('not on the platform, or skipped by a rule: Ignored with the reason and unticked, never Resolved', () => {
    expect(plan([ticked('Donation_99999999')], { Donation_99999999: { action: 'skip', reason: 'not found on the platform (deleted or never existed): 404 by id' } })).toEqual([
      { Key__c: 'Donation_99999999', Status__c: 'Ignored', RetryRequested__c: false, Message__c: 'retry: nothing to sync (not found on the platform (deleted or never existed): 404 by id)' },
    ]);
    expect(plan([ticked('Donation_7')], { Donation_7: { action: 'skip', reason: 'pending donation' } })).toEqual([
      { Key__c: 'Donation_7', Status__c: 'Ignored', RetryRequested__c: false, Message__c: 'retry: nothing to sync (pending donation)' },
    ]);
  });

  it('written: Resolved; an unticked error skipped is Resolved as before (its record is not to be written)', () => {
    expect(plan([ticked('Donation_7')], { Donation_7: { action: 'update' } })).toEqual([expect.objectContaining({ Key__c: 'Donation_7', Status__c: 'Resolved', RetryRequested__c: false })]);
    const [k, e] = ticked('Donation_7');
    expect(plan([[k, { ...e, retryRequested: false }]], { Donation_7: { action: 'skip', reason: 'pending donation' } })).toEqual([expect.objectContaining({ Status__c: 'Resolved' })]);
  });
});
