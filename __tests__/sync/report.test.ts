import { describe, expect, it } from '@jest/globals';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { RunReport } from '../../src/sync/report/report.js';

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

  it('lists every outcome but unchanged in order, plain inserts packed and made again as given', () => {
    const report = new RunReport();
    const given: RecordOutcome[] = [
      { object: 'Svc_Segment__c', key: 'Segment_7', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_100050', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_3', action: 'update', changes: { Name: { from: 'a', to: 'b' } } },
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_4.9', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_0100006', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_12', action: 'insert', warnings: ['no parent'] },
      { object: 'Svc_Donation__c', key: 'Donation_9', action: 'fail', error: { code: 'X', message: 'broken' } },
      { object: 'Svc_Donation__c', key: 'Donation_99999999', action: 'insert' },
    ];
    for (const o of given) report.add({ ...o });
    report.add({ object: 'Svc_Donation__c', key: 'Donation_8', action: 'unchanged' });
    expect(report.records).toEqual(given);
    expect(JSON.stringify(report.listed)).toBe(JSON.stringify(given));
    expect(report.listed.size).toBe(given.length);
    expect(report.failures()).toEqual([given[6]]);
    expect(report.outcomeOf('Donation_100050')).toEqual({ action: 'insert' });
    expect(report.outcomeOf('Donation_8')).toEqual({ action: 'unchanged' });
    expect(report.outcomeOf('Donation_100051')).toBeUndefined();
    expect(report.outcomeOf('Donation_9')).toEqual({ action: 'fail', reason: 'broken' });
  });

  it('answers the last outcome of a packed key after one kept whole, and the other way round', () => {
    const report = new RunReport();
    report.add({ object: 'Svc_Action__c', key: 'Action_1', action: 'update', changes: {}, reason: 'parent moved' });
    report.add({ object: 'Svc_Action__c', key: 'Action_1', action: 'unchanged' });
    expect(report.outcomeOf('Action_1')).toEqual({ action: 'unchanged' });
    report.add({ object: 'Svc_Action__c', key: 'Action_2', action: 'insert' });
    report.add({ object: 'Svc_Action__c', key: 'Action_2', action: 'skip', reason: 'gone' });
    expect(report.outcomeOf('Action_2')).toEqual({ action: 'skip', reason: 'gone' });
  });
});
