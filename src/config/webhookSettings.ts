/**
 * The webhook side's settings: the secret and the status page's token, the settle window, and
 * where the queue lives (a SQLite file, or PostgreSQL with its schema and lease), resolved once
 * into the exact shape the queue adapters take.
 */
import { ConfigError } from '../model/errors.js';
import { isPostgresUrl, maskQueueUrl } from './queueUrl.js';
import type { QueueLocation, WebhookSettings } from './settings.js';
import { plainSeconds, secretValue, type RawSettings } from './values.js';

export const DEFAULT_QUEUE_PATH = '.svc-sync/queue.db';
export const DEFAULT_QUEUE_SCHEMA = 'svc_sync';
/** How long a receiver's claim on a PostgreSQL batch lasts without renewal (SVC_QUEUE_LEASE_S). */
export const DEFAULT_LEASE_MS = 60_000;
const MIN_ADMIN_TOKEN_LENGTH = 16;
/** The shortest SVC_WEBHOOK_SECRET `serve` takes: it alone authenticates the platform's POSTs. */
const MIN_WEBHOOK_SECRET_LENGTH = 16;

/** The webhook worker's default settle window: long enough for a trickle, short enough to feel live. */
export const DEFAULT_SETTLE_S = 30;
const MAX_SETTLE_S = 3600;

/** Seconds (fractions allowed) from 0 to MAX_SETTLE_S, as milliseconds; `name` says where it came from. */
export function settleSeconds(value: string, name: string): number {
  return plainSeconds(value, name, 0, MAX_SETTLE_S);
}

export function webhookSettings(raw: RawSettings, flags: QueueFlags = {}): WebhookSettings {
  const settleMs = raw.SVC_SETTLE_S === undefined ? DEFAULT_SETTLE_S * 1000 : settleSeconds(raw.SVC_SETTLE_S, 'SVC_SETTLE_S');
  const s: WebhookSettings = { secret: secretValue(raw, 'SVC_WEBHOOK_SECRET'), queue: queueLocation(raw, flags), settleMs };
  const adminToken = secretValue(raw, 'SVC_ADMIN_TOKEN');
  if (adminToken !== undefined) {
    // The page can make every failed event due again: a guessable token would be a door left open.
    if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH)
      throw new ConfigError(`SVC_ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 16), got ${adminToken.length}`);
    s.adminToken = adminToken;
  }
  return s;
}

/**
 * `serve` refuses a webhook secret short enough to guess (exit 2), naming the connection when
 * there are several; the line says how long it is, never any of it. Unset stays allowed: no
 * secret required. Only `serve` checks: the other commands never receive a webhook.
 */
export function checkWebhookSecret(raw: RawSettings, connection: string | undefined): void {
  const secret = secretValue(raw, 'SVC_WEBHOOK_SECRET');
  if (secret === undefined || secret.length >= MIN_WEBHOOK_SECRET_LENGTH) return;
  const who = connection === undefined ? '' : `connection ${connection}: `;
  throw new ConfigError(`${who}SVC_WEBHOOK_SECRET: ${secret.length} characters; at least ${MIN_WEBHOOK_SECRET_LENGTH} are needed (generate one: openssl rand -hex 24)`);
}

/** A loopback address: only this machine reaches a receiver listening there. */
function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * `serve` without a webhook secret takes any POST as the platform's: on loopback (behind a proxy
 * on this machine) that is a choice; beyond it, anyone who reaches the port could queue events,
 * so the start is refused (exit 2) unless SVC_WEBHOOK_PUBLIC_WITHOUT_SECRET / --public-without-secret
 * says so. `unsigned`: the connections without a secret (undefined: the one implicit connection).
 */
export function checkPublicWithoutSecret(host: string, unsigned: ReadonlyArray<string | undefined>, allowed: boolean): void {
  if (unsigned.length === 0 || allowed || isLoopbackHost(host)) return;
  const who = unsigned[0] === undefined ? '' : `connection ${unsigned.join(', ')}: `;
  throw new ConfigError(
    `${who}no SVC_WEBHOOK_SECRET, and --host ${host} listens beyond this machine: anyone who reaches the port could post events. ` +
      'Set SVC_WEBHOOK_SECRET, listen on --host 127.0.0.1 behind a proxy, or pass --public-without-secret to accept it',
    ['export SVC_WEBHOOK_SECRET=$(openssl rand -hex 24)'],
  );
}

/** The queue flags of `serve` and `queue`; each wins over its setting. */
interface QueueFlags {
  /** --queue */
  path?: string | undefined;
  /** --queue-url */
  url?: string | undefined;
}

/**
 * Where the queue lives: a PostgreSQL URL (--queue-url, SVC_QUEUE_URL) puts it there, with its
 * schema and lease; otherwise the SQLite file (--queue, SVC_QUEUE_PATH). The PostgreSQL settings
 * are checked even when unused, so a wrong one is found before the day it matters.
 */
function queueLocation(raw: RawSettings, flags: QueueFlags): QueueLocation {
  const schema = queueSchema(raw.SVC_QUEUE_SCHEMA?.trim());
  const lease = raw.SVC_QUEUE_LEASE_S?.trim();
  const leaseMs = lease ? plainSeconds(lease, 'SVC_QUEUE_LEASE_S', 1, 86_400) : DEFAULT_LEASE_MS;
  const [name, url] = flags.url !== undefined ? ['--queue-url', flags.url.trim()] : ['SVC_QUEUE_URL', raw.SVC_QUEUE_URL?.trim()];
  // An empty SVC_QUEUE_URL is unset (an empty line in a service file); an empty --queue-url was meant.
  if (url === undefined || (url === '' && flags.url === undefined)) return { kind: 'sqlite', path: flags.path ?? raw.SVC_QUEUE_PATH ?? DEFAULT_QUEUE_PATH };
  if (!isPostgresUrl(url)) throw new ConfigError(`${name} ${JSON.stringify(maskQueueUrl(url))}: must be a postgres:// or postgresql:// URL`);
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`${name} ${JSON.stringify(maskQueueUrl(url))}: not a valid URL (percent-encode special characters in the password)`);
  }
  return { kind: 'postgres', url, schema, leaseMs };
}

function queueSchema(schema: string | undefined): string {
  if (!schema) return DEFAULT_QUEUE_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new ConfigError(`SVC_QUEUE_SCHEMA ${JSON.stringify(schema)}: must be a lowercase PostgreSQL identifier (letters, digits, _; at most 63)`);
  // PostgreSQL reserves pg_ names; public and information_schema belong to everyone: the queue needs a schema of its own.
  if (schema.startsWith('pg_')) throw new ConfigError(`SVC_QUEUE_SCHEMA ${JSON.stringify(schema)}: names starting with pg_ are reserved by PostgreSQL; use another (default svc_sync)`);
  if (schema === 'public' || schema === 'information_schema')
    throw new ConfigError(`SVC_QUEUE_SCHEMA ${JSON.stringify(schema)}: is shared with other applications; give the queue a schema of its own (default svc_sync)`);
  return schema;
}
