/**
 * One deployment, several sites: the config file's "connections" each name a site (its own API
 * key, org, state and budget) over the settings every connection shares. Without "connections"
 * there is one implicit connection, with exactly the settings and state folder of a single site.
 */
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';
import { readConfigFile, type ConfigFile } from './configFile.js';
import { orgKey } from '../model/orgId.js';
import { checkOrgRecord, orgFileOf, readOrgRecord, sharedOrgRefusal } from './orgRecord.js';
import { realFolder } from './realFolder.js';
import { mergeSources, sourcesOf, type LoadOptions, type SettingSource } from './load.js';
import { SETTINGS, type SettingName, type SettingRow } from './settingsTable.js';
import { bool, type RawSettings } from './values.js';
import type { DeploymentPlace } from './settings.js';

export type Sources = Partial<Record<SettingName, SettingSource>>;

export interface ConnectionConfig {
  /** The connection's name from the config file; undefined for the one implicit connection of a config without "connections". */
  name: string | undefined;
  /** Its settings, merged: flags > the connection's own keys > environment > the file's top level. */
  raw: RawSettings;
  /** Where each setting came from (cli/where.ts). */
  sources: Sources;
  /** Its state folder: .svc-sync for the implicit one, .svc-sync/<name> for a named one (SVC_STATE_DIR overrides). */
  stateDir: string;
}

export interface Deployment {
  /** The config file has "connections". */
  named: boolean;
  /** Deployment-wide settings (flags > environment > file top level): the queue, SVC_SETTLE_S, SVC_ADMIN_TOKEN, SVC_LOG_FORMAT. */
  top: RawSettings;
  /** Every connection, in the file's order; exactly one (name undefined) when not named. */
  connections: ConnectionConfig[];
  /** The config file holds secrets others can read: said once per command (configFile.ts). */
  exposed?: string;
  /** Others can write the config file: said once per command (configTrust.ts). */
  untrusted?: string;
}

export const DEFAULT_STATE_DIR = '.svc-sync';

/** Settings one deployment has once: a connection that sets one is refused, not silently overruled. */
const DEPLOYMENT_SETTINGS: ReadonlySet<string> = new Set((SETTINGS as readonly SettingRow[]).filter((r) => r.deployment).map((r) => r.name));

/** The connection's label in lines a person reads: "connection north". */
export const connectionLabel = (c: Pick<ConnectionConfig, 'name'>): string => (c.name === undefined ? 'the connection' : `connection ${c.name}`);

/**
 * Reads the settings of every connection and checks what no single connection can see: two of
 * them on one site, one org or one state folder would overwrite each other's records or progress.
 */
export function loadDeployment(opts: LoadOptions = {}): Deployment {
  const env = opts.env ?? process.env;
  const flags = opts.flags ?? {};
  const file = readConfigFile(opts.configPath, opts.cwd, env);
  const top = mergeSources(flags, env, file.top);
  const exposed = { ...(file.exposed === undefined ? {} : { exposed: file.exposed }), ...(file.untrusted === undefined ? {} : { untrusted: file.untrusted }) };
  if (file.connections === undefined) {
    const only = topAsConnection(top);
    checkOrgRecord(only.stateDir);
    return { named: false, top, connections: [{ ...only, sources: sourcesOf(flags, {}, env, file.top) }], ...exposed };
  }
  const connections = file.connections.map(({ name, settings }) => {
    for (const key of Object.keys(settings)) {
      if (DEPLOYMENT_SETTINGS.has(key)) throw new ConfigError(`${where(file, name)}: ${key} is one for the whole deployment; set it at the top level of the file`);
    }
    if (settings.SVC_SITE_ID === undefined) throw new ConfigError(`${where(file, name)}: SVC_SITE_ID is not set; each connection names its site (webhooks are routed by it)`);
    const raw = mergeSources(flags, settings, env, file.top);
    const stateDir = settings.SVC_STATE_DIR ?? path.join(top.SVC_STATE_DIR ?? DEFAULT_STATE_DIR, name);
    return { name, raw: { ...raw, SVC_STATE_DIR: stateDir }, sources: sourcesOf(flags, settings, env, file.top), stateDir };
  });
  for (const c of connections) checkOrgRecord(c.stateDir);
  checkApart(connections);
  return { named: true, top, connections, ...exposed };
}

/** The top-level settings as one connection's: the implicit one, or the deployment as a whole. */
const topAsConnection = (top: RawSettings): ConnectionConfig => ({ name: undefined, raw: top, sources: {}, stateDir: top.SVC_STATE_DIR ?? DEFAULT_STATE_DIR });

/** A connection's place in its deployment: its name, and the deployment's state folder (the org's shared readings live there). */
export const placeOf = (d: Deployment, c: Pick<ConnectionConfig, 'name'>): DeploymentPlace => ({ ...(c.name === undefined ? {} : { connection: c.name }), stateRoot: wholeDeployment(d).stateDir });

/** What a deployment-wide command (serve, queue, schema) acts on: the only connection, or the top level. */
export const wholeDeployment = (d: Deployment): ConnectionConfig => (d.named ? topAsConnection(d.top) : d.connections[0]!);

const where = (file: ConfigFile, name: string): string => `config file ${file.file}: connections.${name}`;

/** A URL's origin, compared the way servers do (scheme and host are case-free; a trailing slash is nothing). */
function originOf(url: string | undefined): string | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  return new URL(url).origin.toLowerCase();
}

const mapOr = (v: string | undefined, f: (v: string) => string): string | undefined => (v === undefined ? undefined : f(v));

/** Which of two state folders reaches `real` through a symlink: said, so the cause is plain (not an org record). */
function throughLink(real: string, a: ConnectionConfig, b: ConnectionConfig): string {
  const linked = [a, b].map((c) => path.resolve(c.stateDir)).find((p) => p !== real);
  return linked === undefined ? '' : ` (${echo(linked, 120)} is the same folder through a symlink)`;
}

/** SVC_SITE_KEYS of a connection, read as load.ts reads it; a bad value names the connection. */
function qualifies(c: ConnectionConfig): boolean {
  try {
    return bool(c.raw, 'SVC_SITE_KEYS');
  } catch (error) {
    throw new ConfigError(`${connectionLabel(c)}: ${(error as Error).message}`);
  }
}

interface ApartRule {
  of: (c: ConnectionConfig) => string | undefined;
  /** Two connections sharing the value: refused. */
  why?: (v: string, a: ConnectionConfig, b: ConnectionConfig) => string;
  fix?: (c: ConnectionConfig) => string[];
  /** One org instead: shared when every connection on it qualifies its keys, else refused naming them ("write the org at X"). */
  shared?: (v: string) => string;
}

/** The first value two connections share: "connections a and b: <why>" (exit 2). */
function checkApart(connections: ConnectionConfig[]): void {
  for (const c of connections) qualifies(c);
  const keys: ApartRule[] = [
    { of: (c) => c.raw.SVC_SITE_ID, why: (v) => `both have site ${v}; a webhook of that site could go to either` },
    {
      of: (c) => originOf(c.raw.SF_INSTANCE_URL),
      shared: (v) => `write the org at ${echo(v, 80)}`,
    },
    // By real path: one folder through a symlink shares one watermark as surely as one path does.
    { of: (c) => realFolder(c.stateDir), why: (v, a, b) => `both keep their state in ${echo(v, 120)}${throughLink(v, a, b)}; give each its own SVC_STATE_DIR` },
    // What their logins found (org.json in each state folder): a file edited to point two at one org.
    {
      of: (c) => mapOr(readOrgRecord(c.stateDir)?.orgId, orgKey),
      fix: (c) => [`or give each its own org; if ${c.name ?? '?'} no longer logs in to it, delete ${orgFileOf(c.stateDir)}`],
      shared: (v) => `log in to org ${v}`,
    },
  ];
  for (const key of keys) {
    const groups = new Map<string, ConnectionConfig[]>();
    for (const c of connections) {
      const v = key.of(c);
      if (v === undefined) continue;
      const group = groups.get(v) ?? [];
      if (group.length > 0 && key.why) throw new ConfigError(`connections ${group[0]!.name ?? '?'} and ${c.name ?? '?'}: ${key.why(v, group[0]!, c)}`);
      groups.set(v, [...group, c]);
    }
    for (const [v, group] of groups) {
      const lacking = group.filter((c) => !qualifies(c)).map((c) => c.name ?? '?');
      if (group.length > 1 && lacking.length > 0 && key.shared)
        throw new ConfigError(
          sharedOrgRefusal(
            group.map((c) => c.name ?? '?'),
            lacking,
            key.shared(v),
          ),
          key.fix?.(group.at(-1)!),
        );
    }
  }
}

/**
 * The connections a command acts on: the one named (--connection or SVC_CONNECTION); without a
 * name, every one (`each`: sync, audit, doctor) or the only one (`one`: object, replay, queue
 * retry, which refuse to guess among several).
 */
export function chooseConnections(d: Deployment, mode: 'each' | 'one'): ConnectionConfig[] {
  const chosen = d.top.SVC_CONNECTION;
  if (chosen !== undefined) {
    if (!d.named) throw new ConfigError(`--connection ${echo(chosen, 40)}: the config file has no "connections"; leave it out, or name the sites in the file`);
    const c = d.connections.find((x) => x.name === chosen);
    if (c === undefined) throw new ConfigError(`--connection ${echo(chosen, 40)}: no such connection (the config file has ${d.connections.map((x) => x.name).join(', ')})`);
    return [c];
  }
  if (mode === 'one' && d.connections.length > 1) {
    throw new ConfigError(`${d.connections.length} connections (${d.connections.map((x) => x.name).join(', ')}): this command acts on one; choose it with --connection NAME`);
  }
  return d.connections;
}

/**
 * Every group of settings the config file and the environment hold, unchecked: what an error line
 * must mask even when the checks above are what failed (a secret of any connection never shows).
 */
export function everySettingGroup(opts: LoadOptions = {}): RawSettings[] {
  const env = opts.env ?? process.env;
  const file = readConfigFile(opts.configPath, opts.cwd, env);
  return [mergeSources(opts.flags ?? {}, env, file.top), ...(file.connections ?? []).map((c) => c.settings)];
}
