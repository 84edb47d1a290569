/** One canonical form per field type: what "unchanged" means, and how a change is shown. */
import { describe, expect, it } from '@jest/globals';
import type { StoredRecord } from '../../src/model/crmRecords.js';
import { canonicalValue, sameValue } from '../../src/mapping/canonical.js';
import { checkbox, date, dateTime, lookup, number, text, type FieldType } from '../../src/mapping/fieldTypes.js';
import { SCHEMA } from '../../src/mapping/schema.js';
import { diffRecord } from '../../src/sync/mirror/diff.js';

describe('canonicalValue / sameValue', () => {
  it.each<[string, FieldType, Array<string | number | boolean | null>, string | number | boolean | null]>([
    [
      'DateTime as Salesforce answers it, as the platform writes it, with an offset',
      dateTime(),
      ['2026-01-05T10:00:00.000+0000', '2026-01-05T10:00:00Z', '2026-01-05T11:00:00+01:00', '2026-01-05T10:00:00.000Z'],
      '2026-01-05T10:00:00.000Z',
    ],
    ['a bare date in a DateTime field is midnight UTC', dateTime(), ['1990-05-01', '1990-05-01T00:00:00.000+0000'], '1990-05-01T00:00:00.000Z'],
    ['Date', date(), ['1990-05-01', '1990-05-01T00:00:00Z', ' 1990-05-01 '], '1990-05-01'],
    ['Number(18,0)', number(18, 0), [20, 20.0, '20', '20.0', ' 20.00 '], 20],
    ['Number(10,2)', number(10, 2), [25.4, '25.40', '25.4'], 25.4],
    ['zero, signed or not', number(10, 2), [0, -0, '0.0', '-0'], 0],
    ['Checkbox true', checkbox(), [true, 'true', 'True', 1, '1'], true],
    ['Checkbox false, empty included (Salesforce stores no null checkbox)', checkbox(), [false, 'false', 0, '0', null, ''], false],
    ['empty text is null', text(255), [null, ''], null],
  ])('%s', (_label, type, forms, canonical) => {
    for (const f of forms) expect({ f, value: canonicalValue(type, f) }).toEqual({ f, value: canonical });
    for (const a of forms) for (const b of forms) expect(sameValue(type, a, b)).toBe(true);
  });

  it('keeps meaning apart: another instant, another amount, text that differs in case or blanks', () => {
    expect(sameValue(dateTime(), '2026-01-05T10:00:00Z', '2026-01-05T10:00:01.000+0000')).toBe(false);
    expect(sameValue(number(10, 2), '25.4', 25.41)).toBe(false);
    expect(sameValue(checkbox(), true, null)).toBe(false);
    expect(sameValue(text(255), 'Arnhem', 'arnhem')).toBe(false);
    expect(sameValue(text(255), 'Arnhem', 'Arnhem ')).toBe(false);
    expect(sameValue(lookup('Svc_Project__c'), 'a0B5g0000000001AAA', null)).toBe(false);
  });

  it('leaves a value it cannot read as it is, so it shows as a change rather than vanish', () => {
    expect(canonicalValue(dateTime(), 'soon')).toBe('soon');
    expect(canonicalValue(number(10, 2), 'n/a')).toBe('n/a');
    expect(canonicalValue(checkbox(), 'yes')).toBe('yes');
  });
});

describe('diffRecord shows a change in the canonical form on both sides', () => {
  const types = new Map<string, FieldType>(SCHEMA.donation.fields.map((f) => [f.name, f.type]));
  const stored = (fields: Record<string, string | number | boolean | null>): StoredRecord => ({ Id: 'a0X000000000001AAA', SvcId__c: 'Donation_1', ...fields });

  it('DateTime: the .000+0000 Salesforce answer and the sent value in one format', () => {
    const changes = diffRecord({ SvcId__c: 'Donation_1', PaymentDate__c: '2026-01-06T10:00:00.000Z' }, stored({ PaymentDate__c: '2026-01-05T10:00:00.000+0000' }), types);
    expect(changes).toEqual({ PaymentDate__c: { from: '2026-01-05T10:00:00.000Z', to: '2026-01-06T10:00:00.000Z' } });
  });

  it('numbers and checkboxes as values, never as their spelling', () => {
    const changes = diffRecord({ SvcId__c: 'Donation_1', Amount__c: 20, Countable__c: true, Newsletter__c: false }, stored({ Amount__c: '15.0', Countable__c: 'false', Newsletter__c: null }), types);
    expect(changes).toEqual({ Amount__c: { from: 15, to: 20 }, Countable__c: { from: false, to: true } });
  });

  it('a value unchanged in meaning is no change at all', () => {
    expect(
      diffRecord(
        { SvcId__c: 'Donation_1', CreatedAt__c: '2026-01-05T10:00:00.000Z', Amount__c: 20, Birthday__c: '1990-05-01T00:00:00.000Z' },
        stored({ CreatedAt__c: '2026-01-05T10:00:00.000+0000', Amount__c: 20.0, Birthday__c: '1990-05-01T00:00:00.000+0000' }),
        types,
      ),
    ).toEqual({});
  });
});
