/**
 * Which site and which org a command acts on, said first (stderr for a person, `where` in --json):
 * with a config file for one stack and exported variables for another, the variables win, and a
 * run must say so rather than mirror the wrong site silently.
 */
import type { RawSettings, SettingSource } from '../config/load.js';
import type { Sources } from '../config/connections.js';
import type { SettingName } from '../config/settingsTable.js';
import type { OrgIdentity, ProjectionChoice } from '../sync/compose.js';

export type { Sources };

interface Origin {
  /** The setting that decides it, and where its value came from. */
  setting: SettingName;
  source: SettingSource['from'];
  /** The config file set it too, and lost to `source`. */
  alsoInFile: boolean;
}

export interface Where {
  /** The connection's name, when the config file names its sites. */
  connection?: string;
  /** `reported`: the site_id the platform's records carry, when SVC_SITE_ID is not set. */
  site: { id: number | null; reported?: number; host: string; from?: Origin };
  org: { instanceHost: string; orgId: string | null; from?: Origin };
  /** SVC_PROJECTION npc|auto: what the run does about gifts in this org, and why (auto). */
  projection?: ProjectionChoice;
}

const hostOf = (url: string | undefined): string => (url !== undefined && URL.canParse(url) ? new URL(url).host : '?');

function originOf(sources: Sources, setting: SettingName): Origin | undefined {
  const s = sources[setting];
  return s === undefined ? undefined : { setting, source: s.from, alsoInFile: s.alsoFile };
}

/**
 * SVC_SITE_ID unset: the site the platform's records named when a run last read one (kept in the
 * platform profile), for the header and --json before this run reads any: a run with nothing to
 * do reads none, and spends no request to ask.
 */
export function withKnownSite(w: Where, known: number | undefined): Where {
  if (w.site.id === null && known !== undefined) w.site.reported = known;
  return w;
}

export function whereOf(raw: RawSettings, sources: Sources, org: OrgIdentity | undefined, connection?: string, projection?: ProjectionChoice): Where {
  const siteFrom = originOf(sources, 'SVC_API_URL');
  // OAuth finds the org through its client; a given session through its instance URL.
  const orgFrom = originOf(sources, raw.SF_CLIENT_ID !== undefined ? 'SF_CLIENT_ID' : 'SF_INSTANCE_URL');
  return {
    ...(connection === undefined ? {} : { connection }),
    site: { id: raw.SVC_SITE_ID === undefined ? null : Number(raw.SVC_SITE_ID), host: hostOf(raw.SVC_API_URL), ...(siteFrom ? { from: siteFrom } : {}) },
    org: { instanceHost: hostOf(org?.instanceUrl ?? raw.SF_INSTANCE_URL ?? raw.SF_LOGIN_URL), orgId: org?.orgId ?? null, ...(orgFrom ? { from: orgFrom } : {}) },
    ...(projection === undefined ? {} : { projection }),
  };
}

/** `gifts: npc`, `gifts: npsp, refunds: payments`, `gifts: off (SVC_PROJECTION=auto: the org has no GiftTransaction)`. */
const projectionLine = (p: ProjectionChoice): string =>
  `gifts: ${p.resolved}${p.refundMode === undefined ? '' : `, refunds: ${p.refundMode}`}${p.setting === 'auto' ? ` (SVC_PROJECTION=auto: ${p.reason})` : ''}`;

/** Named only when it matters: the config file said otherwise. */
const originText = (o: Origin | undefined): string => (o?.alsoInFile ? ` (${o.source === 'environment' ? 'env' : o.source}, over the config file)` : '');

/**
 * Two lines a person reads first (a third with SVC_PROJECTION on); the first names the connection,
 * unless every stderr line of the run already begins with its name (`labelled`: several connections).
 */
export function whereLines(w: Where, labelled = false): string[] {
  const named = w.connection !== undefined && !labelled ? `connection ${w.connection}: ` : '';
  const site = w.site.id !== null ? `site ${w.site.id}` : w.site.reported === undefined ? 'site ? (SVC_SITE_ID not set)' : `site ${w.site.reported}, as the platform reports it (SVC_SITE_ID not set)`;
  const lines = [`${named}${site} at ${w.site.host}${originText(w.site.from)}`, `org ${w.org.orgId ?? '?'} at ${w.org.instanceHost}${originText(w.org.from)}`];
  return w.projection === undefined ? lines : [...lines, projectionLine(w.projection)];
}

/**
 * SVC_SITE_ID unset: the site the records named, once read, for the result and for a person, with
 * the setting that makes every later run check it.
 */
export function noteReportedSite(w: Where | undefined, reported: number | undefined): string | undefined {
  if (w === undefined || w.site.id !== null || reported === undefined) return undefined;
  w.site.reported = reported;
  return `site ${reported}, as the platform reports it (SVC_SITE_ID not set: set SVC_SITE_ID=${reported} so a record of another site stops the run)`;
}
