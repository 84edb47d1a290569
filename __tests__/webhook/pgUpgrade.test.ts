/**
 * The upgrade from 1.0's PostgreSQL queue: a database holding the tables svc-sync 1.0.0 created
 * (fixtures/webhook/queue-1.0.sql, its DDL as shipped) and the events a 1.0 receiver left there,
 * one of them killed mid-batch. This release's `queue` reads it as it is, its `serve` takes every
 * open event over once (nothing lost, nothing twice), and a second start changes nothing. Whatever
 * backs the PostgreSQL queue, 1.0 users' open events must come through this.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { startPostgres, type TestPostgres } from '../../fixtures/postgres.js';
import type { QueueLocation } from '../../src/config/settings.js';
import { openQueue, storeStatus } from '../../src/webhook/queue/open.js';
import { eventInput } from './helpers.js';

let postgres: TestPostgres | undefined;
let url = '';
let schemas = 0;

beforeAll(async () => {
  postgres = await startPostgres();
  url = await postgres.createDatabase('upgrade');
}, 60_000);
afterAll(async () => {
  await postgres?.close();
});

const DDL_10 = readFileSync(new URL('../../fixtures/webhook/queue-1.0.sql', import.meta.url), 'utf8');

/** What a 1.0 receiver left: open events of three records (one claimed by a receiver that died), a failure, finished events, an owner, a budget reading. */
const LEFT_BY_10 = `
  INSERT INTO Q.events (id, received_at, raw, object_type, object_id, event_type, application, ref_type, ref_id, status, outcome, reason, attempts, last_error, next_attempt_at, claim_token, finished_at, connection) VALUES
    (1, 1000, '{}', 'Donation', 1, 'donations.update', 'Kentaa', 'donation', 1, 'pending', NULL, NULL, 0, NULL, 1000, NULL, NULL, ''),
    (2, 1100, '{}', 'Donation', 1, 'donations.move', 'Kentaa', 'donation', 1, 'pending', NULL, NULL, 0, NULL, 1100, NULL, NULL, ''),
    (3, 1200, '{}', 'Donation', 2, 'donations.update', 'Kentaa', 'donation', 2, 'processing', NULL, NULL, 0, NULL, 1200, 'dead-receiver', NULL, ''),
    (4, 1300, '{}', 'Donation', 2, 'donations.update', 'Kentaa', 'donation', 2, 'pending', NULL, NULL, 0, NULL, 1300, NULL, NULL, ''),
    (5, 1400, '{}', 'Donation', 3, 'donations.update', 'Kentaa', 'donation', 3, 'failed', NULL, NULL, 2, 'platform answered 500', 1500, NULL, NULL, ''),
    (6, 1500, '{}', 'Donation', 4, 'donations.update', 'Kentaa', 'donation', 4, 'done', 'done', NULL, 0, NULL, 1500, NULL, 1600, ''),
    (7, 1600, '{}', 'News', 1, 'news.create', 'Kentaa', NULL, NULL, 'ignored', NULL, 'object type News is not mirrored', 0, NULL, 1600, NULL, 1600, ''),
    (8, 1700, '{}', 'Donation', 1, 'donations.update', 'Kentaa', 'donation', 1, 'pending', NULL, NULL, 0, NULL, 1700, NULL, NULL, 'north');
  SELECT setval(pg_get_serial_sequence('Q.events', 'id'), 8);
  INSERT INTO Q.refs (connection, ref_type, ref_id, claim_token, lease_until) VALUES
    ('', 'donation', 1, NULL, NULL), ('', 'donation', 2, 'dead-receiver', now() - interval '1 second'),
    ('', 'donation', 3, NULL, NULL), ('north', 'donation', 1, NULL, NULL);
  INSERT INTO Q.action_owners (connection, action_id, user_id, updated_at) VALUES ('', 10, 5, 1000);
  INSERT INTO Q.rate_budget (key, remaining_minute, minute_reset_at, updated_at) VALUES ('k', 50, 60000, 1000);`;

async function queueOf10(): Promise<QueueLocation> {
  const schema = `v10_${++schemas}`;
  const q = `"${schema}"`;
  await postgres?.query(url, DDL_10.replaceAll('Q.', `${q}.`).replaceAll('SCHEMA Q', `SCHEMA ${q}`));
  await postgres?.query(url, LEFT_BY_10.replaceAll('Q.', `${q}.`));
  return { kind: 'postgres', url, schema, leaseMs: 60_000 };
}

describe("the upgrade from 1.0's PostgreSQL queue", () => {
  it('`queue` reads a 1.0 queue as it is, before any serve of this release', async () => {
    const where = await queueOf10();
    const status = await storeStatus(where);
    expect(status.counts).toEqual({ pending: 4, processing: 1, failed: 1, done: 1, skipped: 0, ignored: 1 });
    expect(status.failed).toEqual([expect.objectContaining({ id: 5, refType: 'donation', refId: 3, attempts: 2, lastError: 'platform answered 500' })]);
    expect(status.ignored).toEqual([expect.objectContaining({ reason: 'object type News is not mirrored', count: 1 })]);
  });

  it("serve takes every open event over once, the dead 1.0 receiver's claim with it; a second start changes nothing", async () => {
    const where = await queueOf10();
    const queue = await openQueue(where, { create: true });
    try {
      expect(await queue.recoverInterrupted(2000)).toBe(1);
      expect(await queue.actionsOwnedBy(5)).toEqual([10]);
      const batch = await queue.claimBatch(10, 2000);
      const claimed = batch?.refs.flatMap((r) => r.eventIds).sort((a, b) => a - b);
      // Every open event of 1.0, each once: nothing lost, nothing twice.
      expect(claimed).toEqual([1, 2, 3, 4, 5, 8]);
      expect(batch?.refs.filter((r) => r.refType === 'donation' && r.refId === 1)).toHaveLength(2);
      expect(await queue.complete(batch?.token ?? '', [{ eventIds: claimed ?? [], status: 'done' }], [], 2000)).toBe(6);
      expect(await queue.counts()).toEqual({ pending: 0, processing: 0, failed: 0, done: 7, skipped: 0, ignored: 1 });
    } finally {
      await queue.close();
    }
    const again = await openQueue(where, { create: true });
    try {
      expect(await again.recoverInterrupted(3000)).toBe(0);
      expect(await again.claimBatch(10, 3000)).toBeUndefined();
      // New events after the upgrade get ids after 1.0's.
      const [stored] = await again.enqueueMany([eventInput('Donation', 9, 'donations.update')]);
      expect(stored?.id).toBe(9);
    } finally {
      await again.close();
    }
  });
});
