/**
 * The JSON config file (svc-sync.config.json in the working directory, or --config PATH): its
 * top-level keys are setting names; an optional "connections" object holds one group of settings
 * per site. A value is a string, number or boolean, or {"env": "NAME"} to take it from an
 * environment variable, so the file need not hold a secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';
import { untrustedConfig } from './configTrust.js';
import { SETTINGS, type SettingName } from './settingsTable.js';
import type { RawSettings } from './values.js';

export const DEFAULT_CONFIG_FILE = 'svc-sync.config.json';

const SETTING_NAMES: readonly SettingName[] = SETTINGS.map((r) => r.name);
const SETTING_SET: ReadonlySet<string> = new Set(SETTING_NAMES);
const isSettingName = (name: string): name is SettingName => SETTING_SET.has(name);

/** What the file holds: its top-level settings, and its connections in the file's order (absent without "connections"). */
export interface ConfigFile {
  file: string;
  top: RawSettings;
  /** A line to warn with: the file holds secrets and others can read it (as ssh says of a key). */
  exposed?: string;
  /** A line to warn with: others can write the file (configTrust.ts; refused outright when it could redirect secrets). */
  untrusted?: string;
  connections?: Array<{ name: string; settings: RawSettings }>;
}

/**
 * Names appear in folder names, metric labels and log lines: a short lowercase word (letters,
 * digits, - and _ after the first letter) is safe in all three.
 */
const CONNECTION_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** Reads the config file: an explicit path must exist; the default one is optional. */
export function readConfigFile(explicitPath: string | undefined, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const file = explicitPath ?? path.join(cwd, DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (explicitPath === undefined && (e as NodeJS.ErrnoException).code === 'ENOENT') return { file, top: {} };
    throw new ConfigError(`config file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    // Windows editors save UTF-8 with a byte order mark, which JSON.parse refuses.
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ConfigError(`config file ${file}: not valid JSON`);
  }
  if (!isObject(data)) throw new ConfigError(`config file ${file}: must be a JSON object`);
  const { connections, ...top } = data;
  const out: ConfigFile = { file, top: settingsOf(top, `config file ${file}`, env) };
  if (connections !== undefined) out.connections = connectionsOf(connections, file, env);
  const exposed = exposedSecrets(file, [top, ...(isObject(connections) ? Object.values(connections) : [])]);
  if (exposed !== undefined) out.exposed = exposed;
  const untrusted = untrustedConfig(file, [top, ...(out.connections ?? []).map((c) => c.settings)], env);
  if (untrusted !== undefined) out.untrusted = untrusted;
  return out;
}

const SECRET_NAMES: ReadonlySet<string> = new Set(SETTINGS.filter((r) => 'secret' in r && r.secret === true).map((r) => r.name));

/**
 * A file holding a secret's value itself (not {"env": ...}) that its group or others can read: one
 * line naming the file, the secrets and the fix. Not on Windows, whose modes say nothing of this.
 */
function exposedSecrets(file: string, groups: unknown[]): string | undefined {
  if (process.platform === 'win32') return undefined;
  const held = new Set<string>();
  for (const g of groups) if (isObject(g)) for (const [k, v] of Object.entries(g)) if (SECRET_NAMES.has(k) && !isObject(v)) held.add(k);
  if (held.size === 0) return undefined;
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const shown = mode.toString(8).padStart(4, '0');
  return `warning: ${file} holds ${[...held].join(', ')} and others can read it (mode ${shown}): chmod 600 ${file}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * An own property only: `__proto__`, `constructor` or `toString` named in the file or as a
 * variable is looked up as a key like any other, never found on Object.prototype.
 */
function own(data: object, key: string): unknown {
  return Object.hasOwn(data, key) ? (data as Record<string, unknown>)[key] : undefined;
}

function connectionsOf(value: unknown, file: string, env: NodeJS.ProcessEnv): Array<{ name: string; settings: RawSettings }> {
  const where = `config file ${file}: connections`;
  if (!isObject(value)) throw new ConfigError(`${where}: must be an object of named connections, {"<name>": {"SVC_SITE_ID": ..., ...}}`);
  const names = Object.keys(value);
  if (names.length === 0) throw new ConfigError(`${where}: is empty; name at least one connection, or remove the key`);
  return names.map((name) => {
    if (!CONNECTION_NAME.test(name)) {
      throw new ConfigError(`${where}: name ${echo(name, 40)} must be a short lowercase word (a-z first, then a-z, 0-9, - or _; at most 32)`);
    }
    const settings = own(value, name);
    if (!isObject(settings)) throw new ConfigError(`${where}.${name}: must be an object of settings`);
    return { name, settings: settingsOf(settings, `${where}.${name}`, env) };
  });
}

/** One group of settings: every key a setting name, every value a scalar or {"env": "NAME"}. */
function settingsOf(data: Record<string, unknown>, where: string, env: NodeJS.ProcessEnv): RawSettings {
  const out: RawSettings = {};
  for (const [k, v] of Object.entries(data)) {
    if (!isSettingName(k)) {
      const near = nearestSetting(k);
      throw new ConfigError(`${where}: unknown setting ${echo(k, 40)}${near ? ` (did you mean ${near}?)` : ' (svc-sync --help lists the settings)'}`);
    }
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (isObject(v) && Object.keys(v).length === 1 && typeof own(v, 'env') === 'string') out[k] = fromEnvironment(own(v, 'env') as string, k, where, env);
    else throw new ConfigError(`${where}: ${k} must be a string, number, boolean or {"env": "VARIABLE"}`);
  }
  return out;
}

/** {"env": "NAME"}: the variable must be set; an unset one is a secret that did not arrive, never an empty setting. */
function fromEnvironment(variable: string, setting: SettingName, where: string, env: NodeJS.ProcessEnv): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw new ConfigError(`${where}: ${setting} names ${echo(variable, 40)}, which is not an environment variable's name`);
  const v = own(env, variable);
  if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(`${where}: ${setting} is taken from the environment variable ${variable}, which is not set`);
  return v;
}

/** Edit distance, for "did you mean": small strings only (setting names). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known setting nearest a typo (case and - / _ ignored), when near enough to be the one meant. */
function nearestSetting(key: string): string | undefined {
  const norm = (s: string): string => s.toUpperCase().replace(/-/g, '_');
  let best: { name: string; d: number } | undefined;
  for (const name of SETTING_NAMES) {
    const d = distance(norm(key), name);
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= Math.max(2, Math.floor(best.name.length / 4)) ? best.name : undefined;
}
