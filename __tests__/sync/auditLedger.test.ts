/** The compact record of what a complete scan listed: ids in any order, past the first growth. */
import { describe, expect, it } from '@jest/globals';
import { IdSet, PairSet, questionIdsOf } from '../../src/sync/audit/auditLedger.js';

describe('IdSet', () => {
  it('answers membership for ids added in any order, across growth and after later additions', () => {
    const set = new IdSet();
    const ids = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 5000) * 3 + 1);
    for (const id of ids) set.add(id);
    expect(set.count).toBe(5000);
    expect(ids.every((id) => set.has(id))).toBe(true);
    expect([0, 2, 3, 15002, -1].map((id) => set.has(id))).toEqual([false, false, false, false, false]);
    // An id added after a lookup (the list grew while it was scanned) is found too.
    set.add(2);
    expect(set.has(2)).toBe(true);
    expect(set.has(1)).toBe(true);
  });

  it('is empty at first', () => {
    expect(new IdSet().has(1)).toBe(false);
  });
});

describe('question keys', () => {
  it('are read as (action, question) pairs, and nothing else is', () => {
    expect(questionIdsOf('ActionQuestion_12.345')).toEqual({ actionId: 12, questionId: 345 });
    expect(['ActionQuestion_12', 'Action_12', 'actionquestion_1.2', 'ActionQuestion_1.2x'].map(questionIdsOf)).toEqual([undefined, undefined, undefined, undefined]);
    const pairs = new PairSet();
    pairs.add(12, 345);
    pairs.add(12, 346);
    expect([pairs.has(12, 345), pairs.has(12, 346), pairs.has(12, 347), pairs.has(13, 345)]).toEqual([true, true, false, false]);
    expect(pairs.count).toBe(2);
  });
});
