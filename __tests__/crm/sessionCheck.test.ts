/**
 * Issue 32: the session check a run makes before the platform is read (the org's limits) is sent
 * without jsforce when the connection is not made yet; any answer but a plain success is asked
 * again through the connection, so failures, renewals and retries are those every call meets.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ORG_ID, startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSettings } from '../../src/config/settings.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { ApiLimitError, InterruptedError, SalesforceAuthError, SalesforceError, describeError, exitCodeOf } from '../../src/model/errors.js';
import { CLIENT, FAST, settingsFor } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const limitsCalls = (e: Emulator): string[] => e.requests().filter((r) => r.endsWith('/limits'));

describe('the session check at the start of a run', () => {
  it('a given session: one call, the org named, the usage it reads arming the allowance guard', async () => {
    emu = await startSalesforceEmulator();
    const sink = await SalesforceSink.connect(settingsFor(emu), FAST);
    const org = await sink.verifySession();
    expect(org).toEqual({ instanceUrl: emu.url, orgId: ORG_ID.slice(0, 15) });
    expect(emu.requests()).toEqual([`GET /services/data/v${emu.apiVersion}/limits`]);
    expect(sink.calls()).toMatchObject({ total: 1, auth: 0 });
    // The guard was armed by that answer: 95% used against a 90% maximum refuses the next call.
    emu.setApiUsage(95_000);
    const again = await SalesforceSink.connect(settingsFor(emu), FAST);
    await expect(again.verifySession()).rejects.toBeInstanceOf(ApiLimitError);
    // The limits call counts against the allowance too.
    expect(again.apiUsage()).toEqual({ used: 95_001, limit: 100_000 });
  });

  it('a transient failure of the early call is asked again through the connection, with its retries', async () => {
    emu = await startSalesforceEmulator();
    const sink = await SalesforceSink.connect(settingsFor(emu), FAST);
    emu.failUnavailable(2);
    await expect(sink.verifySession()).resolves.toMatchObject({ instanceUrl: emu.url });
    // The early call, the connection's refused attempt, then its retry.
    expect(limitsCalls(emu)).toHaveLength(3);
    expect(sink.calls().total).toBe(3);
  });

  it('an expired given session fails with the message every other call meets', async () => {
    emu = await startSalesforceEmulator();
    emu.expireSession();
    const sink = await SalesforceSink.connect(settingsFor(emu), FAST);
    const check = await sink.verifySession().catch((e: unknown) => e);
    expect(check).toBeInstanceOf(SalesforceAuthError);
    expect((check as Error).message).toMatch(/session is invalid or expired/);
    const query = await sink.readByKeys('Svc_Segment__c', ['Segment_1'], []).catch((e: unknown) => e);
    expect((check as Error).message).toBe((query as Error).message);
  });

  it('an expired given session with OAuth credentials configured is renewed by the check', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT] });
    const settings: SalesforceSettings = {
      ...settingsFor(emu),
      login: { method: 'client_credentials', ...CLIENT, loginUrl: emu.url, session: { instanceUrl: emu.url, accessToken: emu.accessToken } },
    };
    const sink = await SalesforceSink.connect(settings, FAST);
    emu.expireSession();
    await expect(sink.verifySession()).resolves.toMatchObject({ instanceUrl: emu.url });
    expect(sink.calls().auth).toBe(1);
  });

  it('a stop (Ctrl-C) during the check ends it with the stop itself', async () => {
    emu = await startSalesforceEmulator();
    const sink = await SalesforceSink.connect(settingsFor(emu), FAST);
    const stop = new AbortController();
    stop.abort(new InterruptedError('SIGINT'));
    await expect(sink.verifySession(stop.signal)).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('the OAuth token call', () => {
  it('an unreachable login URL is a host out of reach (exit 69), named with the network error and what was tried', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    const settings: SalesforceSettings = { apiVersion: '62.0', bulkThreshold: 2000, maxApiUsage: 0.9, login: { method: 'client_credentials', ...CLIENT, loginUrl: url } };
    const err = await SalesforceSink.connect(settings, FAST).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SalesforceError);
    expect(err).not.toBeInstanceOf(SalesforceAuthError);
    expect((err as SalesforceError).code).toBe('NETWORK_ERROR');
    expect((err as Error).message).toBe(`login URL ${url}/services/oauth2/token: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect((err as SalesforceError).unanswered).toMatch(/^\(3 attempts over \d+\.\d s\)$/);
    expect(exitCodeOf(err)).toBe(69);
    expect(describeError(err)).toMatch(/^Salesforce did not answer: login URL .*ECONNREFUSED.* \(3 attempts over .*\); check that it is up and that SF_LOGIN_URL points at it$/);
  });
});

describe('the org id a login gives (issue 47, row 14)', () => {
  const clientLogin = (e: Emulator): SalesforceSettings => ({
    ...settingsFor(e),
    login: { method: 'client_credentials', loginUrl: e.url, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret },
  });

  it('is taken by the rule the org records are read by: an 18-character id with its checksum, never another length', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT], orgId: '00D5g000009OrgAEAS' });
    expect((await SalesforceSink.connect(clientLogin(emu), FAST)).session.orgId()).toBe('00D5g000009OrgAEAS');
    await emu.close();
    // 17 characters (the emulator's default once was one): no org id, rather than one no record may hold.
    emu = await startSalesforceEmulator({ clients: [CLIENT], orgId: '00D5g000000EmuAAA' });
    expect((await SalesforceSink.connect(clientLogin(emu), FAST)).session.orgId()).toBeUndefined();
  });
});
