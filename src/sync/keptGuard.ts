/**
 * A command's org guard (PROJECTION.md §0): the verdict kept in the state folder for a day
 * (orgVerdictFile.ts), else the describes. Nonprofit Cloud's verdict keeps its record types;
 * NPSP's (issue 51) its refund mode and NPSP's record types. The scope names the org (id and
 * instance) and every setting the verdict depends on, so another org or setting checks again.
 */
import { DEFAULT_GIFT_SETTINGS, type ProjectionMode, type Settings } from '../config/settings.js';
import type { SharedLookups, VerdictHooks } from './gifts/giftProjector.js';
import { dropVerdict, keepNpspLookups, keepRecordTypes, keepVerdict, readVerdict, verdictBeside, type VerdictScope } from './gifts/orgVerdictFile.js';

/** The org guard's answer (crm/projectionGuard.ts), as far as the verdict keeps it. */
interface GuardChoice {
  setting: ProjectionMode;
  resolved: 'npc' | 'npsp' | 'off';
  reason: string;
  refundMode?: 'stage' | 'payments' | undefined;
}

/** The org the login reached (crm/sink.ts). */
interface Org {
  instanceUrl: string;
  orgId?: string;
}

export interface KeptGuard {
  choice: GuardChoice | undefined;
  /** The record types kept with the verdict, and how to keep or drop them. */
  shared: SharedLookups;
  verdict?: VerdictHooks | undefined;
  /** When the kept verdict was made (ms); undefined when the org was asked. */
  keptAt?: number | undefined;
}

/** What the verdict was made for: the org, and the SVC_PROJECTION, SVC_NPC_* and SVC_NPSP_* settings. */
function scopeOf(settings: Settings, org: Org & { orgId: string }, setting: ProjectionMode): VerdictScope {
  const gifts = settings.salesforce.gifts ?? DEFAULT_GIFT_SETTINGS;
  return { orgId: org.orgId, instanceUrl: org.instanceUrl, setting, personRecordType: gifts.personRecordType, npsp: JSON.stringify(gifts.npsp) };
}

/**
 * `ask`: the guard's describes, asked only when no verdict of this scope is kept. `keepAsked`
 * false: what `ask` gives was checked (and kept, if it could be) before, so it is not written again.
 */
export async function keptGuard(settings: Settings, ask: () => Promise<GuardChoice | undefined>, org: Org, stateFile: string, dryRun: boolean, keepAsked = true): Promise<KeptGuard> {
  const setting = settings.salesforce.projection;
  const orgId = org.orgId;
  if (setting === undefined || orgId === undefined) return { choice: await ask(), shared: {} };
  const file = verdictBeside(stateFile);
  const scope = scopeOf(settings, { ...org, orgId }, setting);
  const kept = readVerdict(file, scope);
  const choice = kept?.choice ?? (await ask());
  // A dry run writes nothing, this file included; a refusal (thrown) is never kept.
  // Only a verdict that projects is kept: an admin who deploys the key fields for `auto` sees the next run project.
  if (kept === undefined && keepAsked && choice !== undefined && choice.resolved !== 'off' && !dryRun) keepVerdict(file, scope, { ...choice, resolved: choice.resolved });
  const verdict: VerdictHooks | undefined = dryRun
    ? undefined
    : { keepRecordTypes: (rt) => keepRecordTypes(file, scope, rt), keepNpspLookups: (l) => keepNpspLookups(file, scope, l), drop: () => dropVerdict(file) };
  const shared: SharedLookups = {
    ...(kept?.recordTypes ? { recordTypes: Promise.resolve(kept.recordTypes) } : {}),
    ...(kept?.npspLookups ? { npsp: Promise.resolve(kept.npspLookups) } : {}),
  };
  return { choice, shared, verdict, ...(kept ? { keptAt: Date.parse(kept.checkedAt) } : {}) };
}
