/**
 * Settings from flags, then environment variables, then an optional JSON config file
 * (svc-sync.config.json in the working directory, or --config PATH) whose keys are the same
 * names as the environment variables. Secrets are read but never echoed in any message.
 */
import fs from 'node:fs';
import { queueUrlPasswords } from './queueUrl.js';
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';
import { secretMasker, type Secret } from './redact.js';
import { SETTINGS, type SettingName, type SettingRow } from './settingsTable.js';
import {
  DEFAULT_GIFT_SETTINGS,
  type DeploymentPlace,
  type GiftSettings,
  type IncrementalMode,
  type PlatformSettings,
  type ProjectionMode,
  type SalesforceLogin,
  type SalesforceSettings,
  type Settings,
  type SyncLogSettings,
} from './settings.js';
import { bool, int, secretValue, url, urlWithoutCredentials, type RawSettings } from './values.js';
import { webhookSettings } from './webhookSettings.js';
import { npspSettings } from './npspSettings.js';
import { DEFAULT_CONFIG_FILE, readConfigFile } from './configFile.js';

export type { RawSettings } from './values.js';

const SETTING_NAMES: readonly SettingName[] = SETTINGS.map((r) => r.name);

const rows: readonly SettingRow[] = SETTINGS;
const namesWhere = (test: (r: SettingRow) => boolean | undefined): ReadonlySet<SettingName> => new Set(rows.filter(test).map((r) => r.name as SettingName));

const SECRET_SETTINGS: ReadonlySet<SettingName> = namesWhere((r) => r.secret);

/** Settings holding a URL: their user name and password, if any, are masked in every message. */
const URL_SETTINGS: ReadonlySet<SettingName> = namesWhere((r) => r.url);

const DEFAULT_API_VERSION = '62.0';
const DEFAULT_LOGIN_URL = 'https://login.salesforce.com';

/**
 * The longest value a setting may hold. Secrets: tokens, keys and passwords of real systems are
 * far shorter (a Salesforce session id is 112 characters; the JWT flow's key is a file, named by
 * its path); longer is a whole file pasted, and would be masked in every message. Paths: Linux's
 * PATH_MAX. URLs: more than servers take in a request line.
 */
const MAX_SETTING_LENGTH = 4_096;

/**
 * A value that is set but cannot be the one meant, refused before anything reads it: its length,
 * or a secret of white space only (an empty one is unset: the status page off, say; "   " is a
 * token lost on the way, never a reason to turn the page off without a word).
 */
function checkSize(name: SettingName, v: string): void {
  if (v.length > MAX_SETTING_LENGTH) {
    throw new ConfigError(`${name}: ${v.length} characters, more than any real value (at most ${MAX_SETTING_LENGTH}); set it again (a whole file pasted?)`);
  }
  if (SECRET_SETTINGS.has(name) && v !== '' && v.trim() === '') throw new ConfigError(`${name}: is only white space; set the value itself, or leave it empty to leave it unset`);
}

/**
 * The first set value of each setting, in the order given (flags, a connection's own keys, the
 * environment, the config file's top level). Blank values count as unset.
 */
export function mergeSources(...layers: ReadonlyArray<RawSettings | NodeJS.ProcessEnv>): RawSettings {
  const out: RawSettings = {};
  for (const name of SETTING_NAMES) {
    const given = layers.map((l) => l[name]);
    for (const g of given) if (g !== undefined) checkSize(name, g);
    const v = given.find((x) => x !== undefined && x.trim() !== '');
    if (v !== undefined) out[name] = v.trim();
  }
  return out;
}

/** The command-line flag of a setting, for those that have one (secrets have none: a command line shows in `ps`). */
const FLAG_OF: Partial<Record<SettingName, string>> = Object.fromEntries(rows.flatMap((r) => (r.flag ? [[r.name, r.flag.split(' ')[0]]] : [])));

const WHY_REQUIRED = { SVC_API_URL: 'the platform base URL', SVC_API_KEY: 'the platform API key' } as const;

function required(raw: RawSettings, name: keyof typeof WHY_REQUIRED): string {
  const v = raw[name];
  const flag = FLAG_OF[name];
  if (v === undefined) throw new ConfigError(`${name} is not set (${WHY_REQUIRED[name]}): ${flag ? `give ${flag}, or ` : ''}set it in the environment or ${DEFAULT_CONFIG_FILE}`);
  return v;
}

/** SVC_INCREMENTAL: what an incremental run reads of a collection whose lists ignore updated_after. */
function incrementalSetting(raw: RawSettings): IncrementalMode {
  const v = raw.SVC_INCREMENTAL ?? 'exact';
  if (v === 'exact' || v === 'new-records') return v;
  throw new ConfigError(
    `SVC_INCREMENTAL ${echo(v, 40)}: must be exact (read whole lists where updated_after is ignored) or new-records (read what created_after gives; changes come from webhooks and audit)`,
  );
}

/** SVC_SITE_ID: the platform site the mirror belongs to (a positive whole number), when given. */
function siteIdSetting(raw: RawSettings): { siteId?: number } {
  const v = raw.SVC_SITE_ID;
  if (v === undefined) return {};
  if (!/^[1-9]\d{0,15}$/.test(v)) throw new ConfigError(`SVC_SITE_ID: must be a site's id, a whole number from 1, got ${echo(v, 40)}`);
  return { siteId: Number(v) };
}

export function platformSettings(raw: RawSettings): PlatformSettings {
  const apiUrl = url(raw, 'SVC_API_URL') ?? required(raw, 'SVC_API_URL');
  const apiKey = secretValue(raw, 'SVC_API_KEY') ?? required(raw, 'SVC_API_KEY');
  return {
    apiUrl,
    apiKey,
    concurrency: int(raw, 'SVC_CONCURRENCY', 4, 1, 16),
    timeoutMs: int(raw, 'SVC_TIMEOUT_MS', 30_000, 1_000, 600_000),
    listIdsOnly: bool(raw, 'SVC_LIST_IDS_ONLY'),
    incremental: incrementalSetting(raw),
    ...siteIdSetting(raw),
  };
}

/** SF_API_VERSION alone: `schema --project` needs it and no connection. */
export function apiVersionSetting(raw: RawSettings): string {
  const apiVersion = raw.SF_API_VERSION ?? DEFAULT_API_VERSION;
  if (!/^\d{2,3}\.0$/.test(apiVersion)) throw new ConfigError(`SF_API_VERSION: must look like ${DEFAULT_API_VERSION}`);
  return apiVersion;
}

/** What is missing for one complete way to authenticate (a token, client credentials, a password or JWT), if anything. */
function loginGap(raw: RawSettings): string | undefined {
  const has = (name: SettingName): boolean => raw[name] !== undefined && raw[name] !== '';
  if (has('SF_INSTANCE_URL') && has('SF_ACCESS_TOKEN')) return undefined;
  if (has('SF_CLIENT_ID') && (has('SF_CLIENT_SECRET') || (has('SF_USERNAME') && has('SF_PRIVATE_KEY_FILE')))) return undefined;
  if (has('SF_ACCESS_TOKEN')) return 'SF_INSTANCE_URL is not set (needed with SF_ACCESS_TOKEN)';
  if (has('SF_INSTANCE_URL') && !has('SF_LOGIN_URL') && !has('SF_CLIENT_ID')) return 'SF_ACCESS_TOKEN is not set (needed with SF_INSTANCE_URL)';
  if (has('SF_LOGIN_URL') && !has('SF_CLIENT_ID')) return 'SF_CLIENT_ID is not set (needed with SF_LOGIN_URL)';
  if (has('SF_CLIENT_ID')) return 'SF_CLIENT_SECRET is not set (or SF_USERNAME with SF_PRIVATE_KEY_FILE for JWT)';
  return 'Salesforce connection is not configured: set SF_INSTANCE_URL + SF_ACCESS_TOKEN, or SF_CLIENT_ID + SF_CLIENT_SECRET (and SF_LOGIN_URL for a My Domain or sandbox)';
}

/**
 * Every missing setting a command needs, in one message, before any is validated: a newcomer with
 * nothing set learns the whole list at once, not one name per attempt.
 */
export function requireSettings(raw: RawSettings, sides: { platform: boolean; salesforce: boolean }): void {
  const missing: string[] = [];
  if (sides.platform) {
    for (const name of ['SVC_API_URL', 'SVC_API_KEY'] as const) {
      if (raw[name] === undefined) missing.push(`${name} (${WHY_REQUIRED[name]}${FLAG_OF[name] ? `, or ${FLAG_OF[name]}` : ''})`);
    }
  }
  const gap = sides.salesforce ? loginGap(raw) : undefined;
  // In a list, the login is one item among the others.
  if (gap !== undefined) missing.push(gap.replace(/^Salesforce connection is not configured: set /, 'a Salesforce login: '));
  if (missing.length > 1) throw new ConfigError(`${missing.length} settings are missing: ${missing.join('; ')}. Set them in the environment or ${DEFAULT_CONFIG_FILE}`);
}

/** One complete way to authenticate is needed: a token, client credentials, a password or JWT. */
export function salesforceSettings(raw: RawSettings): SalesforceSettings {
  const apiVersion = apiVersionSetting(raw);
  const usage = raw.SF_MAX_API_USAGE === undefined ? 0.9 : Number(raw.SF_MAX_API_USAGE);
  if ((raw.SF_MAX_API_USAGE !== undefined && !/^\d+(\.\d+)?$/.test(raw.SF_MAX_API_USAGE)) || !Number.isFinite(usage) || usage <= 0 || usage > 1) {
    throw new ConfigError('SF_MAX_API_USAGE: must be a share from 0 to 1 written as a plain decimal, such as 0.9');
  }
  const gap = loginGap(raw);
  if (gap !== undefined) throw new ConfigError(gap);
  return {
    login: loginOf(raw),
    apiVersion,
    bulkThreshold: int(raw, 'SF_BULK_THRESHOLD', 2000, 1, 10_000_000),
    maxApiUsage: usage,
    timeoutMs: int(raw, 'SF_TIMEOUT_MS', 120_000, 1_000, 1_800_000),
    log: syncLogSettings(raw),
    ...projectionSetting(raw),
    ...siteKeysSetting(raw),
  };
}

/** SVC_SITE_KEYS: keys carry the site (SITES.md), whose id is then required: it is the prefix. */
function siteKeysSetting(raw: RawSettings): { siteKeys?: number } {
  if (!bool(raw, 'SVC_SITE_KEYS')) return {};
  const { siteId } = siteIdSetting(raw);
  if (siteId === undefined) throw new ConfigError('SVC_SITE_KEYS is true but SVC_SITE_ID is not set: the site id is the prefix of every key (6:Donation_123); set SVC_SITE_ID');
  return { siteKeys: siteId };
}

/** SVC_PROJECTION: off (absent), npc, npsp or auto. */
function projectionSetting(raw: RawSettings): { projection?: ProjectionMode; gifts?: GiftSettings } {
  const v = (raw.SVC_PROJECTION ?? 'off').trim().toLowerCase();
  // The gift settings are checked even with the projection off: a wrong one is said before it matters.
  const gifts = giftSettings(raw);
  if (v === 'off' || v === '') return {};
  if (v === 'npc' || v === 'npsp' || v === 'auto') return { projection: v, gifts };
  throw new ConfigError(`SVC_PROJECTION ${echo(raw.SVC_PROJECTION ?? '', 40)}: must be off, npc, npsp or auto`);
}

/** A time zone the runtime knows by its IANA name ("Europe/Amsterdam"). */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** SVC_GIFT_TIMEZONE, SVC_ANONYMOUS_LASTNAME, SVC_MATCH_EMAIL_NAME, SVC_NPC_PERSON_RECORD_TYPE and the SVC_NPSP_* names. */
function giftSettings(raw: RawSettings): GiftSettings {
  const d = DEFAULT_GIFT_SETTINGS;
  const zone = (raw.SVC_GIFT_TIMEZONE ?? d.timeZone).trim();
  if (zone === '' || !knownZone(zone)) throw new ConfigError(`SVC_GIFT_TIMEZONE ${echo(raw.SVC_GIFT_TIMEZONE ?? '', 40)}: not a time zone name, such as Europe/Amsterdam`);
  const lastName = (raw.SVC_ANONYMOUS_LASTNAME ?? d.anonymousLastName).trim().replace(/\s+/g, ' ');
  if (lastName === '' || lastName.length > 80) throw new ConfigError('SVC_ANONYMOUS_LASTNAME: must be a name of 1 to 80 characters');
  const recordType = (raw.SVC_NPC_PERSON_RECORD_TYPE ?? d.personRecordType).trim();
  if (!/^[A-Za-z][A-Za-z0-9_]{0,79}$/.test(recordType))
    throw new ConfigError(`SVC_NPC_PERSON_RECORD_TYPE ${echo(raw.SVC_NPC_PERSON_RECORD_TYPE ?? '', 40)}: must be a record type's DeveloperName, such as PersonAccount`);
  const match = raw.SVC_MATCH_EMAIL_NAME === undefined ? d.matchEmailAndName : bool(raw, 'SVC_MATCH_EMAIL_NAME');
  return { timeZone: zone, anonymousLastName: lastName, matchEmailAndName: match, personRecordType: recordType, npsp: npspSettings(raw) };
}

/** SVC_SALESFORCE_LOG (on or off) and the two retention periods, in whole days. */
function syncLogSettings(raw: RawSettings): SyncLogSettings {
  const v = (raw.SVC_SALESFORCE_LOG ?? 'on').toLowerCase();
  if (v !== 'on' && v !== 'off') throw new ConfigError(`SVC_SALESFORCE_LOG ${echo(raw.SVC_SALESFORCE_LOG ?? '', 40)}: must be on or off`);
  return { enabled: v === 'on', errorRetentionDays: int(raw, 'SVC_ERROR_RETENTION_DAYS', 30, 1, 36_500), runRetentionDays: int(raw, 'SVC_RUN_RETENTION_DAYS', 90, 1, 36_500) };
}

/**
 * Which of the four logins the SF_* settings make, checked whole: a key file means JWT bearer, a
 * username or password the username-password flow, a client id or secret client credentials, and
 * an instance URL with an access token alone a given session. OAuth logs in at SF_LOGIN_URL, or at
 * login.salesforce.com when it is not set.
 */
function loginOf(raw: RawSettings): SalesforceLogin {
  const instanceUrl = urlWithoutCredentials(raw, 'SF_INSTANCE_URL');
  const accessToken = secretValue(raw, 'SF_ACCESS_TOKEN');
  const session = instanceUrl && accessToken ? { instanceUrl, accessToken } : undefined;
  const loginUrl = urlWithoutCredentials(raw, 'SF_LOGIN_URL') ?? DEFAULT_LOGIN_URL;
  const clientId = secretValue(raw, 'SF_CLIENT_ID');
  const clientSecret = secretValue(raw, 'SF_CLIENT_SECRET');
  const username = raw.SF_USERNAME || undefined;
  const password = secretValue(raw, 'SF_PASSWORD', true);
  const privateKeyFile = raw.SF_PRIVATE_KEY_FILE || undefined;
  if (privateKeyFile) {
    if (!clientId || !username) throw new ConfigError('SF_PRIVATE_KEY_FILE: JWT bearer needs SF_CLIENT_ID and SF_USERNAME next to it');
    if (!fs.existsSync(privateKeyFile)) throw new ConfigError(`SF_PRIVATE_KEY_FILE: ${echo(privateKeyFile)} does not exist`);
    return { method: 'jwt', loginUrl, clientId, username, privateKeyFile, session };
  }
  if (username || password) {
    if (!username || !password || !clientId || !clientSecret) throw new ConfigError('SF_USERNAME: username-password OAuth needs SF_USERNAME, SF_PASSWORD, SF_CLIENT_ID and SF_CLIENT_SECRET');
    return { method: 'password', loginUrl, clientId, clientSecret, username, password, session };
  }
  if (clientId || clientSecret) {
    if (!clientId || !clientSecret) throw new ConfigError('SF_CLIENT_SECRET: OAuth client credentials need SF_CLIENT_ID and SF_CLIENT_SECRET');
    return { method: 'client_credentials', loginUrl, clientId, clientSecret, session };
  }
  if (session) return { method: 'access_token', session };
  // loginGap has named what is missing before this point.
  throw new ConfigError('Salesforce connection is not configured: set SF_INSTANCE_URL + SF_ACCESS_TOKEN, or SF_CLIENT_ID + SF_CLIENT_SECRET');
}

export interface LoadOptions {
  flags?: RawSettings | undefined;
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  cwd?: string | undefined;
}

export function loadRaw(opts: LoadOptions = {}): RawSettings {
  const env = opts.env ?? process.env;
  return mergeSources(opts.flags ?? {}, env, readConfigFile(opts.configPath, opts.cwd, env).top);
}

/** Where a setting's value came from; `alsoFile`: the config file set it too (its top level or the connection), and lost. */
export interface SettingSource {
  from: 'flag' | 'connection' | 'environment' | 'file';
  alsoFile: boolean;
}

/** Which layer each set setting came from: flags > the connection's own > environment > file (cli/where.ts says which won). */
export function sourcesOf(flags: RawSettings, connection: RawSettings, env: NodeJS.ProcessEnv, file: RawSettings): Partial<Record<SettingName, SettingSource>> {
  const set = (v: string | undefined): boolean => v !== undefined && v.trim() !== '';
  const out: Partial<Record<SettingName, SettingSource>> = {};
  for (const name of SETTING_NAMES) {
    const from = set(flags[name]) ? 'flag' : set(connection[name]) ? 'connection' : set(env[name]) ? 'environment' : set(file[name]) ? 'file' : undefined;
    if (from !== undefined) out[name] = { from, alsoFile: from !== 'file' && from !== 'connection' && (set(file[name]) || set(connection[name])) };
  }
  return out;
}

/** Every side's settings, validated: the first problem is a ConfigError naming the setting. */
export function settingsOf(raw: RawSettings, place?: DeploymentPlace): Settings {
  requireSettings(raw, { platform: true, salesforce: true });
  const salesforce = salesforceSettings(raw);
  return { platform: platformSettings(raw), salesforce: place === undefined ? salesforce : { ...salesforce, place }, webhook: webhookSettings(raw) };
}

/** A URL part as sent (percent-decoded), or as written when it is not valid percent-encoding. */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The secrets to mask: the secret settings, and the user name and password of every URL setting. */
function secretsOf(raw: RawSettings): Secret[] {
  const out: Secret[] = [];
  for (const name of SECRET_SETTINGS) {
    const v = raw[name];
    if (v !== undefined) out.push({ name, value: v });
  }
  for (const name of URL_SETTINGS) {
    const v = raw[name];
    if (v === undefined || !URL.canParse(v)) continue;
    const u = new URL(v);
    // user:password as a Basic header carries it (the masker masks its base64 too).
    if (u.password !== '') out.push({ name: `${name} credentials`, value: `${safeDecode(u.username)}:${safeDecode(u.password)}` });
    for (const part of [u.username, u.password]) {
      if (part === '') continue;
      out.push({ name: `${name} credentials`, value: part });
      try {
        out.push({ name: `${name} credentials`, value: decodeURIComponent(part) });
      } catch {
        // Not percent-encoded: the raw form above is the one that can appear.
      }
    }
  }
  return out;
}

/** One masker per settings object: built on first use, reused for every message after. */
const maskers = new WeakMap<RawSettings, (text: string) => string>();

/** Replaces every configured secret value in a text, so no message can leak one. */
export function redact(text: string, raw: RawSettings): string {
  let mask = maskers.get(raw);
  if (mask === undefined) maskers.set(raw, (mask = secretMasker(secretsOf(raw))));
  // The queue URL is shown (masked); its password never is.
  let out = text;
  for (const p of queueUrlPasswords(raw.SVC_QUEUE_URL)) if (p.length >= 1) out = out.split(`:${p}@`).join(':***@');
  for (const p of queueUrlPasswords(raw.SVC_QUEUE_URL)) if (p.length >= 4) out = out.split(p).join('***');
  return mask(out);
}
