import { describe, expect, it } from '@jest/globals';
import { parseCsv } from '../../src/crm/csv.js';

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
