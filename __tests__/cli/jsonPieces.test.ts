import { describe, expect, it } from '@jest/globals';
import { jsonPieces } from '../../src/cli/output.js';

describe('the --json document written in pieces', () => {
  it.each([
    [
      'an envelope with nested lists and objects',
      {
        status: 1,
        result: {
          command: 'replay',
          records: [
            { key: 'Donation_1', action: 'skip', reason: 'x\ny' },
            { key: 'A', changes: { F: { from: null, to: 2 } } },
          ],
          empty: [],
          none: {},
          skipped: undefined,
        },
        warnings: ['w'],
      },
    ],
    ['values JSON.stringify drops or maps', { a: [undefined, () => 1, null, NaN], b: new Date(0), c: { toJSON: () => 'custom' }, d: 'quote " and \\ backslash' }],
    ['a scalar', 42],
  ])('%s: exactly the text of JSON.stringify(value, null, 2), and on one line (--json-lines) of JSON.stringify(value)', (_name, value) => {
    expect([...jsonPieces(value, '', 3)].join('')).toBe(JSON.stringify(value, null, 2));
    const line = [...jsonPieces(value, '', 3, false)].join('');
    expect(line).toBe(JSON.stringify(value));
    expect(line).not.toContain('\n');
  });

  it('writes an iterable list (a run outcome log) as the array it lists, without copying it; Maps and Sets as JSON.stringify does', () => {
    function* outcomes(): Generator<object> {
      yield { key: 'Donation_1', action: 'insert' };
      yield { key: 'Donation_2', action: 'skip', reason: 'x' };
    }
    const listed = [...outcomes()];
    const value = { result: { records: { [Symbol.iterator]: outcomes }, none: { [Symbol.iterator]: function* () {} }, map: new Map([[1, 2]]), set: new Set([1]) } };
    const expected = { result: { records: listed, none: [], map: {}, set: {} } };
    expect([...jsonPieces(value, '', 3)].join('')).toBe(JSON.stringify(expected, null, 2));
    expect([...jsonPieces(value, '', 3, false)].join('')).toBe(JSON.stringify(expected));
  });
});
