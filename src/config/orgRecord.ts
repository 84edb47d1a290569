/**
 * A state folder is bound to the org (and site) it describes: every connection records the org
 * its login reached, and its site, in `<state folder>/org.json`; a later login that reaches another
 * org (a refreshed sandbox, a sandbox URL swapped for production) or a run for another site is
 * refused, since the folder's watermarks would skip the new org's records, unless told to start
 * over (--new-org). One org per connection, checked where the config file cannot: two connections
 * with different instance URLs (or OAuth logins) may still reach one org; a login that reaches an
 * org another connection has recorded, or reached earlier in this process, is refused too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { isOrgId, orgIdProblem, orgKey } from '../model/orgId.js';
import { writePrivateFile } from '../model/privateFile.js';
import { echo } from './echo.js';

const ORG_FILE = 'org.json';

interface OrgRecord {
  /** The org's id as the login gave it (15 or 18 characters). */
  orgId: string;
  instanceUrl: string;
  /** The site (SVC_SITE_ID) whose records the folder's progress counts; absent when none was set. */
  siteId?: string;
  recordedAt: string;
}

/** A connection as this check needs it: its name, state folder and settings (SVC_SITE_KEYS). */
interface Named {
  name: string | undefined;
  stateDir: string;
  raw?: { SVC_SITE_KEYS?: string | undefined };
}

/** SVC_SITE_KEYS=true (checked at load): the connection may share its org with others that set it too. */
const qualifiesKeys = (c: Named | undefined): boolean => ['1', 'true', 'yes'].includes(c?.raw?.SVC_SITE_KEYS?.trim().toLowerCase() ?? '');

const listed = (names: string[]): string => (names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`);

/**
 * Connections on one org: accepted when every one of them qualifies its keys (SITES.md, rule 1),
 * else one line naming them all and those that lack SVC_SITE_KEYS=true.
 */
export function sharedOrgRefusal(names: string[], lacking: string[], where: string): string {
  const [all, each] = names.length === 2 ? ['both', 'both'] : ['all', 'each'];
  return `connections ${listed(names)} ${all} ${where}; set SVC_SITE_KEYS=true on ${each} (${listed(lacking)} ${lacking.length === 1 ? 'lacks' : 'lack'} it)`;
}

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
  const { orgId, instanceUrl, siteId, recordedAt } = data as Record<string, unknown>;
  if (typeof orgId !== 'string' || !isOrgId(orgId)) return undefined;
  const site = typeof siteId === 'string' ? { siteId } : {};
  return { orgId, instanceUrl: typeof instanceUrl === 'string' ? instanceUrl : '', ...site, recordedAt: typeof recordedAt === 'string' ? recordedAt : '' };
}

/**
 * At load: an org record whose org id breaks the rule (model/orgId.ts) was not written by a login
 * (edited by hand, or by a release that took any length): refused in one line, not read as "no
 * record" and then refused at every run.
 */
export function checkOrgRecord(stateDir: string): void {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(orgFileOf(stateDir), 'utf8'));
  } catch {
    return; // Missing, unreadable or truncated: the claim below says what that means.
  }
  const orgId = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).orgId : undefined;
  const problem = typeof orgId === 'string' ? orgIdProblem(orgId) : undefined;
  if (problem !== undefined) {
    throw new ConfigError(`org record ${orgFileOf(stateDir)}: orgId ${echo(String(orgId), 40)} is not an org id (${problem}); delete the file: the next login records its org again`);
  }
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

/** Orgs reached by the logins of this process, by connection: a dry run records nothing, yet two of its connections on one org are refused too. */
const reached = new Map<string, string>();

interface ClaimOptions {
  /** Where a warning goes: the connection's own record unknown, or (writes false) another's. */
  warn?: (line: string) => void;
  /** False for a command that writes no record in the org (doctor): another's record unknown is then a warning. */
  writes?: boolean;
  /** The connection's site (SVC_SITE_ID): recorded with its org, and compared as the org is. */
  siteId?: string | undefined;
  /** --new-org: another org or site than the folder's is taken as its own from now on, its progress forgotten. */
  startOver?: boolean;
}

/** The org and site a login reached. */
interface Reached {
  orgId?: string;
  instanceUrl: string;
}

/** The files of a state folder that describe one org's records: forgotten when it starts over. */
const ORG_STATE_FILES = ['state.json', 'owners.json'];

/** The org reached earlier in this process by this folder's connection: known though its record is not. */
const reachedFrom = new Map<string, string>();

/**
 * After a connection's login: refuses (exit 2) when its state folder belongs to another org or
 * site (bindToFolder), or, for a named connection, when another connection of the deployment
 * recorded that org, reached it earlier in this process, or may be on it (its record unknown: the
 * guard fails closed); else records it (`record`: not in a dry run). A named connection's own
 * record unknown is a warning (`opts.warn`), and the login records it again. True when the folder
 * started over (--new-org): its progress was forgotten, and what read it must read it again.
 */
export function claimOrg(all: readonly Named[], connection: Named, org: Reached | undefined, record: boolean, opts: ClaimOptions = {}): boolean {
  const warn = opts.warn ?? ((): void => undefined);
  if (org?.orgId === undefined) return false;
  const reachedOrg = { orgId: org.orgId, instanceUrl: org.instanceUrl };
  const mine = orgRecordState(connection.stateDir);
  const bound = mine.kind === 'recorded' ? bindToFolder(connection.stateDir, mine.record, reachedOrg, record, { ...opts, warn }) : 'same';
  const startedOver = bound === 'started over';
  if (connection.name !== undefined) claimApart(all, connection as Named & { name: string }, reachedOrg, { ...opts, warn });
  reachedFrom.set(path.resolve(connection.stateDir), orgKey(org.orgId));
  if (mine.kind === 'unknown' && connection.name !== undefined)
    warn(`connection ${connection.name}: its org record ${orgFileOf(connection.stateDir)} ${mine.why}; ${record ? 'recorded again from this login' : 'a run that is not a dry run records it again'}`);
  const was = mine.kind === 'recorded' && !startedOver ? mine.record : undefined;
  const site = opts.siteId === undefined ? {} : { siteId: opts.siteId };
  if (record && bound !== 'foreign' && (was === undefined || was.orgId !== org.orgId || was.instanceUrl !== org.instanceUrl || was.siteId !== opts.siteId)) {
    writeOrgRecord(connection.stateDir, { orgId: org.orgId, instanceUrl: org.instanceUrl, ...site, recordedAt: new Date().toISOString() });
  }
  return startedOver;
}

const orgAndSite = (orgId: string, siteId: string | undefined): string => `org ${orgKey(orgId)}${siteId === undefined ? '' : `, site ${siteId}`}`;

/**
 * The folder's record names another org, or another site: its watermarks and retries count that
 * org's records, and a run from them would leave this one empty. Refused in one line naming both,
 * and the two ways on; with --new-org (not in a dry run) the folder's progress is forgotten. A
 * command that writes nothing (doctor) warns, and the record stays.
 */
function bindToFolder(dir: string, was: OrgRecord, now: { orgId: string }, record: boolean, opts: ClaimOptions & { warn: (line: string) => void }): 'same' | 'foreign' | 'started over' {
  const otherSite = was.siteId !== undefined && opts.siteId !== undefined && was.siteId !== opts.siteId;
  if (orgKey(was.orgId) === orgKey(now.orgId) && !otherSite) return 'same';
  const what = `state folder ${dir} belongs to ${orgAndSite(was.orgId, was.siteId)}, but this run reached ${orgAndSite(now.orgId, opts.siteId)}`;
  const ways = `give this org its own state folder (SVC_STATE_DIR), or run \`svc-sync sync --all --new-org\` to forget the folder's progress and start over`;
  if (opts.writes === false) {
    opts.warn(`${what}: sync refuses it; ${ways}`);
    return 'foreign';
  }
  if (opts.startOver !== true) {
    throw new ConfigError(`${what}: its progress would skip this org's records; ${ways}`, ['point SVC_STATE_DIR at a new folder for this org', 'svc-sync sync --all --new-org']);
  }
  if (!record) throw new ConfigError(`--new-org: ${what}, and a dry run writes nothing, so it cannot start over; run it without --dry-run`);
  for (const file of ORG_STATE_FILES) fs.rmSync(path.join(dir, file), { force: true });
  return 'started over';
}

/** Another connection of the deployment on the org this named one reached: refused, or (doctor) warned. */
function claimApart(all: readonly Named[], connection: Named & { name: string }, org: { orgId: string }, opts: ClaimOptions & { warn: (line: string) => void }): void {
  const name = connection.name;
  const key = orgKey(org.orgId);
  const order = (other: string): [string, string] => (all.findIndex((c) => c.name === other) < all.findIndex((c) => c.name === name) ? [other, name] : [name, other]);
  // Several sites in one org (SITES.md): accepted when both qualify their keys, else refused naming the one that does not.
  const refuseShared = (other: string, actions: string[]): never => {
    const pair = order(other);
    const lacking = pair.filter((n) => !qualifiesKeys(n === name ? connection : all.find((c) => c.name === n)));
    throw new ConfigError(
      sharedOrgRefusal(pair, lacking, `log in to org ${key}`),
      actions.map((a) => `or ${a}`),
    );
  };
  const refuse = (other: string, why: string, actions: string[]): never => {
    const [first, second] = order(other);
    throw new ConfigError(`connections ${first} and ${second}: ${why}`, actions);
  };
  for (const other of all) {
    if (other.name === undefined || other.name === name) continue;
    if (qualifiesKeys(connection) && qualifiesKeys(other)) continue;
    const state = orgRecordState(other.stateDir);
    if (state.kind === 'recorded' && orgKey(state.record.orgId) === key) {
      refuseShared(other.name, [`give ${name} its own org; if ${other.name} no longer logs in to it, delete ${orgFileOf(other.stateDir)}`]);
    }
    if (state.kind !== 'unknown' || reachedFrom.has(path.resolve(other.stateDir))) continue;
    // A command that writes no record (doctor) only tells: it is how the other's org gets recorded.
    const why = unknownWhy(
      other,
      state.why,
      name,
      order(other.name).filter((n) => !qualifiesKeys(n === name ? connection : other)),
    );
    if (opts.writes === false) opts.warn(`connections ${other.name} and ${name}: ${why}`);
    else refuse(other.name, why, unknownFix(other));
  }
  const inProcess = reached.get(key);
  const bothQualify = qualifiesKeys(connection) && qualifiesKeys(all.find((c) => c.name === inProcess));
  if (inProcess !== undefined && inProcess !== name && !bothQualify) refuseShared(inProcess, [`give ${name} or ${inProcess} its own org (SF_INSTANCE_URL, or SF_LOGIN_URL and SF_CLIENT_ID)`]);
  reached.set(key, name);
}

/**
 * Another connection's org unknown: it may be the one this login reached, so nothing is written.
 * Only reached when one of the two lacks site keys (both with them may share an org), so the
 * message names the setting that would let them, and who lacks it.
 */
const unknownWhy = (other: Named, why: string, name: string, lacking: string[]): string =>
  `the org record of ${other.name ?? '?'} (${orgFileOf(other.stateDir)}) ${why}, so ${name} may log in to its org; two sites in one org need SVC_SITE_KEYS=true on both (${listed(lacking)} ${lacking.length === 1 ? 'lacks' : 'lack'} it)`;

const unknownFix = (other: Named): string[] => [
  `run ${other.name ?? '?'} alone once (svc-sync doctor --connection ${other.name ?? '?'}): its login records its org again; if it no longer runs, remove it from the config file`,
];
