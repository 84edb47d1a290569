/**
 * One `serve` for several connections (issue 31), in process with recording processors: routing
 * by site_id and by path, each connection's secret, a site no connection has, a connection that
 * pauses alone, events of a connection the config no longer has, an older queue's events, and
 * /healthz and /metrics per connection. The CLI with real platforms and orgs is in
 * __tests__/e2e/serveConnections.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ObjectRef } from '../../src/model/objects.js';
import { openDatabase, pragma } from '../../src/webhook/queue/sqliteDb.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { serve, type RunningService, type ServeConnection } from '../../src/webhook/serve.js';
import type { BatchProcessor, ProcessResult } from '../../src/webhook/worker/worker.js';
import { postJson, request, tempQueue, type TempDir } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

/** A processor that records the refs it is given, or refuses every batch while `refusing` is set. */
function recorder(): BatchProcessor & { seen: ObjectRef[]; refusing: string | undefined } {
  const p = {
    seen: [] as ObjectRef[],
    refusing: undefined as string | undefined,
    async process(refs: ObjectRef[]): Promise<ProcessResult> {
      const refusing = p.refusing;
      if (refusing !== undefined) return { outcomes: refs.map((ref) => ({ ref, status: 'failed' as const, reason: refusing })) };
      p.seen.push(...refs);
      return { outcomes: refs.map((ref) => ({ ref, status: 'done' as const })) };
    },
    paused: () => p.refusing,
  };
  return p;
}

const event = (id: number, site: number | undefined, type = 'donations.update'): Record<string, string | number> => ({
  object_type: 'Donation',
  object_id: id,
  event_type: type,
  application: 'Kentaa',
  ...(site === undefined ? {} : { site_id: site }),
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('one serve for several connections', () => {
  let tmp: TempDir;
  let service: RunningService | undefined;
  let lines: string[];
  const north = recorder();
  const south = recorder();

  const start = async (connections: ServeConnection[], adminToken?: string): Promise<RunningService> => {
    service = await serve({
      ...(adminToken === undefined ? {} : { adminToken }),
      host: '127.0.0.1',
      port: 0,
      queue: { kind: 'sqlite', path: tmp.db },
      connections,
      handleSignals: false,
      gatherMs: 0,
      pollMs: 50,
      retry: { baseMs: 1, maxMs: 1 },
      log: (l) => lines.push(l),
    });
    return service;
  };
  const two = (): ServeConnection[] => [
    { name: 'north', siteId: 6, secret: 'north-secret-1a2b', processor: north },
    { name: 'south', siteId: 7, secret: 'south-secret-3c4d', processor: south },
  ];

  beforeEach(() => {
    tmp = tempQueue();
    lines = [];
    for (const p of [north, south]) {
      p.seen.length = 0;
      p.refusing = undefined;
    }
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    tmp.cleanup();
  });

  it('routes by site_id to the connection with that site, the same record id of two sites to each its own', async () => {
    const s = await start(two());
    const h = { 'X-Webhook-Secret': 'north-secret-1a2b' };
    expect((await postJson(`${s.url}/webhooks`, event(11, 6), h)).status).toBe(200);
    expect((await postJson(`${s.url}/webhooks`, event(11, 7), { 'X-Webhook-Secret': 'south-secret-3c4d' })).status).toBe(200);
    expect((await postJson(`${s.url}/webhooks/south-secret-3c4d`, event(12, 7))).status).toBe(200);
    await until(() => north.seen.length === 1 && south.seen.length === 2, 'both connections to sync');
    expect(north.seen).toEqual([{ type: 'donation', id: 11 }]);
    expect(south.seen.map((r) => r.id).sort()).toEqual([11, 12]);
    expect((await s.queue.countsByConnection()).map((c) => [c.connection, c.counts.done])).toEqual([
      ['north', 1],
      ['south', 2],
    ]);
  });

  it("takes a connection's secret for its own site only: another connection's secret is 401 and nothing is stored", async () => {
    const s = await start(two());
    const wrong = await postJson(`${s.url}/webhooks`, event(21, 7), { 'X-Webhook-Secret': 'north-secret-1a2b' });
    expect(wrong.status).toBe(401);
    expect((await postJson(`${s.url}/webhooks/north`, event(21, 6), { 'X-Webhook-Secret': 'south-secret-3c4d' })).status).toBe(401);
    expect((await postJson(`${s.url}/webhooks`, event(21, 7), { 'X-Webhook-Secret': 'not-a-secret' })).status).toBe(401);
    expect(await s.queue.counts()).toMatchObject({ pending: 0, done: 0, ignored: 0 });
    // Summed up in the log as any wrong secret is, and no secret in any line.
    expect(lines.join('\n')).toMatch(/webhook 401/);
    expect(lines.join('\n')).not.toMatch(/north-secret|south-secret/);
  });

  it('routes by path (/webhooks/<name>), and a path that disagrees with the site_id is 200 and recorded ignored with the reason', async () => {
    const s = await start(two());
    const byPath = await postJson(`${s.url}/webhooks/south/south-secret-3c4d`, event(31, 7));
    expect(byPath.status).toBe(200);
    const disagree = await postJson(`${s.url}/webhooks/north`, event(32, 7), { 'X-Webhook-Secret': 'north-secret-1a2b' });
    expect(disagree.status).toBe(200);
    expect(JSON.parse(disagree.body)).toMatchObject({ status: 'ignored', reason: "site 7 is not connection north's site (SVC_SITE_ID 6)" });
    await until(() => south.seen.length === 1, 'south to sync');
    expect(north.seen).toEqual([]);
  });

  it('a site no connection has: 200 and recorded ignored, naming the sites it has; no site_id at all likewise', async () => {
    const s = await start(two());
    const other = await postJson(`${s.url}/webhooks`, event(41, 9), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toMatchObject({ status: 'ignored', reason: "site 9 is no connection's site (sites 6 (north), 7 (south))" });
    const none = await postJson(`${s.url}/webhooks`, event(42, undefined), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    expect(JSON.parse(none.body)).toMatchObject({ status: 'ignored' });
    expect(await s.queue.counts()).toMatchObject({ ignored: 2, pending: 0 });
  });

  it('a connection that cannot sync pauses alone: its events wait (failed, retried), the other keeps flowing, then it catches up', async () => {
    north.refusing = 'Salesforce refused the client_credentials login (invalid_grant: user is inactive)';
    const s = await start(two());
    await postJson(`${s.url}/webhooks`, event(51, 6), { 'X-Webhook-Secret': 'north-secret-1a2b' });
    await postJson(`${s.url}/webhooks`, event(51, 7), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    await until(() => south.seen.length === 1, 'south to sync');
    await until(async () => (await s.queue.countsByConnection()).some((c) => c.connection === 'north' && c.counts.failed + c.counts.pending === 1), 'north to hold its event');
    await until(async () => JSON.parse((await request(`${s.url}/healthz`, { method: 'GET' })).body).byConnection?.north?.state === 'paused', 'north paused in /healthz');
    const health = JSON.parse((await request(`${s.url}/healthz`, { method: 'GET' })).body) as { status: string; byConnection: Record<string, { status: string; why?: string }> };
    expect(health.status).toBe('degraded');
    expect(health.byConnection.north).toMatchObject({ status: 'paused', why: expect.stringContaining('invalid_grant') });
    expect(health.byConnection.south).toMatchObject({ status: 'ok' });
    north.refusing = undefined;
    await until(() => north.seen.length === 1, 'north to catch up once it syncs again');
    expect(north.seen).toEqual([{ type: 'donation', id: 51 }]);
  });

  it('/metrics carries a connection label on the per-connection series', async () => {
    const s = await start(two());
    await postJson(`${s.url}/webhooks`, event(61, 7), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    await until(() => south.seen.length === 1, 'south to sync');
    await until(async () => /svc_sync_batch_events_total\{outcome="done",connection="south"\} 1/.test((await request(`${s.url}/metrics`, { method: 'GET' })).body), 'the batch in the metrics');
    const text = (await request(`${s.url}/metrics`, { method: 'GET' })).body;
    expect(text).toMatch(/svc_sync_queue_events\{state="done",connection="south"\} 1/);
    expect(text).toMatch(/svc_sync_queue_events\{state="done",connection="north"\} 0/);
  });

  it('the status page shows one section per connection, and the connection of each failed event', async () => {
    const token = 'status-admin-token-0123456789abcdef';
    north.refusing = 'the org refused the login';
    const s = await start(two(), token);
    await postJson(`${s.url}/webhooks`, event(65, 6), { 'X-Webhook-Secret': 'north-secret-1a2b' });
    await postJson(`${s.url}/webhooks`, event(65, 7), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    await until(() => south.seen.length === 1, 'south to sync');
    await until(async () => (await s.queue.counts()).failed === 1, 'north to fail');
    const page = await request(`${s.url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${token}` } });
    expect({ status: page.status, body: page.status === 200 ? '' : page.body }).toEqual({ status: 200, body: '' });
    expect(page.body).toMatch(/<section data-connection="north"><h2>Connection north<\/h2><p>pending <b>0<\/b> · processing <b>0<\/b> · failed <b>1<\/b>/);
    expect(page.body).toMatch(/<section data-connection="south"><h2>Connection south<\/h2><p>pending <b>0<\/b> · processing <b>0<\/b> · failed <b>0<\/b> · done <b>1<\/b>/);
    expect(page.body).toContain('<span class="muted" data-failed-connection>(north)</span>');
  });

  it('events of a connection the config no longer has stay pending with a warning; the others flow', async () => {
    const s1 = await start(two());
    north.refusing = 'paused for the test';
    await postJson(`${s1.url}/webhooks`, event(71, 6), { 'X-Webhook-Secret': 'north-secret-1a2b' });
    await until(async () => (await s1.queue.counts()).failed === 1, 'north to hold its event');
    await s1.stop();
    north.refusing = undefined;
    const s2 = await start([
      { name: 'south', siteId: 7, secret: 'south-secret-3c4d', processor: south },
      { name: 'east', siteId: 8, processor: recorder() },
    ]);
    await postJson(`${s2.url}/webhooks`, event(72, 7), { 'X-Webhook-Secret': 'south-secret-3c4d' });
    await until(() => south.seen.length === 1, 'south to sync');
    await until(() => lines.some((l) => /open events? of connection "north" \(not among the connections this serve runs\) (is|are) left pending/.test(l)), 'the warning');
    expect(north.seen).toEqual([]);
    expect((await s2.queue.countsByConnection()).find((c) => c.connection === 'north')?.counts.failed).toBe(1);
  });

  it("an older queue's events (before connections) are migrated in place and belong to the only connection", async () => {
    const db = openDatabase(tmp.db);
    db.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, received_at INTEGER NOT NULL, raw TEXT NOT NULL, object_type TEXT NOT NULL, object_id INTEGER NOT NULL,
      event_type TEXT NOT NULL, application TEXT NOT NULL, site_id INTEGER, ref_type TEXT, ref_id INTEGER,
      status TEXT NOT NULL CHECK (status IN ('pending','processing','done','failed','ignored')), outcome TEXT CHECK (outcome IN ('done','skipped')), reason TEXT,
      attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, next_attempt_at INTEGER NOT NULL, claim_token TEXT, finished_at INTEGER);
      CREATE TABLE action_owners (action_id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      INSERT INTO events (received_at, raw, object_type, object_id, event_type, application, site_id, ref_type, ref_id, status, next_attempt_at)
        VALUES (1, '{}', 'Donation', 81, 'donations.update', 'Kentaa', 6, 'donation', 81, 'pending', 1);`);
    pragma(db, 'application_id = 1937142641');
    pragma(db, 'user_version = 1');
    db.close();
    await start([{ name: 'north', siteId: 6, processor: north }]);
    await until(() => north.seen.length === 1, 'the older event to sync');
    expect(north.seen).toEqual([{ type: 'donation', id: 81 }]);
    await service?.stop();
    service = undefined;
    const after = openDatabase(tmp.db, { readOnly: true });
    expect(pragma(after, 'user_version')).toBe(2);
    after.close();
  });

  it('a view sees its own events only: counts, failures and retry of one connection leave the other alone', async () => {
    const queue = new SqliteQueue(tmp.db);
    const msg = { objectType: 'Donation', objectId: 5, eventType: 'donations.update', application: 'Kentaa' };
    const input = (connection: string) => ({ message: msg, intent: { kind: 'sync' as const, ref: { type: 'donation' as const, id: 5 } }, raw: '{}', connection });
    await queue.enqueueMany([input('north'), input('south')]);
    const north1 = queue.scoped({ home: 'north', keys: ['north'] });
    const batch = await north1.claimBatch(10);
    expect(batch?.eventCount).toBe(1);
    await north1.complete(batch!.token, [{ eventIds: batch!.refs[0]!.eventIds, status: 'failed', error: 'refused' }]);
    expect((await north1.failedEvents()).map((f) => f.connection)).toEqual(['north']);
    expect(await queue.scoped({ home: 'south', keys: ['south'] }).retryFailed()).toBe(0);
    expect(await north1.retryFailed()).toBe(1);
    expect(await queue.scoped({ home: 'south', keys: ['south'] }).counts()).toMatchObject({ pending: 1 });
    await queue.close();
  });
});
