import { describe, expect, it } from '@jest/globals';
import { RunReport } from '../../src/sync/report.js';

describe('RunReport', () => {
  it('answers outcomeOf for an unchanged record, counts it and does not list it', () => {
    const report = new RunReport();
    report.add({ object: 'Svc_Donation__c', key: 'Donation_1', action: 'unchanged', warnings: ['a warning'] });
    report.add({ object: 'Svc_Donation__c', key: 'Donation_2', action: 'skip', reason: 'filtered out' });
    expect(report.outcomeOf('Donation_1')).toEqual({ action: 'unchanged' });
    expect(report.outcomeOf('Donation_2')).toEqual({ action: 'skip', reason: 'filtered out' });
    expect(report.outcomeOf('Donation_3')).toBeUndefined();
    expect(report.records.map((r) => r.key)).toEqual(['Donation_2']);
    expect(report.summary.get('Svc_Donation__c')).toMatchObject({ unchanged: 1, skipped: 1 });
  });

  it('keeps the last outcome of a key: an unchanged record later failed is a failure, and back', () => {
    const report = new RunReport();
    report.add({ object: 'Svc_Action__c', key: 'Action_1', action: 'unchanged' });
    report.add({ object: 'Svc_Action__c', key: 'Action_1', action: 'fail', error: { code: 'X', message: 'broken' } });
    expect(report.outcomeOf('Action_1')).toEqual({ action: 'fail', reason: 'broken' });
    report.add({ object: 'Svc_Action__c', key: 'Action_1', action: 'unchanged' });
    expect(report.outcomeOf('Action_1')).toEqual({ action: 'unchanged' });
  });
});
