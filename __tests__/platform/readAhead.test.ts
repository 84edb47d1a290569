import { describe, expect, it } from '@jest/globals';
import { readAhead } from '../../src/platform/readAhead.js';

/** Pages read ahead after a list page of `records` records, each with a description of `text` characters. */
const page = (records: number, text: number): number => readAhead(Array.from({ length: records }, (_, i) => ({ id: i + 1, description: 'x'.repeat(text) }))).ahead;

describe('readAhead', () => {
  it('reads four pages of donations ahead, and one of fundraising pages with 10-30 KB of HTML each', () => {
    expect(page(100, 1_000)).toBe(4);
    expect(page(100, 20_000)).toBe(1);
    expect(page(100, 7_000)).toBe(2);
  });

  it('reads ahead as many as may be in flight after an empty page', () => {
    expect(readAhead([])).toEqual({ text: 0, ahead: 4 });
  });
});
