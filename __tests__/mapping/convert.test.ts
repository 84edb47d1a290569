/** The field converters of src/mapping/convert.ts, one block per CRM type of SPEC 1.1. */
import { describe, expect, it } from '@jest/globals';
import { ConversionError, convertValue, isBlank, toCheckbox, toDate, toDateTime, toNumber, truncate } from '../../src/mapping/convert.js';
import { checkbox, date, dateTime, html, longText, number, text } from '../../src/mapping/fieldTypes.js';
import { EMOJI } from './helpers.js';

function conversionError(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConversionError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a ConversionError');
}

describe('isBlank', () => {
  it('is true for null, undefined, "" and whitespace-only strings only', () => {
    expect([null, undefined, '', '   ', '\t\n'].map(isBlank)).toEqual([true, true, true, true, true]);
    expect([0, false, 'x', ' x ', [], {}].map(isBlank)).toEqual([false, false, false, false, false, false]);
  });
});

describe('truncate (UTF-16 code units, whole surrogate pairs)', () => {
  it('leaves a value within the limit alone', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('', 3)).toBe('');
  });

  it('cuts to the limit in code units', () => {
    expect(truncate('abcdef', 4)).toBe('abcd');
  });

  it('drops an emoji whose high surrogate is the last unit kept', () => {
    expect(truncate(`${'a'.repeat(79)}${EMOJI}`, 80)).toBe('a'.repeat(79));
    expect(truncate(`${'a'.repeat(254)}${EMOJI}z`, 255)).toBe('a'.repeat(254));
  });

  it('keeps an emoji that ends exactly at the limit', () => {
    expect(truncate(`${'a'.repeat(78)}${EMOJI}zz`, 80)).toBe(`${'a'.repeat(78)}${EMOJI}`);
  });

  it('counts an emoji as two units', () => {
    expect(truncate(EMOJI.repeat(3), 4)).toBe(EMOJI.repeat(2));
    expect(truncate(EMOJI.repeat(3), 5)).toBe(EMOJI.repeat(2));
  });
});

describe('toNumber', () => {
  it('rounds Number(10,2) half away from zero on the decimal digits', () => {
    expect(toNumber('12.345', 10, 2)).toBe(12.35);
    expect(toNumber('1.005', 10, 2)).toBe(1.01);
    expect(toNumber('25.4', 10, 2)).toBe(25.4);
    expect(toNumber('12.344', 10, 2)).toBe(12.34);
    expect(toNumber('-1.005', 10, 2)).toBe(-1.01);
    expect(toNumber('0.995', 10, 2)).toBe(1);
    expect(toNumber(1.005, 10, 2)).toBe(1.01);
    expect(toNumber(' 7 ', 10, 2)).toBe(7);
    expect(toNumber('-0.001', 10, 2)).toBe(0);
  });

  it('makes Number(18,0) whole', () => {
    expect(toNumber(1000, 18, 0)).toBe(1000);
    expect(toNumber('2000.5', 18, 0)).toBe(2001);
    expect(toNumber('2000.49', 18, 0)).toBe(2000);
  });

  it('refuses a value past the precision, also after rounding', () => {
    expect(toNumber('99999999.99', 10, 2)).toBe(99999999.99);
    expect(conversionError(() => toNumber('100000000', 10, 2))).toEqual({ code: 'NUMBER_OUTSIDE_VALID_RANGE', message: '"100000000" does not fit Number(10,2)' });
    expect(conversionError(() => toNumber('99999999.995', 10, 2)).code).toBe('NUMBER_OUTSIDE_VALID_RANGE');
    expect(conversionError(() => toNumber(1e18, 18, 0)).code).toBe('NUMBER_OUTSIDE_VALID_RANGE');
  });

  it('refuses what is not a decimal number', () => {
    for (const bad of ['12,50', 'abc', '1e3', '.', '', NaN, Infinity, true, {}]) {
      expect(conversionError(() => toNumber(bad, 10, 2)).code).toBe('INVALID_NUMBER');
    }
  });
});

describe('toCheckbox', () => {
  it('gives the default for a missing or blank value', () => {
    expect([null, undefined, '', '   '].map((v) => toCheckbox(v, false))).toEqual([false, false, false, false]);
    expect([null, undefined, '', '   '].map((v) => toCheckbox(v, true))).toEqual([true, true, true, true]);
  });

  it('keeps booleans and their usual spellings', () => {
    expect([true, false, 'true', 'false', 1, 0, '1', '0'].map((v) => toCheckbox(v, true))).toEqual([true, false, true, false, true, false, true, false]);
  });

  it('refuses anything else', () => {
    expect([' True ', 'FALSE', ' 1 ', 'false\n'].map((v) => toCheckbox(v, true))).toEqual([true, false, true, false]);
    expect(conversionError(() => toCheckbox('yes', false))).toEqual({ code: 'INVALID_CHECKBOX', message: 'expected a boolean, got string "yes"' });
  });
});

describe('toDate / toDateTime', () => {
  it('gives YYYY-MM-DD for a Date', () => {
    expect(toDate('1990-05-01')).toBe('1990-05-01');
    expect(toDate('1990-05-01T10:00:00Z')).toBe('1990-05-01');
    expect(conversionError(() => toDate('1990-02-30')).code).toBe('INVALID_DATE');
    expect(conversionError(() => toDate('01-05-1990')).code).toBe('INVALID_DATE');
  });

  it('gives an ISO 8601 UTC date-time for a DateTime', () => {
    expect(toDateTime('2016-03-30T14:46:25Z')).toBe('2016-03-30T14:46:25.000Z');
    expect(toDateTime('2016-03-30T16:46:25+02:00')).toBe('2016-03-30T14:46:25.000Z');
    expect(toDateTime('1990-05-01')).toBe('1990-05-01T00:00:00.000Z');
    expect(conversionError(() => toDateTime('March 5, 2016')).code).toBe('INVALID_DATETIME');
    expect(conversionError(() => toDateTime('2016-02-30')).code).toBe('INVALID_DATETIME');
  });

  it('reads every ISO 8601 spelling of one instant as the same UTC value', () => {
    const forms = [
      '2026-01-05T10:00:00Z',
      '2026-01-05T10:00:00.000Z',
      '2026-01-05T10:00:00.000+0000',
      '2026-01-05T10:00:00+00:00',
      '2026-01-05T12:00:00+02:00',
      '2026-01-05T11:00:00+01',
      '2026-01-05T05:30:00-0430',
      '2026-01-05 10:00:00 Z',
      '2026-01-05t10:00:00z',
      '2026-01-05T10:00',
      ' 2026-01-05T10:00:00.0000001Z ',
    ];
    expect(forms.map(toDateTime)).toEqual(forms.map(() => '2026-01-05T10:00:00.000Z'));
    expect(toDateTime('2026-01-05T10:00:00.5Z')).toBe('2026-01-05T10:00:00.500Z');
  });

  it('reads a time without a zone as UTC, whatever zone the machine is in', () => {
    expect(toDateTime('2026-07-05T10:00:00')).toBe('2026-07-05T10:00:00.000Z');
    expect(toDateTime('2026-07-05 10:00:00')).toBe('2026-07-05T10:00:00.000Z');
  });

  it('refuses impossible dates and times instead of rolling them over', () => {
    for (const bad of ['2026-02-30T10:00:00Z', '2026-01-05T24:00:00Z', '2026-01-05T10:60:00Z', '2026-01-05T10:00:61Z', '2026-01-05T10:00:00+25:00', '2026-01-05T10:00:00 UTC', '2026-01-05Tnoon']) {
      expect({ bad, code: conversionError(() => toDateTime(bad)).code }).toEqual({ bad, code: 'INVALID_DATETIME' });
    }
    expect(conversionError(() => toDate('1990-05-01Tgarbage')).code).toBe('INVALID_DATE');
    expect(toDate('1990-05-01 23:30:00-02:00')).toBe('1990-05-01');
  });
});

describe('convertValue', () => {
  it('leaves blank values out for every type but Checkbox', () => {
    for (const type of [text(255), longText(), html(), number(10, 2), date(), dateTime()]) {
      for (const blank of [null, undefined, '', '  ']) expect(convertValue(type, blank)).toBeUndefined();
    }
    expect(convertValue(checkbox(), null)).toBe(false);
    expect(convertValue(checkbox(true), '  ')).toBe(true);
  });

  it('strips HTML only for the html long text, before cutting', () => {
    expect(convertValue(html(), '<p>a &amp; b</p>')).toBe('a & b');
    expect(convertValue(longText(), '<p>a &amp; b</p>')).toBe('<p>a &amp; b</p>');
    expect(convertValue(text(255), '<p>a &amp; b</p>')).toBe('<p>a &amp; b</p>');
    expect(convertValue(html(), `<b>${'z'.repeat(32768)}</b>`)).toBe('z'.repeat(32768));
  });

  it('keeps the characters of a non-blank text value (no trimming), cut to the length', () => {
    expect(convertValue(text(255), ' padded ')).toBe(' padded ');
    expect(convertValue(text(3), 'EURO')).toBe('EUR');
    expect(convertValue(text(2), 'nl-NL')).toBe('nl');
    expect(convertValue(text(255), 42)).toBe('42');
  });
});
