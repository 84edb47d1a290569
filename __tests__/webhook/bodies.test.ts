/**
 * Webhook bodies as senders and proxies send them: gzip and deflate decoded (the size limit
 * applies to the decoded body), other encodings refused with 415; and /metrics bounded whatever
 * event types senders invent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import zlib from 'node:zlib';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { ServeMetrics } from '../../src/webhook/metrics.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { donationEvent, postJson, request, tempQueue, type TempDir } from './helpers.js';

const MAX = 65_536;
let tmp: TempDir;
let queue: SqliteQueue;
let receiver: Receiver;
let metrics: ServeMetrics;

beforeAll(async () => {
  tmp = tempQueue();
  queue = new SqliteQueue(tmp.db);
  metrics = new ServeMetrics();
  metrics.watch(queue);
  receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue, metrics, maxBodyBytes: MAX });
});

afterAll(async () => {
  await receiver.close();
  await queue.close();
  tmp.cleanup();
});

const post = (body: Buffer, encoding?: string): ReturnType<typeof request> =>
  request(`${receiver.url}/webhooks`, {
    headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, ...(encoding === undefined ? {} : { 'Content-Encoding': encoding }) },
    body,
  });

describe('Content-Encoding', () => {
  const json = Buffer.from(JSON.stringify(donationEvent(41)));

  it('gzip, x-gzip and deflate (zlib or raw) bodies are decoded and stored', async () => {
    for (const [encoding, body] of [
      ['gzip', zlib.gzipSync(json)],
      ['x-gzip', zlib.gzipSync(json)],
      ['deflate', zlib.deflateSync(json)],
      ['deflate', zlib.deflateRawSync(json)],
      ['GZIP, identity', zlib.gzipSync(json)],
    ] as const) {
      const r = await post(body, encoding);
      expect({ encoding, status: r.status, body: JSON.parse(r.body) as unknown }).toEqual({ encoding, status: 200, body: { status: 'queued', id: expect.any(Number) } });
    }
  });

  it('a small compressed bomb is refused with 413 (the limit applies to the decoded body)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * MAX, 0x20));
    expect(bomb.length).toBeLessThan(MAX);
    const r = await post(bomb, 'gzip');
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: `decoded body over ${MAX} bytes` });
  });

  it('any other encoding is 415, br with a plain body included; broken gzip is 400', async () => {
    for (const encoding of ['br', 'compress', 'gzip, br', 'zstd']) {
      const r = await post(json, encoding);
      expect({ encoding, status: r.status }).toEqual({ encoding, status: 415 });
      expect((JSON.parse(r.body) as { error: string }).error).toMatch(/is not supported \(gzip, deflate or none\)$/);
    }
    const broken = await post(json, 'gzip');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body)).toEqual({ error: 'body is not valid gzip data' });
  });
});

describe('/metrics', () => {
  it('3,000 invented event types add one label value, `other`, not 3,000 series', async () => {
    const before = (await request(`${receiver.url}/metrics`, { method: 'GET' })).body.length;
    // 300 at a time: each round is one group commit (an fsync), slow on a loaded machine.
    for (let i = 0; i < 3_000; i += 300) {
      await Promise.all(Array.from({ length: 300 }, (_, j) => postJson(`${receiver.url}/webhooks`, donationEvent(1, `invented_${i + j}.update`))));
    }
    await postJson(`${receiver.url}/webhooks`, donationEvent(2, 'Donations.Update'));
    const after = await request(`${receiver.url}/metrics`, { method: 'GET' });
    expect(after.body).not.toMatch(/invented_/);
    expect(after.body).toMatch(/^svc_sync_webhook_events_received_total\{event_type="other",status="200"\} 3000$/m);
    expect(after.body).toMatch(/^svc_sync_webhook_events_received_total\{event_type="donations\.update",status="200"\} [1-9]\d*$/m);
    expect(after.body.length - before).toBeLessThan(2_000);
  }, 90_000);
});
