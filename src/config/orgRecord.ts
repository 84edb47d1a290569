/**
 * One org per connection, checked where the config file cannot: two connections with different
 * instance URLs (or OAuth logins) may still reach one org. Each named connection records the org
 * its login reached in `<state folder>/org.json`; a login that reaches an org another connection
 * has recorded, or reached earlier in this process, is refused before any record is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { writePrivateFile } from '../model/privateFile.js';

const ORG_FILE = 'org.json';

interface OrgRecord {
  /** The org's id as the login gave it (15 or 18 characters). */
  orgId: string;
  instanceUrl: string;
  recordedAt: string;
}

/** A connection as this check needs it: its name and state folder. */
interface Named {
  name: string | undefined;
  stateDir: string;
}

/** The 15-character form: the 18-character id only adds a checksum of its case. */
export const orgKey = (orgId: string): string => orgId.slice(0, 15);

export const orgFileOf = (stateDir: string): string => path.join(stateDir, ORG_FILE);

/**
 * What a connection's state folder says of its org: recorded; none (no record, and no progress
 * saved: a connection never run); or unknown (a record that cannot be read or is not one of ours,
 * or none though the connection has saved progress, as under an earlier release): its org may
 * then be any, the one another connection reaches included.
 */
type OrgRecordState = { kind: 'recorded'; record: OrgRecord } | { kind: 'none' } | { kind: 'unknown'; why: string };

function orgRecordState(stateDir: string): OrgRecordState {
  let text: string;
  try {
    text = fs.readFileSync(orgFileOf(stateDir), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code !== 'ENOENT') return { kind: 'unknown', why: `cannot be read (${code})` };
    // Progress saved, or owners of actions written (serve): the connection has written an org.
    const synced = ['state.json', 'owners.json'].some((f) => fs.existsSync(path.join(stateDir, f)));
    return synced ? { kind: 'unknown', why: 'is missing though the connection has synced' } : { kind: 'none' };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'unknown', why: 'is not JSON (truncated?)' };
  }
  const record = orgRecordOf(data);
  return record === undefined ? { kind: 'unknown', why: 'holds no org id' } : { kind: 'recorded', record };
}

/** The org a connection's login last reached; undefined when none is recorded or the file is not one of ours. */
export function readOrgRecord(stateDir: string): OrgRecord | undefined {
  const state = orgRecordState(stateDir);
  return state.kind === 'recorded' ? state.record : undefined;
}

function orgRecordOf(data: unknown): OrgRecord | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const { orgId, instanceUrl, recordedAt } = data as Record<string, unknown>;
  if (typeof orgId !== 'string' || !/^00D[0-9A-Za-z]{12}([0-9A-Za-z]{3})?$/.test(orgId)) return undefined;
  return { orgId, instanceUrl: typeof instanceUrl === 'string' ? instanceUrl : '', recordedAt: typeof recordedAt === 'string' ? recordedAt : '' };
}

/**
 * Written atomically (temp file, then rename), as the other state files. A folder that cannot be
 * written fails a run where its progress is saved, not here: a read-only `audit` or `doctor` goes on.
 */
function writeOrgRecord(stateDir: string, record: OrgRecord): void {
  try {
    writePrivateFile(orgFileOf(stateDir), `${JSON.stringify(record, null, 2)}\n`);
  } catch {
    // Said where it matters: the run that saves its progress there fails on the folder.
  }
}

/** The reason in the refusal's line, at load and after login alike (an org id is letters and digits only: read from a login or checked in the file). */
export const sameOrgWhy = (orgId: string): string => `both log in to org ${orgKey(orgId)}; records of two sites with the same ids would overwrite each other (one org per connection)`;

/** Orgs reached by the logins of this process, by connection: a dry run records nothing, yet two of its connections on one org are refused too. */
const reached = new Map<string, string>();

interface ClaimOptions {
  /** Where a warning goes: the connection's own record unknown, or (writes false) another's. */
  warn?: (line: string) => void;
  /** False for a command that writes no record in the org (doctor): another's record unknown is then a warning. */
  writes?: boolean;
}

/** The org each state folder's connection reached in this process: known though its record is not. */
const reachedFrom = new Map<string, string>();

/**
 * After a named connection's login: refuses (exit 2) when another connection of the deployment
 * recorded that org, or reached it earlier in this process, or may be on it (its record unknown:
 * the guard fails closed); else records it (`record`: not in a dry run). The connection's own
 * record unknown is a warning (`opts.warn`), and the login records it again. Without named connections
 * there is one site and nothing to compare.
 */
export function claimOrg(all: readonly Named[], connection: Named, org: { orgId?: string; instanceUrl: string } | undefined, record: boolean, opts: ClaimOptions = {}): void {
  const warn = opts.warn ?? ((): void => undefined);
  const name = connection.name;
  if (name === undefined || org?.orgId === undefined) return;
  const key = orgKey(org.orgId);
  const refuse = (other: string, why: string, actions: string[]): never => {
    const [first, second] = all.findIndex((c) => c.name === other) < all.findIndex((c) => c.name === name) ? [other, name] : [name, other];
    throw new ConfigError(`connections ${first} and ${second}: ${why}`, actions);
  };
  for (const other of all) {
    if (other.name === undefined || other.name === name) continue;
    const state = orgRecordState(other.stateDir);
    if (state.kind === 'recorded' && orgKey(state.record.orgId) === key) {
      refuse(other.name, sameOrgWhy(key), [`give ${name} its own org; if ${other.name} no longer logs in to it, delete ${orgFileOf(other.stateDir)}`]);
    }
    if (state.kind !== 'unknown' || reachedFrom.has(path.resolve(other.stateDir))) continue;
    // A command that writes no record (doctor) only tells: it is how the other's org gets recorded.
    if (opts.writes === false) warn(`connections ${other.name} and ${name}: ${unknownWhy(other, state.why, name)}`);
    else refuse(other.name, unknownWhy(other, state.why, name), unknownFix(other));
  }
  const inProcess = reached.get(key);
  if (inProcess !== undefined && inProcess !== name) refuse(inProcess, sameOrgWhy(key), [`give ${name} or ${inProcess} its own org (SF_INSTANCE_URL, or SF_LOGIN_URL and SF_CLIENT_ID)`]);
  reached.set(key, name);
  reachedFrom.set(path.resolve(connection.stateDir), key);
  const mine = orgRecordState(connection.stateDir);
  if (mine.kind === 'unknown')
    warn(`connection ${name}: its org record ${orgFileOf(connection.stateDir)} ${mine.why}; ${record ? 'recorded again from this login' : 'a run that is not a dry run records it again'}`);
  const was = mine.kind === 'recorded' ? mine.record : undefined;
  if (record && (was === undefined || was.orgId !== org.orgId || was.instanceUrl !== org.instanceUrl)) {
    writeOrgRecord(connection.stateDir, { orgId: org.orgId, instanceUrl: org.instanceUrl, recordedAt: new Date().toISOString() });
  }
}

/** Another connection's org unknown: it may be the one this login reached, so nothing is written. */
const unknownWhy = (other: Named, why: string, name: string): string =>
  `the org record of ${other.name ?? '?'} (${orgFileOf(other.stateDir)}) ${why}, so ${name} may log in to its org; records of two sites with the same ids would overwrite each other (one org per connection)`;

const unknownFix = (other: Named): string[] => [
  `run ${other.name ?? '?'} alone once (svc-sync doctor --connection ${other.name ?? '?'}): its login records its org again; if it no longer runs, remove it from the config file`,
];
