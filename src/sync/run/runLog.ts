/**
 * What sync/ hands the sync log at the end of a run, as it hands the report (issue 30): the run's
 * facts as a run record, its outcomes for the error records; the retry checkbox as one more
 * source of refs; and the daily retention. A log that cannot be written never changes the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SyncLogSettings } from '../../config/settings.js';
import { ApiLimitError, EXIT, InterruptedError, OrgSetupError, SalesforceAuthError, SalesforceError, describeError, type ExitCode } from '../../model/errors.js';
import type { ObjectRef } from '../../model/objects.js';
import { canonicalRefOfKey } from '../../model/refs.js';
import { echo } from '../../config/echo.js';
import type { LogResult, LoggedCommand, RunOutcomeName, SyncLogPort } from '../../model/syncLog.js';
import type { RunReport } from '../report/report.js';
import { writePrivateFile } from '../../model/privateFile.js';

/** The run record's Outcome__c, from the exit code table and what ended the run. */
function outcomeName(r: { status: ExitCode; stopped: unknown; written: number }): RunOutcomeName {
  if (r.stopped instanceof InterruptedError) return 'Interrupted';
  if (r.status === EXIT.OK) return 'Succeeded';
  // A run stopped at an object the org refuses every write of has run, and failed: not refused at the door.
  if (r.status === EXIT.USAGE) return r.stopped instanceof OrgSetupError ? 'Failed' : 'Refused';
  // Exit 1 with nothing stopping the run: some records failed, the others stand (written or unchanged).
  if (r.status === EXIT.PARTIAL && r.stopped === undefined) return 'Partial';
  return r.stopped !== undefined || r.written === 0 ? 'Failed' : 'Partial';
}

export interface RunFacts {
  command: LoggedCommand;
  startedAt: Date;
  status: ExitCode;
  stopped: unknown;
  report: RunReport;
  deleted?: number;
  platformRequests: number;
  salesforceCalls: number;
  summary: string;
  redact: (text: string) => string;
}

/** A run key unique across machines: the command, its start, and a random tail. */
const runKeyOf = (command: string, startedAt: Date): string => `${command}-${startedAt.toISOString()}-${Math.random().toString(36).slice(2, 10)}`;

/** Writes the run record and its error records; whatever goes wrong comes back as an answer. */
export async function logRun(log: SyncLogPort, f: RunFacts): Promise<LogResult> {
  const counts = { inserted: 0, updated: 0, unchanged: 0, failed: 0, deleted: f.deleted ?? 0 };
  for (const c of f.report.summary.values()) {
    counts.inserted += c.inserted;
    counts.updated += c.updated;
    counts.unchanged += c.unchanged;
    counts.failed += c.failed;
  }
  const run = {
    key: runKeyOf(f.command, f.startedAt),
    command: f.command,
    startedAt: f.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    outcome: outcomeName({ status: f.status, stopped: f.stopped, written: f.report.written }),
    counts,
    platformRequests: f.platformRequests,
    salesforceCalls: f.salesforceCalls,
    summary: f.redact(f.summary),
  };
  const failures = f.report.failures();
  try {
    return await log.record(run, { failures, outcomeOf: (key) => f.report.outcomeOf(key) }, f.redact);
  } catch (err) {
    return { status: 'failed', calls: log.calls(), message: describeError(err, f.redact) };
  }
}

/** Refs of the Open errors an admin ticked RetryRequested__c on (a question's key gives its action). */
export async function retryRefs(log: SyncLogPort): Promise<{ refs: ObjectRef[]; ignored?: ReadonlySet<string>; result?: LogResult; refused?: string }> {
  let read;
  try {
    read = await log.retryRequested();
  } catch (err) {
    return { refs: [], result: { status: 'failed', calls: log.calls(), message: describeError(err) } };
  }
  if ('result' in read) return { refs: [], result: read.result };
  const refs = new Map<string, ObjectRef>();
  const refused: Array<{ key: string; reason: string }> = [];
  for (const key of read.keys) {
    // Only a key as svc-sync writes it: a hand-made one would be fetched for ever and never resolved.
    const ref = canonicalRefOfKey(key);
    if (ref) refs.set(`${ref.type}:${ref.id}`, ref);
    else refused.push({ key, reason: `retry refused: not a key svc-sync writes (${echo(key, 120)}); a key is an object's name, "_" and its platform id, as in Donation_123` });
  }
  await log.refuseRetries(refused);
  // Said where the run is read too, not only in the org.
  const said =
    refused.length === 0
      ? {}
      : {
          refused: `salesforce log: ${refused.length} Retry Requested refused and unticked: not a key svc-sync writes (${refused
            .map((r) => echo(r.key, 40))
            .slice(0, 3)
            .join(', ')}${refused.length > 3 ? ', ...' : ''})`,
        };
  return { refs: [...refs.values()], ignored: new Set(read.ignored.map((k) => k.toLowerCase())), ...said };
}

/**
 * Whether a run that stopped on `stopped` can still write to Salesforce: not after a refused login,
 * the daily allowance used up, or Salesforce out of reach (that stays in the local output).
 */
export function salesforceReachable(stopped: unknown): boolean {
  if (stopped instanceof SalesforceAuthError || stopped instanceof ApiLimitError) return false;
  // Nothing answered, or what answers is not Salesforce's API: no log can be written there.
  return !(stopped instanceof SalesforceError && (stopped.code === 'NETWORK_ERROR' || stopped.code === 'NOT_SALESFORCE_API'));
}

/** One line for a person about the log, or none when it was written as it should be. */
export function logNote(r: LogResult | undefined): string | undefined {
  if (r === undefined) return undefined;
  if (r.status === 'missing') return `salesforce log: ${r.message}`;
  if (r.status === 'failed') return `salesforce log: not written (${r.message}); the run's own outcome stands`;
  if (r.status !== 'written') return undefined;
  const lacking = r.lacking === undefined ? undefined : `salesforce log: ${r.lacking}`;
  if (r.runWritten && r.failedErrors === 0) return lacking;
  const refused = [...(r.runWritten ? [] : ['the run record']), ...(r.failedErrors > 0 ? [`${r.failedErrors} error record(s)`] : [])];
  return [lacking, `salesforce log: the org refused ${refused.join(' and ')}; the run's own outcome stands`].filter((l) => l !== undefined).join('\n');
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** SOQL datetime literal: whole seconds, UTC. */
const soqlTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Retention, at most once a day: the last time is kept in a small file beside the state file (a
 * lost file only means one more clean-up). Resolved errors and runs past their days are deleted.
 */
export async function retentionIfDue(log: SyncLogPort, settings: SyncLogSettings, stateFile: string, now = Date.now()): Promise<{ deleted: number; calls: number; kept?: string } | undefined> {
  const file = path.join(path.dirname(stateFile), 'salesforce-log.json');
  let last = 0;
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { retentionAt?: unknown };
    if (typeof data.retentionAt === 'string') last = Date.parse(data.retentionAt) || 0;
  } catch {
    // No file (a first run, a fresh machine): the clean-up is due.
  }
  if (now - last < DAY_MS) return undefined;
  const done = await log.retention(soqlTime(now - settings.errorRetentionDays * DAY_MS), soqlTime(now - settings.runRetentionDays * DAY_MS));
  writePrivateFile(file, `${JSON.stringify({ retentionAt: new Date(now).toISOString() })}\n`);
  return { deleted: done.deleted, calls: done.calls, ...(done.kept === undefined ? {} : { kept: done.kept }) };
}
