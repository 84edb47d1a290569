/**
 * A real `serve` process (fixtures/webhook/serve-child.ts, run from dist/: `npm test` builds first)
 * killed with SIGKILL in the middle of a batch, then restarted: every event answered 200 is still
 * there, none was marked done without an outcome, and the restart processes each ref once.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { openDatabase, statement } from '../../src/webhook/queue/sqliteDb.js';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { donationEvent, eventually, pool, postForm, postJson, tempQueue, type TempDir } from './helpers.js';
import { assertBuilt, journalOf, killAll, startChild } from './serveChild.js';

interface Row {
  id: number;
  ref_type: string;
  ref_id: number;
  status: string;
  outcome: string | null;
}

function rows(db: string): Row[] {
  const conn = openDatabase(db, { readOnly: true });
  try {
    return statement(conn, 'SELECT id, ref_type, ref_id, status, outcome FROM events ORDER BY id').all() as unknown as Row[];
  } finally {
    conn.close();
  }
}

describe('serve process', () => {
  let tmp: TempDir | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await killAll(children);
    tmp?.cleanup();
    tmp = undefined;
  });

  it('loses nothing when killed with SIGKILL mid-batch, and the restart finishes every event once', async () => {
    assertBuilt();
    tmp = tempQueue();
    const journal = path.join(tmp.dir, 'journal.txt');
    const first = await startChild(tmp.db, 'hang', journal);
    children.push(first.proc);
    const url = `http://127.0.0.1:${first.port}/webhooks`;

    // 60 events over 20 donations, then 40 more (10 new donations) while the batch hangs.
    const before = Array.from({ length: 60 }, (_, i) => () => postForm(url, donationEvent(1 + (i % 20))));
    expect((await pool(before, 10)).every((r) => r.status === 200)).toBe(true);
    await eventually(() => first.lines.some((l) => typeof l.started === 'number'), 'first batch in flight');
    const during = Array.from({ length: 40 }, (_, i) => () => postJson(url, donationEvent(11 + (i % 20))));
    expect((await pool(during, 10)).every((r) => r.status === 200)).toBe(true);

    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const afterKill = rows(tmp.db);
    expect(afterKill).toHaveLength(100);
    expect(afterKill.filter((r) => r.status === 'done')).toHaveLength(0);
    expect(afterKill.filter((r) => r.status === 'processing').length).toBeGreaterThan(0);
    expect(journalOf(journal)).toEqual([]);

    const second = await startChild(tmp.db, 'ok', journal);
    children.push(second.proc);
    await eventually(() => rows(tmp?.db ?? '').every((r) => r.status === 'done'), 'every event done after the restart');
    second.proc.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);

    const final = rows(tmp.db);
    expect(final).toHaveLength(100);
    expect(final.every((r) => r.outcome === 'done')).toBe(true);
    const written = journalOf(journal);
    const distinct = new Set(final.map((r) => `${r.ref_type}:${r.ref_id}`));
    expect(distinct.size).toBe(30);
    expect(new Set(written)).toEqual(distinct);
    // All 100 events were queued before the restart, so each donation is written exactly once.
    expect(written).toHaveLength(30);
  });

  it('on SIGTERM stops accepting, finishes the batch in flight and exits 0', async () => {
    assertBuilt();
    tmp = tempQueue();
    const journal = path.join(tmp.dir, 'journal.txt');
    const child = await startChild(tmp.db, 'slow', journal);
    children.push(child.proc);
    const url = `http://127.0.0.1:${child.port}/webhooks`;
    const posts = Array.from({ length: 10 }, (_, i) => () => postForm(url, donationEvent(500 + i)));
    expect((await pool(posts, 5)).every((r) => r.status === 200)).toBe(true);
    await eventually(() => child.lines.some((l) => typeof l.started === 'number'), 'batch in flight');
    child.proc.kill('SIGTERM');
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    expect(child.lines.some((l) => l.stopped === true)).toBe(true);
    // Every batch that started (on a loaded machine more than one may start before the signal lands) finished.
    const started = child.lines.reduce((n, l) => n + (typeof l.started === 'number' ? l.started : 0), 0);

    // The batch in flight was completed and recorded; anything not claimed yet is still pending.
    const final = rows(tmp.db);
    expect(final).toHaveLength(10);
    expect(final.filter((r) => r.status === 'done')).toHaveLength(journalOf(journal).length);
    expect(journalOf(journal)).toHaveLength(started);
    expect(final.filter((r) => r.status === 'processing')).toHaveLength(0);
    expect(final.filter((r) => r.status === 'done').length + final.filter((r) => r.status === 'pending').length).toBe(10);
  });
});
