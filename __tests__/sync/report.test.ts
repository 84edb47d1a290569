import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { OutcomeLog } from '../../src/sync/report/outcomeLog.js';
import { RunReport } from '../../src/sync/report/report.js';
import { tempFolders } from '../support/tempFolders.js';

const tempFolder = tempFolders('svc-sync-report-');

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

  it("packs a heavy site's shapes: answers' two ids, skips sharing a reason, site and role keys; each listed back exactly", () => {
    const report = new RunReport();
    const unpaid = "payment status not synced: record.payment_status 'pending' (synced: paid, refunded, chargedback)";
    const given: RecordOutcome[] = [
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_5000.50001', action: 'insert' },
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_5000.0', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_100000', action: 'skip', reason: unpaid },
      { object: 'Svc_Donation__c', key: 'Donation_100007', action: 'skip', reason: unpaid },
      { object: 'Svc_Donation__c', key: 'Donation_100008', action: 'skip', reason: '' },
      { object: 'Svc_Donation__c', key: 'Donation_100009', action: 'skip' },
      { object: 'Svc_Donation__c', key: '6:Donation_12', action: 'insert' },
      { object: 'GiftTransaction', key: '6:Donation_12:gift', action: 'insert' },
      { object: 'GiftTransaction', key: 'Donation_12:gift', action: 'skip', reason: 'not a gift' },
      // Not packed (kept as given, listed the same): leading zero in the second id, ids too large to pack in one double.
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_5.01', action: 'insert' },
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_134217728.1', action: 'insert' },
      { object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_1.67108864', action: 'insert' },
      { object: 'Svc_Donation__c', key: 'Donation_13', action: 'insert', reason: 'an insert says why' },
    ];
    for (const o of given) report.add({ ...o });
    expect(report.records).toEqual(given);
    expect(JSON.stringify(report.listed)).toBe(JSON.stringify(given));
    expect(report.outcomeOf('ActionQuestion_5000.50001')).toEqual({ action: 'insert' });
    expect(report.outcomeOf('ActionQuestion_5000.5000')).toBeUndefined();
    expect(report.outcomeOf('ActionQuestion_5000')).toBeUndefined();
    expect(report.outcomeOf('Donation_100007')).toEqual({ action: 'skip', reason: unpaid });
    expect(report.outcomeOf('Donation_100008')).toEqual({ action: 'skip', reason: '' });
    expect(report.outcomeOf('Donation_100009')).toEqual({ action: 'skip' });
    expect(report.outcomeOf('Donation_12:gift')).toEqual({ action: 'skip', reason: 'not a gift' });
    expect(report.outcomeOf('6:Donation_12:gift')).toEqual({ action: 'insert' });
    expect(report.outcomeOf('Donation_12')).toBeUndefined();
  });

  it('keeps reasons that name their record as given once 128 reasons are taken, and still packs plain inserts', () => {
    const report = new RunReport();
    const given: RecordOutcome[] = [];
    for (let i = 1; i <= 300; i++) given.push({ object: 'Svc_Donation__c', key: `Donation_${i}`, action: 'skip', reason: `Project_${i} was not written` });
    for (let i = 1; i <= 300; i++) given.push({ object: 'Svc_Team__c', key: `Team_${i}`, action: 'insert' });
    for (const o of given) report.add({ ...o });
    expect(report.records).toEqual(given);
    expect(report.outcomeOf('Donation_300')).toEqual({ action: 'skip', reason: 'Project_300 was not written' });
    expect(report.outcomeOf('Donation_1')).toEqual({ action: 'skip', reason: 'Project_1 was not written' });
    expect(report.outcomeOf('Team_300')).toEqual({ action: 'insert' });
  });

  describe('past a chunk of outcomes, on disk', () => {
    const tmpdir = process.env.TMPDIR;
    afterEach(() => {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    });

    /** 2,500 outcomes: packed inserts and skips, with one kept as given every 97th, and an unchanged one that is not listed. */
    const outcomes = (): RecordOutcome[] => {
      const list: RecordOutcome[] = [];
      for (let i = 1; i <= 2_500; i++) {
        if (i % 97 === 0) list.push({ object: 'Svc_Donation__c', key: `Donation_${i}`, action: 'fail', error: { code: 'X', message: `broken ${i}` } });
        else if (i % 5 === 0) list.push({ object: 'Svc_Donation__c', key: `Donation_${i}`, action: 'skip', reason: 'zero total amount' });
        else list.push({ object: 'Svc_ActionQuestion__c', key: `ActionQuestion_${i}.${i + 1}`, action: 'insert' });
      }
      return list;
    };

    it('lists them back in order from an unlinked file that leaves nothing in the temp folder', () => {
      const dir = tempFolder('spill-');
      process.env.TMPDIR = dir;
      const log = new OutcomeLog(1_000);
      for (const o of outcomes()) log.add({ ...o });
      log.add({ object: 'Svc_Donation__c', key: 'Donation_9999', action: 'unchanged' });
      expect(fs.readdirSync(dir)).toEqual([]);
      expect(log.size).toBe(2_500);
      expect([...log]).toEqual(outcomes());
      expect([...log]).toEqual(outcomes());
      expect(log.outcomeOf('Donation_2420')).toEqual({ action: 'skip', reason: 'zero total amount' });
      expect(log.outcomeOf('Donation_194')).toEqual({ action: 'fail', reason: 'broken 194' });
      expect(log.outcomeOf('ActionQuestion_1.2')).toEqual({ action: 'insert' });
      expect(log.outcomeOf('Donation_9999')).toEqual({ action: 'unchanged' });
    });

    it('keeps them in memory where no file can be made, and loses none', () => {
      process.env.TMPDIR = path.join(tempFolder('gone-'), 'no-such-folder');
      const log = new OutcomeLog(1_000);
      for (const o of outcomes()) log.add({ ...o });
      expect([...log]).toEqual(outcomes());
    });
  });
});
