import { describe, expect, it } from '@jest/globals';
import { parseCsv, toCsv, toCsvBytes } from '../../src/crm/csv.js';

describe('Bulk result CSV', () => {
  it('reads headers named like Object.prototype members as plain columns', () => {
    const [row] = parseCsv('"sf__Id","__proto__","constructor","toString"\n"a0X1","p","c","t"\n');
    expect(row?.sf__Id).toBe('a0X1');
    expect(row?.['__proto__']).toBe('p');
    expect(row?.constructor).toBe('c');
    expect(row?.toString).toBe('t');
    expect(Object.keys(row ?? {})).toEqual(['sf__Id', '__proto__', 'constructor', 'toString']);
  });

  it('a column the results lack reads as undefined, not as an inherited member', () => {
    const [row] = parseCsv('"sf__Id"\n"a0X1"\n');
    expect(row?.['constructor']).toBeUndefined();
    expect(row?.['sf__Error']).toBeUndefined();
  });
});

describe('parseCsv on every shape a cell can take', () => {
  it('reads quoted cells holding commas, quotes, line breaks and non-ASCII text', () => {
    const text = '"a","b","c"\n"1,2","say ""hi""","line\none"\n"é ü 日本","","x"\r\n';
    expect(parseCsv(text)).toEqual([
      { a: '1,2', b: 'say "hi"', c: 'line\none' },
      { a: 'é ü 日本', b: '', c: 'x' },
    ]);
  });

  it('reads unquoted cells, empty cells at the ends of a row, CRLF and CR line endings and a last row without a line break', () => {
    expect(parseCsv('a,b,c\r\n1,,3\r,2,\nx,y,z')).toEqual([
      { a: '1', b: '', c: '3' },
      { a: '', b: '2', c: '' },
      { a: 'x', b: 'y', c: 'z' },
    ]);
  });

  it('reads a cell mixing quoted and unquoted runs as the quotes toggle', () => {
    expect(parseCsv('a,b\nab"c,d"e,"x"y"z"""\n')).toEqual([{ a: 'abc,de', b: 'xyz"' }]);
  });

  it('skips blank lines and reads a header alone as no rows', () => {
    expect(parseCsv('a,b\n\n1,2\n\n')).toEqual([{ a: '1', b: '2' }]);
    expect(parseCsv('"a","b"\n')).toEqual([]);
    expect(parseCsv('')).toEqual([]);
  });

  it('refuses a text ending inside a quoted cell and a row of the wrong width', () => {
    expect(() => parseCsv('a,b\n"1,2\n')).toThrow('CSV ends inside a quoted cell');
    expect(() => parseCsv('a,b\nx"1,2\n')).toThrow('CSV ends inside a quoted cell');
    expect(() => parseCsv('a,b\n1,2,3\n')).toThrow('CSV row has 3 cells, header has 2');
  });

  it('keeps only the columns asked for, and a column the header lacks stays absent', () => {
    const rows = parseCsv('"sf__Id","sf__Created","SvcId__c","Name"\n"a01","true","Donation_1","x, y"\n', { columns: ['sf__Id', 'SvcId__c', 'sf__Error'] });
    expect(rows).toEqual([{ sf__Id: 'a01', SvcId__c: 'Donation_1' }]);
    expect(Object.keys(rows[0] ?? {})).toEqual(['sf__Id', 'SvcId__c']);
  });

  it('reads a Buffer the same as its text', () => {
    const text = '"k","v"\n"1","ü ""q"""\n';
    expect(parseCsv(Buffer.from(text, 'utf8'))).toEqual(parseCsv(text));
  });
});

describe('a Bulk job body written as bytes', () => {
  it('is byte for byte the CSV text (measured, then written: a wrong size throws), whatever the cells hold', () => {
    const header = ['SvcId__c', 'Name', 'Note__c'];
    const rows = [
      ['Donation_1', 'say "hi", twice', 'line\none'],
      ['Donation_2', 'é ü 日本 😀', ''],
      ['Donation_3', '""', '#N/A'],
    ];
    const bytes = toCsvBytes(header, () => rows);
    expect(bytes.equals(Buffer.from(toCsv(header, rows), 'utf8'))).toBe(true);
    expect(parseCsv(bytes)).toEqual(rows.map(([a, b, c]) => ({ SvcId__c: a, Name: b, Note__c: c })));
    expect(toCsvBytes(['Id'], () => []).toString()).toBe('"Id"\n');
  });
});
