import { describe, expect, it } from '@jest/globals';
import { IdTable } from '../../src/model/idTable.js';

describe('IdTable', () => {
  it('holds what a Map holds, across the merges into its sorted arrays, ids in any order', () => {
    const table = new IdTable();
    const expected = new Map<number, number>();
    // Over 16,384 ids a merge: several merges; ids out of order, some set again, some removed.
    for (let i = 0; i < 200_000; i++) {
      const id = ((i * 7919) % 150_000) + 1;
      const value = (i % 5) + (i % 11 === 0 ? 0 : 1);
      table.set(id, value);
      if (value === 0) expected.delete(id);
      else expected.set(id, value);
    }
    expect(table.size).toBe(expected.size);
    const wrong: number[] = [];
    for (let id = 0; id <= 150_001; id++) if (table.get(id) !== (expected.get(id) ?? 0)) wrong.push(id);
    expect(wrong).toEqual([]);
    expect(table.has(150_001)).toBe(false);
  });

  it('lists its ids in ascending order, removed ones left out (what a complete scan proves is read from them)', () => {
    const table = new IdTable();
    for (const id of [9, 3, 70_000, 3, 12]) table.add(id);
    table.set(12, 0);
    expect([...table]).toEqual([3, 9, 70_000]);
    table.add(1);
    expect([...table]).toEqual([1, 3, 9, 70_000]);
  });

  it('counts each id once, whatever it is set to', () => {
    const table = new IdTable();
    table.add(5);
    table.add(5);
    table.set(5, 3);
    table.add(2 ** 40);
    expect(table.size).toBe(2);
    table.set(5, 0);
    expect([table.size, table.has(5), table.has(2 ** 40)]).toEqual([1, false, true]);
  });

  it('keeps ascending ids and ids between them apart across merges, a removed id set again', () => {
    const table = new IdTable();
    // Even ids ascending (a list scan's order), then the odd ones between them: merges in place.
    for (let id = 2; id <= 80_000; id += 2) table.add(id);
    table.set(40_000, 0);
    for (let id = 1; id <= 80_000; id += 2) table.set(id, 2);
    table.add(40_000);
    expect(table.size).toBe(80_000);
    const ids = [...table];
    expect(ids.length).toBe(80_000);
    expect(ids.every((id, i) => id === i + 1)).toBe(true);
    expect([table.get(40_000), table.get(40_001), table.get(80_001)]).toEqual([1, 2, 0]);
  });
});
