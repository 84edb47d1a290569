import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../src/model/errors.js';
import { loadRaw, settingsOf, platformSettings, redact, salesforceSettings } from '../../src/config/load.js';

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-config-'));
const TOKEN_ENV = { SVC_API_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'k-123456', SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-abcdef' };

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('settings sources', () => {
  it('takes flags over environment over the config file', () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ SVC_API_URL: 'http://file', SF_API_VERSION: '60.0', SVC_CONCURRENCY: 2 }));
    const raw = loadRaw({ cwd, env: { SVC_API_URL: 'http://env', SF_API_VERSION: '61.0' }, flags: { SVC_API_URL: 'http://flag' } });
    expect(raw.SVC_API_URL).toBe('http://flag');
    expect(raw.SF_API_VERSION).toBe('61.0');
    expect(raw.SVC_CONCURRENCY).toBe('2');
  });

  it('treats blank values as unset, so a lower source still counts', () => {
    const raw = loadRaw({ cwd: tmp(), env: { SVC_API_URL: '  ' }, flags: {}, configPath: undefined });
    expect(raw.SVC_API_URL).toBeUndefined();
  });

  it('reads an explicit --config file and refuses a missing one, naming it', () => {
    const cwd = tmp();
    const file = path.join(cwd, 'other.json');
    fs.writeFileSync(file, JSON.stringify(TOKEN_ENV));
    expect(settingsOf(loadRaw({ cwd, env: {}, configPath: file })).platform.apiUrl).toBe('http://127.0.0.1:1');
    expect(errorOf(() => loadRaw({ cwd, env: {}, configPath: path.join(cwd, 'nope.json') })).message).toMatch(/nope\.json: cannot be read/);
  });

  it('rejects malformed config files with one line naming the problem', () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), '{ not json');
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/svc-sync\.config\.json: not valid JSON$/);
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ SVC_API_UR: 'x' }));
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/unknown setting SVC_API_UR/);
  });
});

describe('validation', () => {
  it('names a missing setting', () => {
    expect(errorOf(() => platformSettings({ SVC_API_KEY: 'k' })).message).toMatch(/^SVC_API_URL is not set/);
    expect(errorOf(() => platformSettings({ SVC_API_URL: 'http://x' })).message).toMatch(/^SVC_API_KEY is not set/);
  });

  it('names a malformed setting', () => {
    expect(errorOf(() => platformSettings({ SVC_API_URL: 'not a url', SVC_API_KEY: 'k' })).message).toBe('SVC_API_URL: not a URL');
    expect(errorOf(() => platformSettings({ SVC_API_URL: 'ftp://x', SVC_API_KEY: 'k' })).message).toBe('SVC_API_URL: must be an http(s) URL');
    expect(errorOf(() => platformSettings({ ...TOKEN_ENV, SVC_CONCURRENCY: '0' })).message).toMatch(/^SVC_CONCURRENCY: must be a whole number from 1 to 16/);
    expect(errorOf(() => salesforceSettings({ ...TOKEN_ENV, SF_API_VERSION: 'v62' })).message).toMatch(/^SF_API_VERSION:/);
    expect(errorOf(() => salesforceSettings({ ...TOKEN_ENV, SF_MAX_API_USAGE: '1.5' })).message).toMatch(/^SF_MAX_API_USAGE:/);
  });

  it('needs one complete way to reach Salesforce', () => {
    expect(errorOf(() => salesforceSettings({})).message).toMatch(/Salesforce connection is not configured/);
    expect(errorOf(() => salesforceSettings({ SF_ACCESS_TOKEN: 't' })).message).toMatch(/^SF_INSTANCE_URL is not set/);
    expect(errorOf(() => salesforceSettings({ SF_LOGIN_URL: 'http://l' })).message).toMatch(/^SF_CLIENT_ID is not set/);
    expect(errorOf(() => salesforceSettings({ SF_LOGIN_URL: 'http://l', SF_CLIENT_ID: 'c' })).message).toMatch(/^SF_CLIENT_SECRET is not set/);
    expect(salesforceSettings({ SF_LOGIN_URL: 'http://l/', SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's' }).loginUrl).toBe('http://l');
    expect(salesforceSettings({ SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's' }).loginUrl).toBe('https://login.salesforce.com');
    expect(errorOf(() => salesforceSettings({ SF_CLIENT_ID: 'c' })).message).toMatch(/^SF_CLIENT_SECRET is not set/);
    expect(errorOf(() => salesforceSettings({ SF_LOGIN_URL: 'http://l', SF_CLIENT_ID: 'c', SF_USERNAME: 'u', SF_PRIVATE_KEY_FILE: '/no/such.key' })).message).toMatch(/SF_PRIVATE_KEY_FILE: \/no\/such\.key does not exist/);
  });

  it('has the documented defaults', () => {
    const s = settingsOf(loadRaw({ cwd: tmp(), env: TOKEN_ENV }));
    expect(s.platform).toEqual({ apiUrl: 'http://127.0.0.1:1', apiKey: 'k-123456', concurrency: 4, timeoutMs: 30000, listIdsOnly: false });
    expect(s.salesforce.apiVersion).toBe('62.0');
    expect(s.salesforce.bulkThreshold).toBe(2000);
    expect(s.salesforce.maxApiUsage).toBe(0.9);
    expect(s.webhook.queuePath).toBe('.svc-sync/queue.db');
  });

  it('never puts a secret in an error message', () => {
    const secret = 'sk live with space';
    const e = errorOf(() => platformSettings({ SVC_API_URL: 'http://x', SVC_API_KEY: secret }));
    expect(e.message).toBe('SVC_API_KEY: contains white space');
    expect(e.message).not.toContain('live');
  });
});

describe('redact', () => {
  it('replaces every configured secret value by its name', () => {
    const raw = { SVC_API_KEY: 'k-123456', SF_ACCESS_TOKEN: 'tok-abcdef', SVC_API_URL: 'http://127.0.0.1:1' };
    expect(redact('key k-123456 and tok-abcdef at http://127.0.0.1:1', raw)).toBe('key <SVC_API_KEY> and <SF_ACCESS_TOKEN> at http://127.0.0.1:1');
  });
});
