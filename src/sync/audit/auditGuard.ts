/**
 * The premise a destructive audit must prove before it writes: that the platform it reads is the
 * one the mirror came from. A wrong SVC_API_URL or key (a staging site, another charity of the
 * same agency, a site that lists nothing) looks, to a plain comparison, like a platform on which
 * everything was deleted or changed; these limits turn that into a refusal (exit 2, nothing
 * written) instead of a wiped or overwritten mirror.
 */
import { ConfigError } from '../../model/errors.js';
import type { SObjectName } from '../../model/objects.js';
import type { AuditCounts } from './auditTypes.js';

/** At most this share of an object's mirror, and at most MAX_DEFAULT records, unless raised explicitly. */
const SHARE_DEFAULT = 10;
const MAX_DEFAULT = 500;

/** An explicit --max-delete / --max-fix: a number of records, or a share of the object's mirror. */
export type Limit = { kind: 'count'; n: number } | { kind: 'share'; percent: number };

export function parseLimit(raw: string, flag: string): Limit {
  const count = /^\d{1,9}$/.exec(raw);
  if (count) return { kind: 'count', n: Number(raw) };
  const share = /^(\d{1,3}(?:\.\d+)?)%$/.exec(raw);
  if (share && Number(share[1]) <= 100) return { kind: 'share', percent: Number(share[1]) };
  throw new ConfigError(`${flag}: give a number of records (e.g. 800) or a share of each object's mirror (e.g. 25%), got ${JSON.stringify(raw).slice(0, 40)}`);
}

/** Records of an object (holding `mirrored` in Salesforce) that may be deleted or overwritten. */
export function allowed(limit: Limit | undefined, mirrored: number): number {
  if (limit === undefined) return Math.min(MAX_DEFAULT, Math.ceil((mirrored * SHARE_DEFAULT) / 100));
  return limit.kind === 'count' ? limit.n : Math.ceil((mirrored * limit.percent) / 100);
}

/** An explicit limit that lets every record of an object go: then even an empty platform list is believed. */
export const allowsAll = (limit: Limit | undefined): boolean => limit !== undefined && (limit.kind === 'share' ? limit.percent >= 100 : false);

interface GuardFigures {
  /** Records each object's complete scan listed (absent for questions: they come inside actions). */
  listed: ReadonlyMap<SObjectName, number>;
  mirrored: ReadonlyMap<SObjectName, number>;
  counts: ReadonlyMap<SObjectName, AuditCounts>;
  /** Candidates not confirmed one by one: the platform listed none, or they passed the limit. */
  unconfirmed: ReadonlyMap<SObjectName, { candidates: number; why: 'empty' | 'limit' }>;
}

interface GuardRequest {
  deleteOrphans: boolean;
  fix: boolean;
  maxDelete?: Limit | undefined;
  maxFix?: Limit | undefined;
  /** Objects whose orphans --fix marks in the projection (gifts canceled, campaigns inactive): counted as fixes. */
  marksGone?: readonly SObjectName[] | undefined;
  /** The platform's base URL as shown (credentials masked), for the message. */
  platform: string;
}

const pct = (n: number, of: number): string => `${of === 0 ? 0 : Math.round((n / of) * 100)} %`;
const limitText = (limit: Limit | undefined): string =>
  limit === undefined ? `default: ${SHARE_DEFAULT} % of the object, at most ${MAX_DEFAULT}` : limit.kind === 'count' ? `${limit.n}` : `${limit.percent} %`;

/** Why the requested deletions or fixes must not run; undefined when they may. */
export function refusalOf(f: GuardFigures, req: GuardRequest): string | undefined {
  const reasons: string[] = [];
  let raiseDelete = 0;
  let raiseFix = 0;
  if (req.deleteOrphans) {
    for (const [object, mirrored] of f.mirrored) {
      const un = f.unconfirmed.get(object);
      if (un?.why === 'empty') {
        reasons.push(`the platform lists no ${object} records, Salesforce holds ${mirrored}`);
        continue;
      }
      const orphans = (f.counts.get(object)?.orphan ?? 0) + (un?.why === 'limit' ? un.candidates : 0);
      if (orphans > allowed(req.maxDelete, mirrored)) {
        reasons.push(`${orphans} of ${mirrored} ${object} would be deleted (${pct(orphans, mirrored)})`);
        raiseDelete = Math.max(raiseDelete, orphans);
      }
    }
  }
  if (req.fix) {
    for (const [object, mirrored] of f.mirrored) {
      const stale = f.counts.get(object)?.stale ?? 0;
      // A wrong platform answers 404 for every id: its "gone" would cancel every gift.
      const gone = req.marksGone?.includes(object) === true ? (f.counts.get(object)?.orphan ?? 0) : 0;
      const changed = stale + gone;
      if (changed > allowed(req.maxFix, mirrored)) {
        const marked = gone > 0 ? `, ${gone} of them gone: their gifts or campaigns marked` : '';
        reasons.push(`${changed} of ${mirrored} ${object} would be overwritten${marked} (${pct(changed, mirrored)})`);
        raiseFix = Math.max(raiseFix, changed);
      }
    }
  }
  if (reasons.length === 0) return undefined;
  const flags: string[] = [];
  if (raiseDelete > 0) flags.push(`--max-delete ${raiseDelete} (now ${limitText(req.maxDelete)})`);
  if (raiseFix > 0) flags.push(`--max-fix ${raiseFix} (now ${limitText(req.maxFix)})`);
  if (reasons.some((r) => r.startsWith('the platform lists no'))) flags.push('--max-delete 100% if the platform really holds none');
  return `refused, nothing written: ${reasons.join('; ')}. Is ${req.platform} the site this mirror came from (SVC_API_URL, SVC_API_KEY, SVC_SITE_ID)? If these changes are right, run again with ${flags.join(' or ')}`;
}
