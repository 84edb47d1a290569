import { describe, expect, it } from '@jest/globals';
import got from 'got';
import http from 'node:http';
import { parseObjectType } from '../src/model/objects.js';

describe('toolchain', () => {
  it('runs ESM TypeScript with got over loopback', async () => {
    const server = http.createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const body = await got(`http://127.0.0.1:${port}/`).json<{ ok: boolean }>();
    server.close();
    expect(body.ok).toBe(true);
    expect(parseObjectType('newsletter-subscriptions')).toBe('newsletter_subscription');
    expect(parseObjectType('Companies')).toBe('company');
  });
});
