/**
 * Whose bare keys are they? `keys qualify` takes the org's bare keys to be its connection's site's,
 * so it refuses when another connection of the deployment reaches the same org (the same
 * SF_INSTANCE_URL origin, or the same org id recorded by its login) and may have written bare
 * keys there: it does not qualify its keys (SVC_SITE_KEYS), or it has run (its state folder holds
 * a record or progress). No flag overrides it (SITES.md, decision 3).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ConnectionConfig } from '../../config/connections.js';
import { readOrgRecord } from '../../config/orgRecord.js';
import { bool } from '../../config/values.js';
import { orgKey } from '../../model/orgId.js';

/** SVC_SITE_KEYS (a bad value is refused at load). */
const qualifies = (c: ConnectionConfig): boolean => bool(c.raw, 'SVC_SITE_KEYS');

const originOf = (url: string | undefined): string | undefined => (url !== undefined && URL.canParse(url) ? new URL(url).origin.toLowerCase() : undefined);

/** The connection has written somewhere: a recorded login, progress or owners in its state folder. */
const hasRun = (c: ConnectionConfig): boolean => readOrgRecord(c.stateDir) !== undefined || ['state.json', 'owners.json'].some((f) => fs.existsSync(path.join(c.stateDir, f)));

/** One line why the org's bare keys cannot be taken as `mine`'s, or undefined. `orgId`: the org its login reached, once known. */
export function sharingRefusal(all: readonly ConnectionConfig[], mine: ConnectionConfig, orgId: string | undefined): string | undefined {
  const origin = originOf(mine.raw.SF_INSTANCE_URL);
  const name = mine.name ?? 'this connection';
  for (const other of all) {
    if (other === mine || other.name === mine.name) continue;
    const recorded = readOrgRecord(other.stateDir)?.orgId;
    const sameOrg = (origin !== undefined && originOf(other.raw.SF_INSTANCE_URL) === origin) || (orgId !== undefined && recorded !== undefined && orgKey(recorded) === orgKey(orgId));
    if (!sameOrg) continue;
    const who = `connection ${other.name ?? '?'}`;
    if (!qualifies(other)) return `keys qualify: ${who} writes the same org without SVC_SITE_KEYS=true, so the org's bare keys may be its site's as well as ${name}'s; nothing was written`;
    if (hasRun(other)) return `keys qualify: ${who} has run on the same org, so the org's bare keys may be its site's as well as ${name}'s; nothing was written`;
  }
  return undefined;
}
