/**
 * The rules every HTTP client follows (src/model/httpRules.ts), met through the real clients:
 * the OAuth token call, the session check, jsforce's connection and the platform's got.
 * - No redirect is followed: a token or key never reaches another origin ("another host" is a
 *   second listener on 127.0.0.1 that records what it receives).
 * - One proxy rule: HTTP(S)_PROXY and NO_PROXY honoured alike by all four (a counting proxy).
 * - Every request is bounded by its timeout; a held one is retried.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import { startProxy, startRecordingHost, type Proxy, type RecordingHost } from '../../fixtures/network.js';
import { startFakePlatform, type FakePlatform } from '../../fixtures/platform/server.js';
import { generateSite } from '../../fixtures/platform/site.js';
import { connectSalesforce } from '../../src/crm/connection.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { PlatformClient } from '../../src/platform/client.js';
import { exitCodeOf as exitOf, InterruptedError, messageOf, ProxyError, RedirectError } from '../../src/model/errors.js';
import type { SalesforceSettings } from '../../src/config/settings.js';
import { API_KEY, FAST_RETRY, settingsFor as platformSettingsFor } from '../platform/helpers.js';
import { CLIENT, FAST, settingsFor } from './helpers.js';

let emu: Emulator | undefined;
let other: RecordingHost;
let platform: FakePlatform;
const site = generateSite({ seed: 3, segments: 1, projectsPerSegment: 1, donations: 3, newsletterSubscriptions: 1 });

beforeAll(async () => {
  other = await startRecordingHost();
  platform = await startFakePlatform({ site, apiKey: API_KEY });
});
afterAll(async () => {
  await other.close();
  await platform.close();
});
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  platform.faults.clear();
  platform.resetCounts();
});

const oauth = (e: Emulator): SalesforceSettings => ({
  apiVersion: e.apiVersion,
  bulkThreshold: 2000,
  maxApiUsage: 0.9,
  login: { method: 'client_credentials', loginUrl: e.url, ...CLIENT },
});

const port = (url: string): string => new URL(url).port;

describe('a redirect to another origin', () => {
  const expectRefused = (err: unknown, from: string): void => {
    expect(err).toBeInstanceOf(RedirectError);
    // Both hosts named, the documented exit for a setting to fix.
    expect(messageOf(err)).toContain(`http://127.0.0.1:${port(from)}`);
    expect(messageOf(err)).toContain(`to ${other.url}`);
    expect(exitOf(err)).toBe(2);
    expect(other.received).toEqual([]);
  };

  it('of the session check (GET /limits) is not followed, nor re-sent through jsforce', async () => {
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    e.redirect(/^GET .*\/limits$/, other.url);
    const sink = await SalesforceSink.connect(settingsFor(e), FAST);
    expectRefused(await sink.verifySession().catch((err: unknown) => err), e.url);
  });

  it("of a query sent through jsforce's connection is not followed", async () => {
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    e.redirect(/^GET .*\/query$/, other.url, 307);
    const sink = await SalesforceSink.connect(settingsFor(e), FAST);
    expectRefused(await sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Name']).catch((err: unknown) => err), e.url);
  });

  it('of the OAuth token call is not followed (the client secret stays home)', async () => {
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    e.redirect(/^POST \/services\/oauth2\/token$/, other.url, 308);
    expectRefused(await connectSalesforce(oauth(e)).catch((err: unknown) => err), e.url);
  });

  it('of a platform request is not followed, first request (plain) and later ones (got)', async () => {
    platform.faults.next(2, 'redirect', { toOrigin: other.url });
    const client = new PlatformClient(platformSettingsFor(platform), { retry: FAST_RETRY });
    expectRefused(await client.getById('segment', site.segment[0]!.id).catch((e: unknown) => e), platform.url);
    expectRefused(await client.getById('segment', site.segment[0]!.id).catch((e: unknown) => e), platform.url);
    expect(platform.faults.pending()).toBe(0);
  });
});

describe('one proxy rule for every client', () => {
  let proxy: Proxy;
  const saved = { ...process.env };
  afterEach(async () => {
    for (const k of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await proxy?.close();
  });

  /** OAuth login, session check, one jsforce query, two platform requests (plain, then got). */
  async function everyClient(e: Emulator): Promise<void> {
    const sink = await SalesforceSink.connect(oauth(e), FAST);
    await sink.verifySession();
    await sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Name']);
    const client = new PlatformClient(platformSettingsFor(platform), { retry: FAST_RETRY });
    await client.getById('segment', site.segment[0]!.id);
    await client.getById('segment', site.segment[0]!.id);
  }

  it('NO_PROXY covering the hosts: nothing goes through the proxy', async () => {
    proxy = await startProxy();
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    Object.assign(process.env, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    await everyClient(e);
    expect(proxy.tunnels).toEqual([]);
  });

  it('without NO_PROXY: every client goes through it (a tunnel per connection)', async () => {
    proxy = await startProxy();
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    Object.assign(process.env, { http_proxy: proxy.url });
    await everyClient(e);
    const to = (url: string): string => `127.0.0.1:${port(url)}`;
    // The login, the check and jsforce reach the emulator, and both platform clients the API.
    expect(new Set(proxy.tunnels)).toEqual(new Set([to(e.url), to(platform.url)]));
    // Every request either server saw came through the proxy's tunnels.
    expect(e.calls().total).toBe(3);
    expect(platform.requests.total).toBe(2);
    expect(proxy.requests).toBe(5);
    expect(proxy.plain).toBe(0);
  });

  it('a proxy refusing CONNECT fails fast, with a line naming the proxy', async () => {
    proxy = await startProxy({ refuse: true });
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    Object.assign(process.env, { HTTP_PROXY: `http://user:proxy-pw-123@127.0.0.1:${port(proxy.url)}` });
    const started = Date.now();
    const login = await connectSalesforce(oauth(e)).catch((err: unknown) => err);
    expect(login).toBeInstanceOf(ProxyError);
    expect(messageOf(login)).toBe(`proxy ${proxy.url} refused CONNECT to 127.0.0.1:${port(e.url)} (HTTP 403)`);
    const client = new PlatformClient(platformSettingsFor(platform), { retry: FAST_RETRY });
    const read = await client.getById('segment', site.segment[0]!.id).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(ProxyError);
    expect(exitOf(read)).toBe(2);
    expect(messageOf(read)).not.toContain('proxy-pw-123');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(platform.requests.total).toBe(0);
  });
});

describe('every request bounded', () => {
  it('a Salesforce request held past SF_TIMEOUT_MS is abandoned and sent again', async () => {
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    const sink = await SalesforceSink.connect({ ...settingsFor(e), timeoutMs: 1_000 }, FAST);
    const held = e.holdNext(/^GET .*\/query$/);
    const started = Date.now();
    const read = sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Name']);
    await held.reached;
    expect((await read).size).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(e.calls().query).toBe(2);
    held.release();
  });

  it('a stop ends a held Salesforce request within the grace, with the stop as its reason', async () => {
    const e = (emu = await startSalesforceEmulator({ clients: [CLIENT] }));
    const stop = new AbortController();
    const sink = await SalesforceSink.connect(settingsFor(e), FAST, stop.signal);
    const held = e.holdNext(/^GET .*\/query$/);
    const read = sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Name']).catch((err: unknown) => err);
    await held.reached;
    const reason = new InterruptedError('SIGTERM');
    stop.abort(reason);
    const started = Date.now();
    expect(await read).toBe(reason);
    expect(Date.now() - started).toBeLessThan(8_000);
    held.release();
  });
});
