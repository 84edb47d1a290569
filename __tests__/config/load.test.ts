import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { configErrorOf } from '../support/configError.js';
import { loadRaw, settingsOf, platformSettings, redact, salesforceSettings } from '../../src/config/load.js';
import { settleSeconds, webhookSettings } from '../../src/config/webhookSettings.js';
import { maskQueueUrl, pgConnectionUrl } from '../../src/config/queueUrl.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-config-');
const TOKEN_ENV = { SVC_API_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'k-123456', SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-abcdef' };

const errorOf = configErrorOf;

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
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/unknown setting "SVC_API_UR" \(did you mean SVC_API_URL\?\)$/);
    // The nearest key only: not the list of every setting.
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ 'sf-instance-ur': 'x' }));
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/unknown setting "sf-instance-ur" \(did you mean SF_INSTANCE_URL\?\)$/);
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ colour: 'x' }));
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/unknown setting "colour" \(svc-sync --help lists the settings\)$/);
  });

  // The names every JavaScript object inherits are no environment variable of the user's: an
  // inherited function or object is never taken as a value (it gave `v.trim is not a function`).
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('{"env": "%s"} is a variable that is not set, named in one line', (name) => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ SVC_API_KEY: { env: name } }));
    for (const env of [{}, process.env]) {
      expect(errorOf(() => loadRaw({ cwd, env })).message).toBe(`config file ${path.join(cwd, 'svc-sync.config.json')}: SVC_API_KEY is taken from the environment variable ${name}, which is not set`);
    }
    // One the user did set, under that name, is taken.
    expect(loadRaw({ cwd, env: { [name]: 'k-own-1' } }).SVC_API_KEY).toBe('k-own-1');
  });

  it.each(['__proto__', 'constructor', 'toString'])('the key %s in the file, a connection or a value is a configuration error', (name) => {
    const cwd = tmp();
    const file = path.join(cwd, 'svc-sync.config.json');
    const refused = (json: string): string => {
      fs.writeFileSync(file, json);
      return errorOf(() => loadRaw({ cwd, env: {} })).message;
    };
    expect(refused(`{"${name}": "x"}`)).toBe(`config file ${file}: unknown setting "${name}" (svc-sync --help lists the settings)`);
    expect(refused(`{"SVC_API_KEY": {"env": "K", "${name}": "x"}}`)).toMatch(/: SVC_API_KEY must be a string, number, boolean or \{"env": "VARIABLE"\}$/);
    expect(refused(`{"SVC_API_KEY": {"${name}": {"env": "K"}}}`)).toMatch(/: SVC_API_KEY must be a string, number, boolean or \{"env": "VARIABLE"\}$/);
    expect(refused(`{"connections": {"north": {"SVC_SITE_ID": 1, "${name}": 1}}}`)).toBe(`config file ${file}: connections.north: unknown setting "${name}" (svc-sync --help lists the settings)`);
    expect(refused(`{"connections": {"north": {"SVC_SITE_ID": {"env": "${name}"}}}}`)).toMatch(/connections\.north: SVC_SITE_ID is taken from the environment variable .+, which is not set$/);
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
    expect(salesforceSettings({ SF_LOGIN_URL: 'http://l/', SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's' }).login).toEqual({
      method: 'client_credentials',
      loginUrl: 'http://l',
      clientId: 'c',
      clientSecret: 's',
      session: undefined,
    });
    expect(salesforceSettings({ SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's' }).login).toMatchObject({ method: 'client_credentials', loginUrl: 'https://login.salesforce.com' });
    expect(errorOf(() => salesforceSettings({ SF_CLIENT_ID: 'c' })).message).toMatch(/^SF_CLIENT_SECRET is not set/);
    expect(errorOf(() => salesforceSettings({ SF_LOGIN_URL: 'http://l', SF_CLIENT_ID: 'c', SF_USERNAME: 'u', SF_PRIVATE_KEY_FILE: '/no/such.key' })).message).toMatch(
      /SF_PRIVATE_KEY_FILE: "\/no\/such\.key" does not exist/,
    );
  });

  it('has the documented defaults', () => {
    const s = settingsOf(loadRaw({ cwd: tmp(), env: TOKEN_ENV }));
    expect(s.platform).toEqual({ apiUrl: 'http://127.0.0.1:1', apiKey: 'k-123456', concurrency: 4, timeoutMs: 30000, listIdsOnly: false, incremental: 'exact' });
    expect(s.salesforce.apiVersion).toBe('62.0');
    expect(s.salesforce.bulkThreshold).toBe(2000);
    expect(s.salesforce.maxApiUsage).toBe(0.9);
    expect(s.webhook.queue).toEqual({ kind: 'sqlite', path: '.svc-sync/queue.db' });
  });

  it('SVC_PROJECTION: off by default (absent), npc, npsp or auto; others refused in one line', () => {
    const sf = (v?: string): ReturnType<typeof salesforceSettings> => salesforceSettings(v === undefined ? TOKEN_ENV : { ...TOKEN_ENV, SVC_PROJECTION: v });
    expect(sf().projection).toBeUndefined();
    expect('projection' in sf()).toBe(false);
    expect('projection' in sf('off')).toBe(false);
    expect(sf('npc').projection).toBe('npc');
    expect(sf('AUTO').projection).toBe('auto');
    expect(sf(' NPSP ').projection).toBe('npsp');
    expect(errorOf(() => sf('nfp')).message).toMatch(/^SVC_PROJECTION "?nfp"?: must be off, npc, npsp or auto$/);
  });

  it('the gift settings: documented defaults, each checked in one line (an unknown zone is a usage error)', () => {
    const sf = (more: Record<string, string> = {}): ReturnType<typeof salesforceSettings> => salesforceSettings({ ...TOKEN_ENV, SVC_PROJECTION: 'npc', ...more });
    const npsp = {
      refundMode: 'auto',
      stageWon: 'Closed Won',
      stageRefunded: 'Closed Lost',
      stageCanceled: 'Closed Lost',
      fundraiserRole: 'Soft Credit',
      donationRecordType: 'Donation',
      orgRecordType: 'Organization',
    };
    expect(sf().gifts).toEqual({ timeZone: 'Europe/Amsterdam', anonymousLastName: 'Anonymous', matchEmailAndName: true, personRecordType: 'PersonAccount', npsp });
    expect(sf({ SVC_GIFT_TIMEZONE: 'America/New_York', SVC_ANONYMOUS_LASTNAME: ' Anoniem ', SVC_MATCH_EMAIL_NAME: 'false', SVC_NPC_PERSON_RECORD_TYPE: 'Donor_Person' }).gifts).toEqual({
      timeZone: 'America/New_York',
      anonymousLastName: 'Anoniem',
      matchEmailAndName: false,
      personRecordType: 'Donor_Person',
      npsp,
    });
    expect(errorOf(() => sf({ SVC_GIFT_TIMEZONE: 'Mars/Olympus' })).message).toMatch(/^SVC_GIFT_TIMEZONE "?Mars\/Olympus"?: not a time zone name, such as Europe\/Amsterdam$/);
    expect(errorOf(() => sf({ SVC_MATCH_EMAIL_NAME: 'maybe' })).message).toBe('SVC_MATCH_EMAIL_NAME: must be true or false');
    expect(errorOf(() => sf({ SVC_ANONYMOUS_LASTNAME: '  ' })).message).toBe('SVC_ANONYMOUS_LASTNAME: must be a name of 1 to 80 characters');
    expect(errorOf(() => sf({ SVC_NPC_PERSON_RECORD_TYPE: 'Person Account' })).message).toMatch(/^SVC_NPC_PERSON_RECORD_TYPE .*: must be a record type's DeveloperName/);
    // Checked with the projection off too: a wrong value is said before it would matter.
    expect(errorOf(() => salesforceSettings({ ...TOKEN_ENV, SVC_GIFT_TIMEZONE: 'Nowhere' })).message).toMatch(/^SVC_GIFT_TIMEZONE /);
    expect('gifts' in salesforceSettings(TOKEN_ENV)).toBe(false);
  });

  it('the SVC_NPSP_* settings (PROJECTION.md §2.2, §2.3, P2): read trimmed, each wrong one refused in one line', () => {
    const npsp = (more: Record<string, string>): unknown => salesforceSettings({ ...TOKEN_ENV, SVC_PROJECTION: 'npsp', ...more }).gifts?.npsp;
    expect(
      npsp({
        SVC_NPSP_REFUND_MODE: ' Payments ',
        SVC_NPSP_STAGE_WON: ' Posted ',
        SVC_NPSP_STAGE_REFUNDED: 'Refunded',
        SVC_NPSP_STAGE_CANCELED: 'Withdrawn',
        SVC_NPSP_ROLE_FUNDRAISER: 'Fundraiser',
        SVC_NPSP_DONATION_RECORD_TYPE: 'Gift',
        SVC_NPSP_ORG_RECORD_TYPE: 'Company',
      }),
    ).toEqual({
      refundMode: 'payments',
      stageWon: 'Posted',
      stageRefunded: 'Refunded',
      stageCanceled: 'Withdrawn',
      fundraiserRole: 'Fundraiser',
      donationRecordType: 'Gift',
      orgRecordType: 'Company',
    });
    expect(errorOf(() => npsp({ SVC_NPSP_REFUND_MODE: 'refunds' })).message).toBe('SVC_NPSP_REFUND_MODE "refunds": must be auto, stage or payments');
    expect(errorOf(() => npsp({ SVC_NPSP_STAGE_WON: ' ' })).message).toMatch(/^SVC_NPSP_STAGE_WON " ": must be a picklist value of 1 to 255 characters, such as Closed Won$/);
    expect(errorOf(() => npsp({ SVC_NPSP_ROLE_FUNDRAISER: 'Soft\nCredit' })).message).toMatch(/^SVC_NPSP_ROLE_FUNDRAISER "Soft\\nCredit": must be a picklist value/);
    expect(errorOf(() => npsp({ SVC_NPSP_STAGE_REFUNDED: 'Closed Won' })).message).toBe('SVC_NPSP_STAGE_REFUNDED: must differ from SVC_NPSP_STAGE_WON (both "Closed Won")');
    expect(errorOf(() => npsp({ SVC_NPSP_STAGE_WON: 'Done', SVC_NPSP_STAGE_CANCELED: 'Done' })).message).toBe('SVC_NPSP_STAGE_CANCELED: must differ from SVC_NPSP_STAGE_WON (both "Done")');
    expect(errorOf(() => npsp({ SVC_NPSP_DONATION_RECORD_TYPE: 'My Donation' })).message).toMatch(
      /^SVC_NPSP_DONATION_RECORD_TYPE "My Donation": must be a record type's DeveloperName, such as Donation$/,
    );
    expect(errorOf(() => npsp({ SVC_NPSP_ORG_RECORD_TYPE: '1Org' })).message).toMatch(/^SVC_NPSP_ORG_RECORD_TYPE "1Org": must be a record type's DeveloperName, such as Organization$/);
    for (const line of ['SVC_NPSP_REFUND_MODE', 'SVC_NPSP_STAGE_WON'].map((n) => errorOf(() => npsp({ [n]: 'x\ny' })).message)) expect(line.split('\n')).toHaveLength(1);
  });

  it('never puts a secret in an error message', () => {
    const secret = 'sk live with space';
    const e = errorOf(() => platformSettings({ SVC_API_URL: 'http://x', SVC_API_KEY: secret }));
    expect(e.message).toBe('SVC_API_KEY: contains white space; set it again without it');
    expect(e.message).not.toContain('live');
  });
});

describe('redact', () => {
  it('replaces every configured secret value by its name', () => {
    const raw = { SVC_API_KEY: 'k-123456', SF_ACCESS_TOKEN: 'tok-abcdef', SVC_API_URL: 'http://127.0.0.1:1' };
    expect(redact('key k-123456 and tok-abcdef at http://127.0.0.1:1', raw)).toBe('key <SVC_API_KEY> and <SF_ACCESS_TOKEN> at http://127.0.0.1:1');
  });
});

describe('the PostgreSQL queue settings', () => {
  it('reads SVC_QUEUE_URL, SVC_QUEUE_SCHEMA and SVC_QUEUE_LEASE_S', () => {
    const w = webhookSettings({ SVC_QUEUE_URL: 'postgresql://svc:p%40ss@db.internal:5432/svc?sslmode=require', SVC_QUEUE_SCHEMA: 'svc_queue', SVC_QUEUE_LEASE_S: '90' });
    expect(w.queue).toEqual({ kind: 'postgres', url: 'postgresql://svc:p%40ss@db.internal:5432/svc?sslmode=require', schema: 'svc_queue', leaseMs: 90_000 });
    expect(webhookSettings({})).toEqual({ queue: { kind: 'sqlite', path: '.svc-sync/queue.db' }, secret: undefined, settleMs: 30_000 });
    expect(webhookSettings({ SVC_QUEUE_URL: 'postgres://db/svc' }).queue).toEqual({ kind: 'postgres', url: 'postgres://db/svc', schema: 'svc_sync', leaseMs: 60_000 });
    // The flags of serve and queue win over their settings, and are named in an error.
    expect(webhookSettings({ SVC_QUEUE_URL: 'postgres://db/svc' }, { url: 'postgres://other/q' }).queue).toMatchObject({ kind: 'postgres', url: 'postgres://other/q' });
    expect(webhookSettings({ SVC_QUEUE_PATH: 'a.db' }, { path: 'b.db' }).queue).toEqual({ kind: 'sqlite', path: 'b.db' });
    expect(errorOf(() => webhookSettings({}, { url: 'mysql://u:hunter22@db/x' })).message).toBe('--queue-url "mysql://u:***@db/x": must be a postgres:// or postgresql:// URL');
  });

  it('refuses bad values in one line, without the password', () => {
    const url = errorOf(() => webhookSettings({ SVC_QUEUE_URL: 'mysql://u:hunter22@db/x' }));
    expect(url.message).toBe('SVC_QUEUE_URL "mysql://u:***@db/x": must be a postgres:// or postgresql:// URL');
    expect(errorOf(() => webhookSettings({ SVC_QUEUE_SCHEMA: 'Svc-Sync' })).message).toMatch(/^SVC_QUEUE_SCHEMA "Svc-Sync": must be a lowercase PostgreSQL identifier/);
    expect(errorOf(() => webhookSettings({ SVC_QUEUE_LEASE_S: '0' })).message).toMatch(/^SVC_QUEUE_LEASE_S: must be a number of seconds from 1 to 86400, written as a plain decimal .*got "0"$/);
  });
});

describe('number settings', () => {
  it('take plain decimals only: hexadecimal, exponents and blanks are refused, not read as 16, 1000 or 0', () => {
    for (const v of ['0x10', '1e3', '1E2', '', ' ', '-1', '+5', '.5', '5.', 'Infinity', 'NaN', '0b11']) {
      expect({ v, message: errorOf(() => settleSeconds(v, 'SVC_SETTLE_S')).message }).toEqual({
        v,
        message: expect.stringMatching(/^SVC_SETTLE_S: must be a number of seconds from 0 to 3600, written as a plain decimal/),
      });
    }
    expect(settleSeconds('30', 'SVC_SETTLE_S')).toBe(30_000);
    expect(settleSeconds('0.5', 'SVC_SETTLE_S')).toBe(500);
    expect(settleSeconds('0', 'SVC_SETTLE_S')).toBe(0);
    expect(errorOf(() => webhookSettings({ SVC_SETTLE_S: '0x10' })).message).toMatch(/got "0x10"$/);
    expect(errorOf(() => webhookSettings({ SVC_QUEUE_LEASE_S: '1e3' })).message).toMatch(/^SVC_QUEUE_LEASE_S: .*got "1e3"$/);
  });

  it('a positive duration below the millisecond is refused, never rounded to 0 (which would mean "no settle")', () => {
    expect(errorOf(() => settleSeconds('0.0004', 'SVC_SETTLE_S')).message).toBe('SVC_SETTLE_S: "0.0004" is below the resolution of 1 ms; give 0 or at least 0.001');
    expect(settleSeconds('0.001', 'SVC_SETTLE_S')).toBe(1);
  });

  it('SF_MAX_API_USAGE is a plain decimal share', () => {
    const base = { SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-abcdefgh' };
    expect(errorOf(() => salesforceSettings({ ...base, SF_MAX_API_USAGE: '9e-1' })).message).toMatch(/^SF_MAX_API_USAGE: must be a share from 0 to 1 written as a plain decimal/);
    expect(salesforceSettings({ ...base, SF_MAX_API_USAGE: '0.5' }).maxApiUsage).toBe(0.5);
  });

  it('redacts the password of the queue URL, however it is spelt', () => {
    const raw = { SVC_QUEUE_URL: 'postgres://svc:p%40ss-w0rd@db.internal/svc' };
    expect(redact('could not connect to postgres://svc:p%40ss-w0rd@db.internal/svc (p@ss-w0rd)', raw)).toBe('could not connect to postgres://<credentials>@db.internal/svc (***)');
    expect(maskQueueUrl('postgres://svc:p%40ss-w0rd@db.internal/svc?sslmode=require')).toBe('postgres://svc:***@db.internal/svc?sslmode=require');
  });

  it('hands the driver verify-full for the sslmodes it treats so (issue 47, row 15), and nothing else changed', () => {
    for (const mode of ['prefer', 'require', 'verify-ca']) {
      expect(pgConnectionUrl(`postgres://svc:p%40ss@db.internal:5432/svc?sslmode=${mode}&application_name=x`)).toBe(
        'postgres://svc:p%40ss@db.internal:5432/svc?sslmode=verify-full&application_name=x',
      );
    }
    for (const url of ['postgres://svc@db/svc', 'postgres://svc@db/svc?sslmode=disable', 'postgres://svc@db/svc?sslmode=verify-full', 'postgres://svc@db/svc?uselibpqcompat=true&sslmode=require']) {
      expect(pgConnectionUrl(url)).toBe(url);
    }
  });
});

describe('secrets at load time', () => {
  const base = { SVC_API_URL: 'http://127.0.0.1:1', SF_INSTANCE_URL: 'http://127.0.0.1:2' };
  it.each([
    ['SF_ACCESS_TOKEN', '00DTOKEN-7c6b\r\nX-Evil: 1', 'line break'],
    ['SF_ACCESS_TOKEN', '00DTOKEN 7c6b', 'white space'],
    ['SF_CLIENT_SECRET', 'secret\twith-tab', 'line break or another control character'],
    ['SF_PASSWORD', 'pass\u0000word', 'control character'],
  ])('%s with %j is refused, naming the setting and not the value', (name, value, what) => {
    const raw = { ...base, SVC_API_KEY: 'k-123456', SF_ACCESS_TOKEN: 'tok-abcdef', [name]: value };
    const e = errorOf(() => salesforceSettings(raw));
    expect(e.message).toContain(name);
    expect(e.message).toContain(what);
    for (const part of value.split(/[\s\u0000]+/)) expect(e.message).not.toContain(part);
  });

  it('the webhook secret and the API key are refused with a line break too', () => {
    expect(errorOf(() => settingsOf(loadRaw({ cwd: tmp(), env: { ...TOKEN_ENV, SVC_WEBHOOK_SECRET: 'hook-secret\n' + 'x' } }))).message).toMatch(/^SVC_WEBHOOK_SECRET: contains a line break/);
    expect(errorOf(() => platformSettings({ SVC_API_URL: 'http://x', SVC_API_KEY: 'key\r\nX-Evil: 1' })).message).toMatch(/^SVC_API_KEY: contains a line break/);
  });

  it('SVC_ADMIN_TOKEN: off when unset, at least 16 characters, a single word, masked like the other secrets', () => {
    expect(webhookSettings({}).adminToken).toBeUndefined();
    const token = 'adm-0123456789abcdef';
    expect(webhookSettings({ SVC_ADMIN_TOKEN: token }).adminToken).toBe(token);
    const short = errorOf(() => webhookSettings({ SVC_ADMIN_TOKEN: 'adm-12345' }));
    expect(short.message).toBe('SVC_ADMIN_TOKEN: must be at least 16 characters (e.g. openssl rand -hex 16), got 9');
    expect(errorOf(() => webhookSettings({ SVC_ADMIN_TOKEN: 'adm-0123 456789abcdef' })).message).toMatch(/^SVC_ADMIN_TOKEN: contains white space/);
    expect(redact(`token ${token} refused`, { SVC_ADMIN_TOKEN: token })).toBe('token <SVC_ADMIN_TOKEN> refused');
  });

  it('resolves the one login the SF_* settings make, whole, or names what it lacks', () => {
    const token = { SF_INSTANCE_URL: 'https://org.my.salesforce.com', SF_ACCESS_TOKEN: 'tok-abcdef' };
    expect(salesforceSettings(token).login).toEqual({ method: 'access_token', session: { instanceUrl: 'https://org.my.salesforce.com', accessToken: 'tok-abcdef' } });
    // A given session is used first; OAuth settings beside it renew it (at login.salesforce.com by default).
    expect(salesforceSettings({ ...token, SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's' }).login).toMatchObject({
      method: 'client_credentials',
      loginUrl: 'https://login.salesforce.com',
      session: { accessToken: 'tok-abcdef' },
    });
    expect(errorOf(() => salesforceSettings({ SF_CLIENT_ID: 'c', SF_CLIENT_SECRET: 's', SF_USERNAME: 'u@x' })).message).toBe(
      'SF_USERNAME: username-password OAuth needs SF_USERNAME, SF_PASSWORD, SF_CLIENT_ID and SF_CLIENT_SECRET',
    );
    expect(errorOf(() => salesforceSettings({ ...token, SF_PRIVATE_KEY_FILE: 'package.json' })).message).toBe('SF_PRIVATE_KEY_FILE: JWT bearer needs SF_CLIENT_ID and SF_USERNAME next to it');
    expect(salesforceSettings({ SF_CLIENT_ID: 'c', SF_USERNAME: 'u@x', SF_PRIVATE_KEY_FILE: 'package.json' }).login).toMatchObject({
      method: 'jwt',
      clientId: 'c',
      username: 'u@x',
      privateKeyFile: 'package.json',
    });
  });

  it('a password may hold spaces', () => {
    const s = salesforceSettings({ SF_CLIENT_ID: 'client-id', SF_CLIENT_SECRET: 'client-secret', SF_USERNAME: 'u@x', SF_PASSWORD: 'correct horse battery', SF_LOGIN_URL: 'https://login.example.com' });
    expect(s.login).toMatchObject({ method: 'password', password: 'correct horse battery' });
  });

  it('Salesforce URLs with a user name or password are refused without echoing them', () => {
    const e = errorOf(() => salesforceSettings({ SF_CLIENT_ID: 'client-id', SF_CLIENT_SECRET: 'client-secret', SF_LOGIN_URL: 'https://admin:hunter2hunter2@login.example.com' }));
    expect(e.message).toMatch(/^SF_LOGIN_URL: must not hold a user name or password/);
    expect(e.message).not.toContain('hunter2');
    expect(e.message).not.toContain('admin');
  });

  it('a config file saved with a UTF-8 byte order mark is read', () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), `\uFEFF${JSON.stringify(TOKEN_ENV)}`);
    expect(settingsOf(loadRaw({ cwd, env: {} })).platform.apiUrl).toBe('http://127.0.0.1:1');
  });

  it('a config key named after a prototype member is an unknown setting, quoted and bounded', () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), '{"constructor": "x"}');
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/unknown setting "constructor"/);
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ [`A\nforged line ${'x'.repeat(5000)}`]: 'x' }));
    const message = errorOf(() => loadRaw({ cwd, env: {} })).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('\\nforged line');
    expect(message.length).toBeLessThan(700);
  });
});

describe('redact: whole secrets, any form, tables kept aligned', () => {
  const raw = { SVC_API_KEY: 'wrong', SF_ACCESS_TOKEN: '00DTOKEN-7c6b\r\nX-Evil: 1', SF_CLIENT_SECRET: 'cs-0123456789', SF_LOGIN_URL: 'https://admin:pa%24%24word@login.example.com' };

  it('masks a multi-line secret whole, line by line, and JSON-escaped', () => {
    expect(redact('Bearer 00DTOKEN-7c6b\r\nX-Evil: 1 refused', raw)).toBe('Bearer <SF_ACCESS_TOKEN> refused');
    // Whatever cut the text to its first line: the fragment alone is masked too.
    expect(redact('Bearer 00DTOKEN-7c6b\r', raw)).toBe('Bearer <SF_ACCESS_TOKEN>\r');
    expect(redact(JSON.stringify({ message: 'Bearer 00DTOKEN-7c6b\r\nX-Evil: 1' }), raw)).toBe('{"message":"Bearer <SF_ACCESS_TOKEN>"}');
    expect(redact('second line: X-Evil: 1', raw)).toBe('second line: <SF_ACCESS_TOKEN>');
  });

  it('ignores values shorter than 8 characters and matches whole occurrences only', () => {
    expect(redact('wrong_type: the key was wrong', raw)).toBe('wrong_type: the key was wrong');
    expect(redact('secret cs-0123456789 but not cs-0123456789ab', raw)).toBe('secret <SF_CLIENT_SECRET> but not cs-0123456789ab');
    expect(redact('url-encoded cs-0123456789&x=1', raw)).toBe('url-encoded <SF_CLIENT_SECRET>&x=1');
  });

  it('masks the user name and password of any URL', () => {
    expect(redact('cannot reach https://admin:pa%24%24word@login.example.com/services/oauth2/token', raw)).toBe('cannot reach https://<credentials>@login.example.com/services/oauth2/token');
    expect(redact('password pa$$word was refused', { SF_LOGIN_URL: 'https://admin:pa%24%24word1@login.example.com' })).toBe('password pa$$word was refused');
    expect(redact('password pa$$word1 was refused', { SF_LOGIN_URL: 'https://admin:pa%24%24word1@login.example.com' })).toBe('password <SF_LOGIN_URL credentials> was refused');
  });

  it('a secret inside a table row keeps the columns aligned', () => {
    const secret = 'sk_live_0123456789abcdef';
    const row = `│ Svc_Donation__c │ ${secret} │ wrong_type │`;
    const out = redact(`┌─┐\n${row}\n└─┘`, { SVC_API_KEY: secret, SF_CLIENT_SECRET: 'short-12' });
    const masked = out.split('\n')[1] ?? '';
    expect(masked).not.toContain(secret);
    expect(masked).toContain('<SVC_API_KEY>');
    expect(masked.length).toBe(row.length);
    expect(redact(`│ short-12 │`, { SF_CLIENT_SECRET: 'short-12' })).toBe('│ ******** │');
  });
});

describe('secrets of any size and shape (issue 28 rows 6 and 13)', () => {
  /** A 20,000-character secret: as long as a pasted file, longer than any real token (its URL-encoded form twice as long). */
  const huge = 'Ab3-ä'.repeat(4_000);

  it('masking takes no pattern from secret text: a secret of 20,000 characters is masked, not an error quoting it', () => {
    const text = `refused ${huge} and ${JSON.stringify(huge)} (tok-abcdef)`;
    const masked = redact(text, { SVC_ADMIN_TOKEN: huge, SF_ACCESS_TOKEN: 'tok-abcdef', SVC_API_KEY: 'k-12345678' });
    expect(masked).toBe('refused <SVC_ADMIN_TOKEN> and "<SVC_ADMIN_TOKEN>" (<SF_ACCESS_TOKEN>)');
    // Characters a pattern would read as syntax are plain text: masked whole, nothing else touched.
    const syntax = 'a.b*c+d?(e)[f]{g}|h^$\\/';
    expect(redact(`x ${syntax} y a-b-c-d-e-f-g-h`, { SVC_WEBHOOK_SECRET: syntax })).toBe('x <SVC_WEBHOOK_SECRET> y a-b-c-d-e-f-g-h');
  });

  it('a setting longer than 4,096 characters is refused at load, naming the setting and not the value', () => {
    for (const name of ['SVC_ADMIN_TOKEN', 'SVC_API_KEY', 'SF_ACCESS_TOKEN', 'SVC_WEBHOOK_SECRET', 'SF_PRIVATE_KEY_FILE', 'SVC_API_URL']) {
      const e = errorOf(() => loadRaw({ cwd: tmp(), env: { ...TOKEN_ENV, [name]: huge } }));
      expect(e.message).toBe(`${name}: 20000 characters, more than any real value (at most 4096); set it again (a whole file pasted?)`);
    }
    // From the config file just the same.
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ SF_CLIENT_SECRET: huge }));
    expect(errorOf(() => loadRaw({ cwd, env: {} })).message).toMatch(/^SF_CLIENT_SECRET: 20000 characters/);
    // 4,096 is still taken (a real token is far shorter).
    expect(loadRaw({ cwd: tmp(), env: { SVC_API_KEY: 'k'.repeat(4_096) } }).SVC_API_KEY).toHaveLength(4_096);
  });

  it.each([
    ['white space only', '   \t  ', /^SVC_ADMIN_TOKEN: is only white space/],
    ['8 emoji (16 UTF-16 units)', '🔑🔑🔑🔑🔑🔑🔑🔑', /^SVC_ADMIN_TOKEN: contains a character that is not visible ASCII \(U\+1F511\)/],
    ['a zero-width space', '0123456789abcdef\u200b0123', /^SVC_ADMIN_TOKEN: contains an invisible character \(U\+200B/],
    ['a soft hyphen', '0123456789ab\u00adcdef0123', /^SVC_ADMIN_TOKEN: contains an invisible character \(U\+00AD/],
    ['letters beyond ASCII', 'pässwörd-0123456789abc', /^SVC_ADMIN_TOKEN: contains a character that is not visible ASCII \(U\+00E4\)/],
    ['15 characters', '0123456789abcde', /^SVC_ADMIN_TOKEN: must be at least 16 characters/],
  ])('SVC_ADMIN_TOKEN of %s is refused at start, never a page silently off', (_what, value, message) => {
    const e = errorOf(() => webhookSettings(loadRaw({ cwd: tmp(), env: { SVC_ADMIN_TOKEN: value } })));
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain(value);
  });

  it('what `openssl rand -hex 16` gives is taken, and an empty token leaves the page off', () => {
    expect(webhookSettings(loadRaw({ cwd: tmp(), env: { SVC_ADMIN_TOKEN: '3f9c1e0b7a2d4c6e8f1a3b5c7d9e0f21' } })).adminToken).toBe('3f9c1e0b7a2d4c6e8f1a3b5c7d9e0f21');
    expect(webhookSettings(loadRaw({ cwd: tmp(), env: { SVC_ADMIN_TOKEN: '' } })).adminToken).toBeUndefined();
  });

  it('the other tokens and keys are visible ASCII too; a password may hold letters of any script, not invisible ones', () => {
    expect(errorOf(() => webhookSettings({ SVC_WEBHOOK_SECRET: 'hook\u200bsecret' })).message).toMatch(/^SVC_WEBHOOK_SECRET: contains an invisible character \(U\+200B/);
    expect(errorOf(() => platformSettings({ SVC_API_URL: 'http://x', SVC_API_KEY: 'kéy-0123456789' })).message).toMatch(/^SVC_API_KEY: contains a character that is not visible ASCII/);
    expect(errorOf(() => loadRaw({ cwd: tmp(), env: { SVC_API_KEY: '  ' } })).message).toMatch(/^SVC_API_KEY: is only white space/);
    const login = { SF_CLIENT_ID: 'client-id', SF_CLIENT_SECRET: 'client-secret', SF_USERNAME: 'u@example.com' };
    expect(salesforceSettings({ ...login, SF_PASSWORD: 'Grüße aus Köln 42' }).login).toMatchObject({ method: 'password', password: 'Grüße aus Köln 42' });
    expect(errorOf(() => salesforceSettings({ ...login, SF_PASSWORD: 'pass\u200bword' })).message).toMatch(/^SF_PASSWORD: contains an invisible character/);
  });
});
