import { afterEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceLogin, SalesforceSettings } from '../../src/config/settings.js';
import { connectSalesforce } from '../../src/crm/connection.js';
import { SalesforceAuthError } from '../../src/model/errors.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { CLIENT, FAST, USER, segments, settingsFor } from './helpers.js';
import { tempFolders } from '../support/tempFolders.js';

const jwtFolder = tempFolders('svc-jwt-');

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const base = (e: Emulator) => ({ apiVersion: e.apiVersion, bulkThreshold: 2000, maxApiUsage: 0.9 });
/** The settings of one login method, as config resolves them (its checks: __tests__/config). */
const oauth = (e: Emulator, login: DistributiveOmit<SalesforceLogin, 'loginUrl'>): SalesforceSettings => ({ ...base(e), login: { ...login, loginUrl: e.url } as SalesforceLogin });
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

describe('a Salesforce that stops answering', () => {
  it("is a network error naming the socket's code (jsforce's fetch says only `fetch failed`)", async () => {
    emu = await startSalesforceEmulator();
    const sink = new SalesforceSink(await connectSalesforce(settingsFor(emu)), { bulkThreshold: 2000, maxApiUsage: 0.9, ...FAST });
    await emu.close();
    emu = undefined;
    const [out] = await sink.upsert('Svc_Segment__c', segments(1));
    expect(out).toMatchObject({ status: 'failed', error: { code: 'NETWORK_ERROR', message: 'network error talking to Salesforce: ECONNREFUSED' } });
  });
});

describe('connectSalesforce', () => {
  it('uses an instance URL and access token as given', async () => {
    emu = await startSalesforceEmulator();
    const session = await connectSalesforce(settingsFor(emu));
    expect(session.method).toBe('access_token');
    const sink = new SalesforceSink(session, { bulkThreshold: 2000, maxApiUsage: 0.9, ...FAST });
    expect((await sink.upsert('Svc_Segment__c', segments(1)))[0].status).toBe('created');
    expect(sink.calls()).toMatchObject({ auth: 0, collections: 1, total: 1 });
  });

  it('recovers an expired client-credentials session transparently, once', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT] });
    const sink = await SalesforceSink.connect(oauth(emu, { method: 'client_credentials', ...CLIENT }), FAST);
    expect(sink.session.method).toBe('client_credentials');
    await sink.upsert('Svc_Segment__c', segments(2));
    emu.expireSession();
    const out = await sink.upsert('Svc_Segment__c', segments(2, 3));
    expect(out.every((o) => o.status === 'created')).toBe(true);
    expect(emu.calls().unauthorized).toBe(1);
    expect(sink.calls().auth).toBe(2);
    expect(emu.records('Svc_Segment__c')).toHaveLength(4);
  });

  it('logs in with username-password OAuth and re-authorises after expiry', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT], users: [USER] });
    const sink = await SalesforceSink.connect(oauth(emu, { method: 'password', ...CLIENT, ...USER }), FAST);
    expect(sink.session.method).toBe('password');
    emu.expireSession();
    const got = await sink.readByKeys('Svc_Segment__c', ['Segment_1'], ['Name']);
    expect(got.size).toBe(0);
    expect(sink.calls().auth).toBe(2);
  });

  it('signs a JWT bearer assertion with the private key file', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = jwtFolder();
    const keyFile = path.join(dir, 'server.key');
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    emu = await startSalesforceEmulator({ users: [USER], jwtClients: [{ clientId: CLIENT.clientId, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() }] });
    const sink = await SalesforceSink.connect(oauth(emu, { method: 'jwt', clientId: CLIENT.clientId, username: USER.username, privateKeyFile: keyFile }), FAST);
    expect(sink.session.method).toBe('jwt');
    emu.expireSession();
    expect((await sink.upsert('Svc_Segment__c', segments(1)))[0].status).toBe('created');
    expect(sink.calls().auth).toBe(2);
  });

  it('names the problem without printing secrets when a login is refused', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT], users: [USER] });
    const wrong = { clientId: CLIENT.clientId, clientSecret: 'wrong-secret-789' };
    const err = await connectSalesforce(oauth(emu, { method: 'password', ...wrong, username: USER.username, password: 'pw-wrong-000' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SalesforceAuthError);
    const text = `${(err as Error).message} ${JSON.stringify(err)}`;
    expect(text).toMatch(/refused the password login.*invalid_client/);
    for (const secret of ['wrong-secret-789', 'pw-wrong-000', CLIENT.clientSecret]) expect(text).not.toContain(secret);
  });

  it('says what to configure when an access token expires with no credentials to renew it', async () => {
    emu = await startSalesforceEmulator();
    const sink = new SalesforceSink(await connectSalesforce(settingsFor(emu)), { bulkThreshold: 2000, maxApiUsage: 0.9, ...FAST });
    emu.expireSession();
    const err = await sink.upsert('Svc_Segment__c', segments(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SalesforceAuthError);
    expect((err as Error).message).toMatch(/no credentials are configured/);
    expect((err as Error).message).not.toContain(emu.accessToken);
  });

  it('fails, not loops, when the renewed session is rejected too', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT] });
    const sink = await SalesforceSink.connect(oauth(emu, { method: 'client_credentials', ...CLIENT }), FAST);
    // every token is dropped as soon as it is issued
    const e = emu;
    sink.session.connection.on('refresh', () => e.expireSession());
    emu.expireSession();
    const err = await sink.upsert('Svc_Segment__c', segments(1)).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(SalesforceAuthError);
    expect(sink.calls().auth).toBe(2);
  });

  it('takes a given session first, and renews it by OAuth when the settings allow', async () => {
    emu = await startSalesforceEmulator({ clients: [CLIENT] });
    const sink = await SalesforceSink.connect(oauth(emu, { method: 'client_credentials', ...CLIENT, session: { instanceUrl: emu.url, accessToken: emu.accessToken } }), FAST);
    await sink.upsert('Svc_Segment__c', segments(1));
    expect(sink.calls().auth).toBe(0);
    emu.expireSession();
    await sink.upsert('Svc_Segment__c', segments(1, 2));
    expect(sink.calls().auth).toBe(1);
  });
});
