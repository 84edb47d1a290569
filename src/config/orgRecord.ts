/**
 * One org per connection, checked where the config file cannot: two connections with different
 * instance URLs (or OAuth logins) may still reach one org. Each named connection records the org
 * its login reached in `<state folder>/org.json`; a login that reaches an org another connection
 * has recorded, or reached earlier in this process, is refused before any record is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';

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

/** The org a connection's login last reached; undefined when none is recorded or the file is not one of ours. */
export function readOrgRecord(stateDir: string): OrgRecord | undefined {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(orgFileOf(stateDir), 'utf8'));
  } catch {
    return undefined;
  }
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
  const file = orgFileOf(stateDir);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}

/** The reason in the refusal's line, at load and after login alike (an org id is letters and digits only: read from a login or checked in the file). */
export const sameOrgWhy = (orgId: string): string => `both log in to org ${orgKey(orgId)}; records of two sites with the same ids would overwrite each other (one org per connection)`;

/** Orgs reached by the logins of this process, by connection: a dry run records nothing, yet two of its connections on one org are refused too. */
const reached = new Map<string, string>();

/**
 * After a named connection's login: refuses (exit 2) when another connection of the deployment
 * recorded that org, or reached it earlier in this process; else records it (`record`: not in a
 * dry run). Without named connections there is one site and nothing to compare.
 */
export function claimOrg(all: readonly Named[], connection: Named, org: { orgId?: string; instanceUrl: string } | undefined, record: boolean): void {
  const name = connection.name;
  if (name === undefined || org?.orgId === undefined) return;
  const key = orgKey(org.orgId);
  const refuse = (other: string, actions: string[]): never => {
    const [first, second] = all.findIndex((c) => c.name === other) < all.findIndex((c) => c.name === name) ? [other, name] : [name, other];
    throw new ConfigError(`connections ${first} and ${second}: ${sameOrgWhy(key)}`, actions);
  };
  for (const other of all) {
    if (other.name === undefined || other.name === name) continue;
    const recorded = readOrgRecord(other.stateDir);
    if (recorded !== undefined && orgKey(recorded.orgId) === key) {
      refuse(other.name, [`give ${name} its own org; if ${other.name} no longer logs in to it, delete ${orgFileOf(other.stateDir)}`]);
    }
  }
  const inProcess = reached.get(key);
  if (inProcess !== undefined && inProcess !== name) refuse(inProcess, [`give ${name} or ${inProcess} its own org (SF_INSTANCE_URL, or SF_LOGIN_URL and SF_CLIENT_ID)`]);
  reached.set(key, name);
  const mine = readOrgRecord(connection.stateDir);
  if (record && (mine === undefined || mine.orgId !== org.orgId || mine.instanceUrl !== org.instanceUrl)) {
    writeOrgRecord(connection.stateDir, { orgId: org.orgId, instanceUrl: org.instanceUrl, recordedAt: new Date().toISOString() });
  }
}
