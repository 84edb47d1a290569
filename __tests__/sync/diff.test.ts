import { describe, expect, it } from '@jest/globals';
import type { StoredRecord } from '../../src/model/crmRecords.js';
import type { FieldType } from '../../src/mapping/fieldTypes.js';
import { SCHEMA } from '../../src/mapping/schema.js';
import { diffRecord } from '../../src/sync/mirror/diff.js';

const types = new Map<string, FieldType>(SCHEMA.donation.fields.map((f) => [f.name, f.type]));
const stored = (fields: Record<string, string | number | boolean | null>): StoredRecord => ({ Id: 'a0X000000000001AAA', SvcId__c: 'Donation_1', ...fields });

describe('diff against Salesforce values', () => {
  it('reads DateTime as Salesforce answers it (+0000) as the same instant', () => {
    const changes = diffRecord({ SvcId__c: 'Donation_1', CreatedAt__c: '2016-03-30T14:41:48.000Z' }, stored({ CreatedAt__c: '2016-03-30T14:41:48.000+0000' }), types);
    expect(changes).toEqual({});
  });

  it('compares numbers by value and reports a real change with from and to', () => {
    const changes = diffRecord({ SvcId__c: 'Donation_1', TotalAmount__c: 25.4, Amount__c: 15 }, stored({ TotalAmount__c: 20.4, Amount__c: 15.0 }), types);
    expect(changes).toEqual({ TotalAmount__c: { from: 20.4, to: 25.4 } });
  });

  it('treats null, missing and empty as the same empty value, and a cleared lookup as a change', () => {
    expect(diffRecord({ SvcId__c: 'Donation_1', Svc_Team__c: null }, stored({}), types)).toEqual({});
    expect(diffRecord({ SvcId__c: 'Donation_1', Svc_Team__c: null }, stored({ Svc_Team__c: 'a0T000000000001AAA' }), types)).toEqual({
      Svc_Team__c: { from: 'a0T000000000001AAA', to: null },
    });
  });

  it('does not compare fields the record does not send (blank values are left out)', () => {
    expect(diffRecord({ SvcId__c: 'Donation_1' }, stored({ Infix__c: 'van' }), types)).toEqual({});
  });

  it('reports every sent field of a new record as a change from null', () => {
    expect(diffRecord({ SvcId__c: 'Donation_1', Newsletter__c: false }, undefined, types)).toEqual({
      SvcId__c: { from: null, to: 'Donation_1' },
      Newsletter__c: { from: null, to: false },
    });
  });

  it('compares text exactly, case and spaces included', () => {
    expect(diffRecord({ SvcId__c: 'Donation_1', City__c: 'Arnhem ' }, stored({ City__c: 'Arnhem' }), types)).toEqual({ City__c: { from: 'Arnhem', to: 'Arnhem ' } });
  });
});
