import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, statement } from '../../src/webhook/queue/sqliteDb.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { donationEvent, postForm, postJson, request, tempQueue, type TempDir } from './helpers.js';

const SECRET = 's3cret-value-for-tests';

interface Row {
  status: string;
  object_type: string;
  object_id: number;
  ref_type: string | null;
  ref_id: number | null;
  reason: string | null;
  site_id: number | null;
}

describe('receiver without a secret', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  let receiver: Receiver;
  let url: string;
  const logged: string[] = [];
  let wakes = 0;
  const rows = (): Row[] => {
    const db = openDatabase(tmp.db, { readOnly: true });
    try {
      return statement(db, 'SELECT status, object_type, object_id, ref_type, ref_id, reason, site_id FROM events ORDER BY id').all() as unknown as Row[];
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db);
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, log: (l) => logged.push(l), onEnqueued: () => wakes++ });
    url = `${receiver.url}/webhooks`;
  });
  afterAll(async () => {
    await receiver.close();
    await queue.close();
    tmp.cleanup();
  });

  it('stores a form body and answers 200 after the commit', async () => {
    const before = wakes;
    const r = await postForm(url, donationEvent(101));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ status: 'queued' });
    expect(rows().at(-1)).toEqual({ status: 'pending', object_type: 'Donation', object_id: 101, ref_type: 'donation', ref_id: 101, reason: null, site_id: 7 });
    expect(wakes).toBeGreaterThan(before);
  });

  it('stores a JSON body (charset parameter, string id, trailing slash)', async () => {
    const text = JSON.stringify({ object_type: 'Project', object_id: '55', event_type: 'projects.move', application: 'Kentaa' });
    const r = await request(`${url}/`, { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: text });
    expect(r.status).toBe(200);
    expect(rows().at(-1)).toMatchObject({ status: 'pending', ref_type: 'project', ref_id: 55, site_id: null });
  });

  it('answers 200 to events without a mirror and records them ignored', async () => {
    const news = await postJson(url, { object_type: 'News', object_id: 3, event_type: 'news.create', application: 'Kentaa', site_id: 1 });
    const order = await postForm(url, { object_type: 'Order', object_id: 4, event_type: 'orders.update', application: 'Kentaa', site_id: 1 });
    expect([news.status, order.status]).toEqual([200, 200]);
    expect(JSON.parse(news.body)).toMatchObject({ status: 'ignored', reason: 'object type News is not mirrored' });
    expect(
      rows()
        .slice(-2)
        .map((r) => [r.status, r.ref_type]),
    ).toEqual([
      ['ignored', null],
      ['ignored', null],
    ]);
  });

  it('answers 400 with the reason and stores nothing for malformed bodies', async () => {
    const count = rows().length;
    const missing = await postJson(url, { object_type: 'Donation', event_type: 'donations.update', application: 'Kentaa' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body)).toEqual({ error: 'object_id is missing' });
    const broken = await request(url, { headers: { 'Content-Type': 'application/json' }, body: '{"object_type":' });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body).error).toMatch(/^body is not valid JSON/);
    const xml = await request(url, { headers: { 'Content-Type': 'text/xml' }, body: '<a/>' });
    expect(xml.status).toBe(400);
    expect(rows()).toHaveLength(count);
  });

  it('answers 405 with Allow for other methods and 404 for other paths', async () => {
    const get = await request(url, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const put = await request(url, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect((await request(`${receiver.url}/elsewhere`, { method: 'POST', body: 'x' })).status).toBe(404);
    // Without a configured secret a path segment is just a wrong path.
    expect((await postForm(`${url}/anything`, donationEvent(1))).status).toBe(404);
    const healthPost = await request(`${receiver.url}/healthz`, { method: 'POST', body: '' });
    expect(healthPost.status).toBe(405);
    expect(healthPost.headers.allow).toBe('GET, HEAD');
  });

  it('answers 413 for a declared length over 64 KiB and for a chunked body that grows past it', async () => {
    const count = rows().length;
    const big = Buffer.alloc(70_000, 'a');
    const declared = await request(url, { headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': big.length }, body: big });
    expect(declared.status).toBe(413);
    const chunk = Buffer.alloc(16_384, 'b');
    const chunked = await request(url, { headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' }, chunks: [chunk, chunk, chunk, chunk, chunk] });
    expect(chunked.status).toBe(413);
    expect(rows()).toHaveLength(count);
    // The server keeps serving after cutting those off.
    expect((await postForm(url, donationEvent(102))).status).toBe(200);
  });

  it('GET /healthz reports the queue counts', async () => {
    const r = await request(`${receiver.url}/healthz`, { method: 'GET' });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body) as { status: string; queue: Record<string, number> };
    expect(body.status).toBe('ok');
    expect(body.queue).toEqual(await queue.counts());
    expect(body.queue.pending).toBe(3);
    expect(body.queue.ignored).toBe(2);
  });

  it('logs refusals with their reason', () => {
    expect(logged.some((l) => l.startsWith('webhook 400') && l.includes('object_id is missing'))).toBe(true);
    expect(logged.some((l) => l.startsWith('webhook 413'))).toBe(true);
  });
});

describe('receiver with a secret', () => {
  let tmp: TempDir;
  let queue: SqliteQueue;
  let receiver: Receiver;
  let url: string;
  const logged: string[] = [];

  beforeAll(async () => {
    tmp = tempQueue();
    queue = new SqliteQueue(tmp.db);
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: 'hooks/', secret: SECRET, queue, log: (l) => logged.push(l) });
    url = `${receiver.url}/hooks`;
  });
  afterAll(async () => {
    await receiver.close();
    await queue.close();
    tmp.cleanup();
  });

  it('answers 401 and stores nothing without the secret, or with a wrong one', async () => {
    expect((await postForm(url, donationEvent(1))).status).toBe(401);
    expect((await postForm(url, donationEvent(1), { 'X-Webhook-Secret': 'wrong' })).status).toBe(401);
    expect((await postForm(url, donationEvent(1), { 'X-Webhook-Secret': `${SECRET}x` })).status).toBe(401);
    expect((await postForm(`${url}/not-the-secret`, donationEvent(1))).status).toBe(401);
    expect((await queue.counts()).pending).toBe(0);
  });

  it('accepts the secret as a header or as the last path segment', async () => {
    expect((await postForm(url, donationEvent(1), { 'X-Webhook-Secret': SECRET })).status).toBe(200);
    expect((await postJson(`${url}/${encodeURIComponent(SECRET)}`, donationEvent(2))).status).toBe(200);
    expect((await queue.counts()).pending).toBe(2);
  });

  it('never writes the secret to the log', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).not.toContain(SECRET);
  });
});
