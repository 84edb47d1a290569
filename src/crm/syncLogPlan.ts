/**
 * What the sync log writes at the end of a run, as pure functions: the run record, one error
 * record per failing key (opened, or its attempts counted up), and the resolution of every open
 * error whose record succeeded in this run. The writer (syncLog.ts) only sends what these make.
 */
import type { CrmRecord } from '../model/crmRecords.js';
import { canonicalRefOfKey, keyFor } from '../model/refs.js';
import type { RunEntry, RunOutcomes } from '../model/syncLog.js';
import { ERROR_KEY, RUN_KEY, relationshipOf, type ErrorStatus } from './syncLogSchema.js';
import { sourceFields, type RunSource } from './syncLogLater.js';

/** An error record as read back: those not Resolved (Open and Ignored), with what the next write needs. */
export interface StoredError {
  Id: string;
  key: string;
  status: ErrorStatus;
  attempts: number;
  retryRequested: boolean;
}

const NAME_LENGTH = 80;
const SHORT_TEXT = 255;
const SUMMARY_LENGTH = 32768;

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
/** One line: Salesforce's messages may span several, a Text(255) shows one. */
export const cutLine = (text: string, max: number): string => cut(text.replace(/\s+/g, ' ').trim(), max);

/** The run record; `source`: the connection and site that ran it (SITES.md decision 5). */
export function runRecord(run: RunEntry, source: RunSource = {}): CrmRecord {
  return {
    [RUN_KEY]: run.key,
    ...sourceFields(source),
    Name: cut(`${run.command} ${run.startedAt}`, NAME_LENGTH),
    Command__c: run.command,
    StartedAt__c: run.startedAt,
    FinishedAt__c: run.finishedAt,
    Outcome__c: run.outcome,
    Inserted__c: run.counts.inserted,
    Updated__c: run.counts.updated,
    Unchanged__c: run.counts.unchanged,
    Failed__c: run.counts.failed,
    Deleted__c: run.counts.deleted,
    PlatformRequests__c: run.platformRequests,
    SalesforceCalls__c: run.salesforceCalls,
    Summary__c: cut(run.summary, SUMMARY_LENGTH),
  };
}

interface PlanInput {
  /** Not-Resolved error records by key, lower-cased (Key__c matches case-insensitively). */
  open: ReadonlyMap<string, StoredError>;
  outcomes: RunOutcomes;
  /** The run the records point at; undefined when its record could not be written. */
  runKey: string | undefined;
  now: string;
  redact: (text: string) => string;
}

interface ErrorPlan {
  records: CrmRecord[];
  opened: number;
  resolved: number;
}

/** Resolves an error: its record succeeded (or was skipped by a rule) in this run. */
const RESOLVING = new Set(['insert', 'update', 'unchanged', 'skip']);

/**
 * One record per failing key: Open (an Ignored one stays Ignored), attempts + 1, last failed now,
 * the retry box cleared (this run was the retry); a key failing afresh starts over at 1. Every
 * open or ignored error whose key succeeded in this run is Resolved, but a ticked retry skipped
 * (not on the platform, or by a rule) is Ignored with the reason.
 */
export function planErrors(input: PlanInput): ErrorPlan {
  const { open, outcomes, runKey, now, redact } = input;
  const run = runKey === undefined ? {} : { [`${relationshipOf('LastRun__c')}.${RUN_KEY}`]: runKey };
  const byKey = new Map<string, CrmRecord>();
  let opened = 0;
  for (const f of outcomes.failures) {
    if (f.action !== 'fail' || f.key === '') continue;
    const prev = open.get(f.key.toLowerCase());
    if (prev === undefined) opened++;
    const error = f.error ?? { code: 'FAILED', message: f.reason ?? 'failed' };
    byKey.set(f.key.toLowerCase(), {
      [ERROR_KEY]: f.key,
      Name: cut(f.key, NAME_LENGTH),
      ObjectName__c: cut(f.object, 40),
      StatusCode__c: cut(error.code, 80),
      Message__c: cutLine(redact(error.message), SHORT_TEXT),
      Fields__c: error.fields?.length ? cut(error.fields.join(', '), SHORT_TEXT) : null,
      Attempts__c: (prev?.attempts ?? 0) + 1,
      LastFailedAt__c: now,
      RetryRequested__c: false,
      ...(prev === undefined ? { Status__c: 'Open', FirstFailedAt__c: now, ResolvedAt__c: null } : {}),
      ...run,
    });
  }
  let resolved = 0;
  for (const [lower, e] of open) {
    if (byKey.has(lower)) continue;
    const o = outcomes.outcomeOf(e.key);
    if (o === undefined || !RESOLVING.has(o.action)) continue;
    if (o.action === 'skip' && e.status === 'Open' && e.retryRequested) {
      // A ticked retry that wrote nothing (the record is not on the platform, or a rule skips
      // it) did not fix the error: unticked and Ignored, with why, never Resolved.
      const why = `retry: nothing to sync (${o.reason ?? 'skipped by a rule'})`;
      byKey.set(lower, { [ERROR_KEY]: e.key, Status__c: 'Ignored', Message__c: cutLine(why, SHORT_TEXT), RetryRequested__c: false, ...run });
      continue;
    }
    resolved++;
    byKey.set(lower, { [ERROR_KEY]: e.key, Status__c: 'Resolved', ResolvedAt__c: now, RetryRequested__c: false, ...run });
  }
  for (const [lower, e] of open) {
    const end = byKey.has(lower) || e.status !== 'Open' || !e.retryRequested ? undefined : retryEnd(e.key, outcomes);
    if (end !== undefined) byKey.set(lower, { [ERROR_KEY]: e.key, ...end.status, Message__c: cutLine(end.why, SHORT_TEXT), RetryRequested__c: false, ...run });
  }
  return { records: [...byKey.values()], opened, resolved };
}

/**
 * How a ticked key's retry ended when the key itself got no outcome though this run synced the
 * record it belongs to (a question's action): it names no record of the site now (a removed
 * question: Ignored), or that record failed (its own error says why; the retry was made). Undefined
 * while that record was not synced here (the retry then waits).
 */
function retryEnd(key: string, outcomes: RunOutcomes): { status: { Status__c?: 'Ignored' }; why: string } | undefined {
  const ref = canonicalRefOfKey(key);
  if (ref === undefined || outcomes.outcomeOf(key) !== undefined) return undefined;
  const parent = outcomes.outcomeOf(keyFor(ref.type, ref.id));
  const name = `${ref.type} ${ref.id}`;
  if (parent?.action === 'fail') return { status: {}, why: `retry: not synced: ${name} failed (its own error record says why)` };
  if (parent === undefined || !RESOLVING.has(parent.action)) return undefined;
  const ignored = { Status__c: 'Ignored' as const };
  if (parent.action === 'skip') return { status: ignored, why: `retry: nothing to sync (${name} was skipped: ${parent.reason ?? 'by a rule'})` };
  return { status: ignored, why: `retry: not on the platform any more (${name} has no such question); nothing to sync` };
}

/** Keys an admin asked to retry: Open errors with the box ticked (Ignored ones never). */
export function retryKeys(open: ReadonlyMap<string, StoredError>): string[] {
  return [...open.values()].filter((e) => e.status === 'Open' && e.retryRequested).map((e) => e.key);
}
