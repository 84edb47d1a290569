/**
 * The org guard's verdict and the Account record types, kept for a day beside the run state
 * (issue 42, cost): a command run in the same org with the same settings within a day trusts
 * them instead of the guard's describes and the record-type query. Another org, other settings,
 * an older or future verdict -> the org is checked again. A projection write failing with a
 * cause a describe would explain drops the file (dropVerdict), so the next run checks again.
 * `doctor` never reads it. Owner-only and written whole; lost or unreadable, runs check the org.
 * NPSP's verdict (issue 51) keeps the refund mode the guard chose and NPSP's record types.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectionMode } from '../../config/settings.js';
import { writePrivateFile } from '../../model/privateFile.js';
import { isRecord, SALESFORCE_ID } from './keptMap.js';
import type { NpspLookups, OrgLookups } from './recordTypes.js';

const FILE = 'projection-org.json';
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the verdict was made for: a verdict of another org or other settings is not this run's. */
export interface VerdictScope {
  orgId: string;
  /** The instance the login reached: a sandbox refreshed under the same id is another org. */
  instanceUrl?: string | undefined;
  setting: ProjectionMode;
  personRecordType: string;
  /** The SVC_NPSP_* settings, as one string: another refund mode or record type is checked again. */
  npsp?: string | undefined;
}

interface KeptChoice {
  setting: ProjectionMode;
  resolved: 'npc' | 'npsp' | 'off';
  reason: string;
  refundMode?: 'stage' | 'payments' | undefined;
}

/** The record types and the currency read with them (recordTypes.ts), kept with the verdict. */
type RecordTypes = OrgLookups;

interface Verdict extends VerdictScope {
  checkedAt: string;
  choice: KeptChoice;
  recordTypes?: RecordTypes | undefined;
  npspLookups?: NpspLookups | undefined;
}

/** The file beside a state file (`.svc-sync/state.json` -> `.svc-sync/projection-org.json`). */
export const verdictBeside = (stateFile: string): string => path.join(path.dirname(stateFile), FILE);

const CURRENCY = /^[A-Z]{3}$/;
const optionalString = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** NPSP's record types as kept: the Organization type required, the Donation type when the org has one. */
function npspLookupsOf(n: unknown): NpspLookups | undefined {
  if (!isRecord(n) || typeof n.organisation !== 'string' || !SALESFORCE_ID.test(n.organisation) || typeof n.currency !== 'string' || !CURRENCY.test(n.currency)) return undefined;
  if (n.donation !== undefined && (typeof n.donation !== 'string' || !SALESFORCE_ID.test(n.donation))) return undefined;
  return { organisation: n.organisation, donation: n.donation, currency: n.currency };
}

function choiceOf(c: Record<string, unknown>): KeptChoice | undefined {
  if ((c.resolved !== 'npc' && c.resolved !== 'npsp' && c.resolved !== 'off') || typeof c.reason !== 'string' || typeof c.setting !== 'string') return undefined;
  const refundMode = c.refundMode === 'stage' || c.refundMode === 'payments' ? c.refundMode : undefined;
  // NPSP's verdict without its refund mode would write refunds the guard never chose.
  if (c.resolved === 'npsp' && refundMode === undefined) return undefined;
  return { setting: c.setting as ProjectionMode, resolved: c.resolved, reason: c.reason, ...(refundMode ? { refundMode } : {}) };
}

function parse(text: string): Verdict | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (!isRecord(v) || v.version !== 1 || !isRecord(v.choice)) return undefined;
    const choice = choiceOf(v.choice);
    if (choice === undefined) return undefined;
    if (typeof v.orgId !== 'string' || typeof v.setting !== 'string' || typeof v.personRecordType !== 'string' || typeof v.checkedAt !== 'string') return undefined;
    const rt = v.recordTypes;
    const recordTypes =
      isRecord(rt) &&
      typeof rt.person === 'string' &&
      typeof rt.business === 'string' &&
      SALESFORCE_ID.test(rt.person) &&
      SALESFORCE_ID.test(rt.business) &&
      typeof rt.currency === 'string' &&
      CURRENCY.test(rt.currency)
        ? { person: rt.person, business: rt.business, currency: rt.currency }
        : undefined;
    return {
      orgId: v.orgId,
      instanceUrl: optionalString(v.instanceUrl),
      setting: v.setting as ProjectionMode,
      personRecordType: v.personRecordType,
      npsp: optionalString(v.npsp),
      checkedAt: v.checkedAt,
      choice,
      recordTypes,
      npspLookups: npspLookupsOf(v.npspLookups),
    };
  } catch {
    return undefined;
  }
}

const sameScope = (v: VerdictScope, s: VerdictScope): boolean =>
  v.orgId === s.orgId && v.instanceUrl === s.instanceUrl && v.setting === s.setting && v.personRecordType === s.personRecordType && v.npsp === s.npsp;

/** The kept verdict for `scope`, when it is under a day old; undefined otherwise. */
export function readVerdict(file: string, scope: VerdictScope, now = Date.now()): Verdict | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const v = parse(text);
  if (v === undefined || !sameScope(v, scope)) return undefined;
  const at = Date.parse(v.checkedAt);
  // A verdict from the future (a clock set back) is no evidence of today's org.
  return Number.isFinite(at) && at <= now && now - at < DAY_MS ? v : undefined;
}

/** What is kept with the verdict once read: NPC's record types or NPSP's. */
interface KeptLookups {
  recordTypes?: RecordTypes | undefined;
  npspLookups?: NpspLookups | undefined;
}

/** Keeps a fresh verdict (a failed write only costs the next run its describes). */
export function keepVerdict(file: string, scope: VerdictScope, choice: KeptChoice, lookups: KeptLookups = {}, checkedAt = new Date().toISOString()): void {
  try {
    writePrivateFile(file, `${JSON.stringify({ version: 1, ...scope, checkedAt, choice, ...lookups })}\n`);
  } catch {
    // Only calls are lost: the next run describes the org again.
  }
}

/** Adds the record types to a kept verdict of the same scope (same day, same check time). */
export function keepRecordTypes(file: string, scope: VerdictScope, recordTypes: RecordTypes): void {
  const v = readVerdict(file, scope);
  if (v !== undefined && v.recordTypes === undefined) keepVerdict(file, scope, v.choice, { recordTypes }, v.checkedAt);
}

/** Adds NPSP's record types to a kept NPSP verdict of the same scope. */
export function keepNpspLookups(file: string, scope: VerdictScope, npspLookups: NpspLookups): void {
  const v = readVerdict(file, scope);
  if (v !== undefined && v.choice.resolved === 'npsp' && v.npspLookups === undefined) keepVerdict(file, scope, v.choice, { npspLookups }, v.checkedAt);
}

/** Forgets the kept verdict: the next run checks the org again. */
export function dropVerdict(file: string): void {
  fs.rmSync(file, { force: true });
}

/**
 * A projection failure a describe would explain (a field or object gone, a restricted picklist
 * value, access taken away, a record type gone): the org changed since it was checked.
 */
export function describeWouldExplain(code: string, message: string): boolean {
  if (/^(INVALID_FIELD|INVALID_TYPE|INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST|INSUFFICIENT_ACCESS\w*|INVALID_FIELD_FOR_INSERT_UPDATE|INVALID_CROSS_REFERENCE_KEY|NOT_FOUND)$/.test(code)) return true;
  return /No such column|not supported|does not exist|restricted picklist|insufficient access|INVALID_FIELD|INVALID_TYPE|record type/i.test(message);
}
