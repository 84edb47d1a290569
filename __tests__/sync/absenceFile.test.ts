/**
 * The absence proofs kept in the state folder (issue 48): what a complete scan proves, what a 404
 * proves, what names an id again, and how two processes sharing the folder keep one file.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AbsenceFile, absenceFileBeside } from '../../src/sync/run/absenceFile.js';
import { IdTable } from '../../src/model/idTable.js';

const BASE = 'https://api.example.org';
const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-02-01T00:00:00.000Z';
let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-absence-'));
  file = absenceFileBeside(path.join(dir, 'state.json'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a complete scan', () => {
  it("proves the same gaps whatever order its ids come in: a list scan's IdTable, an unordered set, a one-shot generator", () => {
    const ids = [9, 3, 4, 7, 4];
    const table = new IdTable();
    for (const id of ids) table.add(id);
    function* once(): Generator<number> {
      yield* ids;
    }
    for (const listed of [table, new Set(ids), once()]) {
      fs.rmSync(file, { force: true });
      const proofs = new AbsenceFile(file, BASE);
      proofs.proveScan('action', listed, T1);
      expect([1, 2, 5, 6, 8, 10].map((id) => proofs.has('action', id))).toEqual([T1, T1, T1, T1, T1, T1]);
      expect([3, 4, 7, 9].map((id) => proofs.has('action', id))).toEqual([undefined, undefined, undefined, undefined]);
      expect(proofs.top('action')).toBe(9);
    }
  });

  it('proves every id it did not list absent, up to its highest and above it, and keeps that highest id', () => {
    const proofs = new AbsenceFile(file, BASE);
    proofs.proveScan('action', new Set([3, 4, 7]), T1);
    expect([1, 2, 5, 6, 8, 1_000_000].map((id) => proofs.has('action', id))).toEqual([T1, T1, T1, T1, T1, T1]);
    expect([3, 4, 7].map((id) => proofs.has('action', id))).toEqual([undefined, undefined, undefined]);
    expect(proofs.top('action')).toBe(7);
    expect(proofs.has('project', 1)).toBeUndefined();
    // Kept in the folder: the next run (another instance) reads the same.
    const next = new AbsenceFile(file, BASE);
    expect(next.has('action', 5)).toBe(T1);
    expect(next.top('action')).toBe(7);
  });

  it('replaces the proofs of an earlier scan of the type', () => {
    const proofs = new AbsenceFile(file, BASE);
    proofs.proveScan('action', new Set([3]), T1);
    proofs.proveScan('action', new Set([1, 2, 3, 4]), T2);
    expect(proofs.has('action', 2)).toBeUndefined();
    expect(proofs.has('action', 5)).toBe(T2);
    expect(proofs.top('action')).toBe(4);
  });
});

describe('a proof no longer holds', () => {
  it('once the id is named again (a webhook, a record read), in this process and the next', () => {
    const proofs = new AbsenceFile(file, BASE);
    proofs.proveScan('action', new Set([3]), T1);
    proofs.drop('action', 2);
    expect(proofs.has('action', 2)).toBeUndefined();
    expect(proofs.has('action', 1)).toBe(T1);
    expect(new AbsenceFile(file, BASE).has('action', 2)).toBeUndefined();
  });

  it('when the other process sharing the folder dropped it: a later change here does not bring it back', () => {
    const sync = new AbsenceFile(file, BASE);
    sync.proveScan('action', new Set([3]), T1);
    const serve = new AbsenceFile(file, BASE);
    serve.drop('action', 2);
    sync.add('project', 9, T2);
    expect(new AbsenceFile(file, BASE).has('action', 2)).toBeUndefined();
    expect(new AbsenceFile(file, BASE).has('project', 9)).toBe(T2);
  });
});

describe('a 404 by id', () => {
  it('proves that id absent from its time; a later 404 moves the time on', () => {
    const proofs = new AbsenceFile(file, BASE);
    proofs.add('team', 12, T1);
    expect(proofs.has('team', 12)).toBe(T1);
    expect(proofs.has('team', 11)).toBeUndefined();
    proofs.add('team', 12, T2);
    expect(proofs.has('team', 12)).toBe(T2);
    proofs.add('team', 12, T1);
    expect(proofs.has('team', 12)).toBe(T2);
  });
});

describe('a file that proves nothing', () => {
  it('is another base URL’s, or damaged: every id is read again', () => {
    new AbsenceFile(file, BASE).proveScan('action', new Set([3]), T1);
    expect(new AbsenceFile(file, 'https://other.example.org').has('action', 1)).toBeUndefined();
    fs.writeFileSync(file, '{"version":1,"baseUrl":"https://api.example.org","types":{"action":[[5,2,"x"]]},"tops":{}}');
    expect(new AbsenceFile(file, BASE).has('action', 3)).toBeUndefined();
    fs.writeFileSync(file, 'not json');
    expect(new AbsenceFile(file, BASE).has('action', 1)).toBeUndefined();
  });

  it('is never written by a dry run', () => {
    const proofs = new AbsenceFile(file, BASE, false);
    proofs.proveScan('action', new Set([3]), T1);
    expect(fs.existsSync(file)).toBe(false);
  });
});
