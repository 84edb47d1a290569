/**
 * The worker's BatchProcessor over the real engine: each claimed batch of refs becomes one
 * SyncEngine run (syncRefs), and every ref gets the outcome the engine reported for it.
 *
 * Fresh per batch: the engine (its run cache) and the platform source (its record cache), so a
 * donation announced again after its batch is fetched again (it may now carry the paid status).
 * Kept across batches: the Salesforce connection and the platform client, so the rate-limit
 * pacer keeps what it learned from the API's headers; and which user each action this process
 * wrote took its owner fields from, so a later batch need not read that user again (keptOwners).
 *
 * No sync logic lives here: this file translates between the worker's and the engine's words.
 */
import { EXIT, isFatal, messageOf } from '../../model/errors.js';
import type { ObjectRef } from '../../model/objects.js';
import { keyFor } from '../../model/refs.js';
import type { CrmCallCounts } from '../../model/crmRecords.js';
import type { OwnedActions } from '../../model/outcomes.js';
import type { Deps, SyncEngine } from '../../sync/compose.js';
import type { ConnectionComposition } from '../../sync/connection.js';
import { actionsByOwnerEmail } from '../../sync/mirror/ownerActions.js';
import type { OwnerIds } from '../../sync/mirror/ownerIds.js';
import type { OwnerFingerprint } from '../../sync/mirror/ownerFields.js';
import type { RunReport } from '../../sync/report/report.js';
import { logNote, logRun, retryRefs, salesforceReachable } from '../../sync/run/runLog.js';
import type { LogRetention } from './logRetention.js';
import { WEBHOOK_BATCH_SIZE, type BatchHints, type BatchProcessor, type ProcessOutcome, type ProcessResult } from './worker.js';

interface EngineProcessorOptions {
  /** Records of one type that go through the engine together (default 500, the worker's batch size). */
  batchSize?: number | undefined;
  /** Write records even when Salesforce already holds the same values. */
  force?: boolean | undefined;
  /** Skip children whose parent cannot be found instead of writing them unlinked. */
  strictParents?: boolean | undefined;
  /** After each batch, with the engine's report and the Salesforce calls it made (logging, benches, metrics). */
  onBatch?: ((info: { refs: number; report: RunReport; crmCalls: CrmCallCounts; error?: unknown }) => void) | undefined;
  /**
   * The deployment's masker: every reason (kept in the queue, shown on the status page, logged) and
   * the org's log records go through it, as a command's output does.
   */
  redact?: ((text: string) => string) | undefined;
  /** The sync log's daily clean-up (logRetention.ts): started once a batch or a retry poll found the log there. */
  retention?: LogRetention | undefined;
}

/** What this process wrote to an action's owner fields: from which user, and the values (ownerFields.ts). */
interface WrittenOwner {
  userId: number;
  fields: OwnerFingerprint;
}

/**
 * Remembers, per action of the batch, what Salesforce now holds in its owner fields: only for an
 * action written (or found unchanged) whose owner was read or kept; any other action of the batch
 * is forgotten, so its next batch reads its owner again.
 */
function rememberOwners(engine: SyncEngine, wrote: Map<number, WrittenOwner>, unread: Set<number>): void {
  const settled = new Set(engine.ownersSettled().map((s) => s.userId));
  for (const pair of engine.ownersSeen()) {
    wrote.delete(pair.actionId);
    // A user the batch could not read (a 404, a failure): Salesforce's copy of its fields may
    // miss the change its users.update brought, so it is read until a batch manages to.
    if (settled.has(pair.userId)) unread.delete(pair.userId);
    else if (unread.size < MAX_OWNERS_KEPT) unread.add(pair.userId);
  }
  for (const s of engine.ownersSettled()) {
    const action = engine.report.outcomeOf(keyFor('action', s.actionId))?.action;
    if (action === 'insert' || action === 'update' || action === 'unchanged') wrote.set(s.actionId, { userId: s.userId, fields: s.fields });
  }
  // Bounded: a long-running receiver on a large site forgets the oldest (their owners are read again).
  for (const id of wrote.keys()) {
    if (wrote.size <= MAX_OWNERS_KEPT) break;
    wrote.delete(id);
  }
}

/** Actions whose owner fields a receiver remembers (about 200 bytes each: at most ~20 MB). */
const MAX_OWNERS_KEPT = 100_000;

/** What the worker learns from the engine's outcome for one ref. */
function outcomeFor(ref: ObjectRef, report: RunReport, fallback: string): ProcessOutcome {
  const o = report.outcomeOf(keyFor(ref.type, ref.id));
  if (o === undefined) return { ref, status: 'failed', reason: fallback };
  switch (o.action) {
    case 'insert':
    case 'update':
    case 'unchanged':
      return { ref, status: 'done' };
    case 'skip':
      return { ref, status: 'skipped', reason: o.reason ?? 'skipped by the engine' };
    case 'fail':
      return { ref, status: 'failed', reason: o.reason ?? 'failed without a reason' };
  }
}

interface BatchFacts {
  refs: number;
  report: RunReport;
  stopped: unknown;
  startedAt: Date;
  platformRequests: number;
  salesforceCalls: number;
  redact: (text: string) => string;
}

/** An outcome's reason masked: it is kept in the queue and shown on the status page. */
const masked = (o: ProcessOutcome, redact: (text: string) => string): ProcessOutcome => (o.reason === undefined ? o : { ...o, reason: redact(o.reason) });

/** The batch's run record and error records in the org, when the log is on (then the day's clean-up, when due); a line to say, if any. */
async function logBatch(deps: Deps, f: BatchFacts, retention: LogRetention | undefined): Promise<{ text: string; missing: boolean } | undefined> {
  if (deps.log === undefined || !salesforceReachable(f.stopped)) return undefined;
  const { report, stopped } = f;
  const status = stopped === undefined && report.failed === 0 ? EXIT.OK : EXIT.PARTIAL;
  const summary = `serve batch: ${f.refs} record(s); ${report.written} written, ${report.failed} failed${stopped === undefined ? '' : `; stopped: ${messageOf(stopped)}`}`;
  const logged = await logRun(deps.log, {
    command: 'serve',
    startedAt: f.startedAt,
    status,
    stopped,
    report,
    platformRequests: f.platformRequests,
    salesforceCalls: f.salesforceCalls,
    summary,
    redact: f.redact,
  });
  // The day's clean-up beside the next batches, never awaited by this one: the log is there (not
  // after a stopped batch: a serve stopping starts nothing new).
  if (logged.status === 'written' && stopped === undefined) retention?.due(deps.log);
  const text = logNote(logged);
  return text === undefined ? undefined : { text, missing: logged.status === 'missing' };
}

/** What a receiver keeps of owners across batches (createEngineProcessor). */
interface OwnerMemory {
  /**
   * Action -> the user whose fields this process wrote to it, and what it wrote. A user's later
   * change comes as a users.update, which re-syncs the actions the queue's owners table holds for
   * it (this batch's owners are recorded there), so until one is in a batch, owner fields that
   * still hold what was written are that user's: the engine keeps them instead of reading the user.
   */
  wrote: Map<number, WrittenOwner>;
  /** Users a batch met as an owner and could not read: never kept from the mirror until read. */
  unread: Set<number>;
  /** Whose fields each action's owner fields hold (sync's and serve's record, beside the profile). */
  ids: OwnerIds;
}

/** What a batch's engine wrote to owner fields, kept in memory and in the owner ids file. */
function rememberBatchOwners(engine: SyncEngine, owners: OwnerMemory): void {
  rememberOwners(engine, owners.wrote, owners.unread);
  owners.ids.record(engine).save();
}

/** The batch's engine, told which owner fields it may keep instead of reading the owner again. */
function batchEngine(connection: ConnectionComposition, deps: Deps, opts: EngineProcessorOptions, batchSize: number, hints: BatchHints, owners: OwnerMemory): SyncEngine {
  const changedUsers = new Set([...(hints.changedUsers ?? []), ...(hints.ownersToFind ?? [])]);
  const keptOwner = (actionId: number, userId: number): OwnerFingerprint | undefined => {
    const w = owners.wrote.get(actionId);
    return w !== undefined && w.userId === userId && !changedUsers.has(userId) ? w.fields : undefined;
  };
  // A user's change reaches serve as a users.update: until one is in a batch, owner fields
  // Salesforce holds under the same owner are that user's (DesiredState's ownerFromMirror).
  // What sync (beside this serve) recorded since is read first.
  owners.ids.refresh();
  const ownerFromMirror = (actionId: number, userId: number): boolean => !changedUsers.has(userId) && !owners.unread.has(userId) && owners.ids.get(actionId) === userId;
  return connection.engine(deps, { dryRun: false, force: Boolean(opts.force), strictParents: Boolean(opts.strictParents), batchSize, keptOwner, ownerFromMirror });
}

interface BatchRun {
  /** The refs synced: the batch's, and the actions of the owners it was asked to find. */
  synced: ObjectRef[];
  ownersFound: OwnedActions | undefined;
  /** What stopped the run, if anything did. */
  stopped: unknown;
}

/** Finds the owners' actions the hints ask for, then syncs them with the batch's refs; an error stops the run. */
async function syncBatch(deps: Deps, engine: SyncEngine, refs: ObjectRef[], hints: BatchHints): Promise<BatchRun> {
  let stopped: unknown;
  let ownersFound: OwnedActions | undefined;
  const synced = [...refs];
  try {
    if (hints.ownersToFind !== undefined && hints.ownersToFind.length > 0) {
      ownersFound = await actionsByOwnerEmail(deps.source, deps.sink, hints.ownersToFind);
      for (const found of ownersFound.values()) if ('actions' in found) synced.push(...found.actions.map((id) => ({ type: 'action' as const, id })));
    }
    const { changedSince, changedSinceByType } = hints;
    await engine.syncRefs(synced, { ...(changedSince === undefined ? {} : { changedSince }), ...(changedSinceByType === undefined ? {} : { changedSinceByType }) });
  } catch (error) {
    stopped = error;
  }
  return { synced, ownersFound, stopped };
}

/** The Salesforce calls made since `before`: the sink lives across batches, its counts run on. */
function callsSince(after: CrmCallCounts, before: CrmCallCounts): CrmCallCounts {
  const calls = { ...after };
  for (const k of Object.keys(after) as Array<keyof CrmCallCounts>) calls[k] = Math.max(0, after[k] - before[k]);
  return calls;
}

/**
 * Failures after which no ref of the batch can be trusted to succeed (the model's table: a wrong
 * API key, a failed Salesforce login, the org's daily allowance used up) fail the whole batch, so
 * its events stay queued and come back with the queue's backoff.
 */
export function createEngineProcessor(connection: ConnectionComposition, opts: EngineProcessorOptions = {}): BatchProcessor {
  const { deps: factory, admitOrg, onNote } = connection;
  const batchSize = opts.batchSize ?? WEBHOOK_BATCH_SIZE;
  const redact = opts.redact ?? ((t: string) => t);
  const reasonOf = (error: unknown): string => redact(messageOf(error));
  /** The last batch's deps: their client carries the platform's latest budget figures. */
  let last: Deps | undefined;
  /** The sync log's objects missing from the org is said once, not at every batch. */
  let missingSaid = false;
  /** Why the last batch could do nothing (BatchProcessor.paused). */
  let pausedBy: string | undefined;
  const owners: OwnerMemory = { wrote: new Map(), unread: new Set(), ids: connection.ownerIds };

  return {
    budget() {
      return last === undefined ? undefined : connection.budget(last);
    },
    paused() {
      return pausedBy;
    },
    async retryRequested() {
      const deps = await factory();
      admitOrg?.(deps.org);
      if (deps.log === undefined) return [];
      const retry = await retryRefs(deps.log);
      if (retry.refused !== undefined) onNote?.(retry.refused);
      // The log read: an idle serve does the day's clean-up too.
      if (retry.result === undefined) opts.retention?.due(deps.log);
      return retry.refs;
    },
    async process(refs: ObjectRef[], hints: BatchHints = {}): Promise<ProcessResult> {
      const failAll = (error: unknown): ProcessResult => ({ outcomes: refs.map((ref) => ({ ref, status: 'failed', reason: reasonOf(error) })) });

      let engine: SyncEngine;
      let deps: Deps;
      let callsBefore: CrmCallCounts;
      try {
        deps = await factory();
        admitOrg?.(deps.org);
        callsBefore = deps.sink.calls();
        engine = batchEngine(connection, deps, opts, batchSize, hints, owners);
      } catch (error) {
        // No connection: nothing was attempted, every event stays queued.
        pausedBy = reasonOf(error);
        return failAll(error);
      }

      last = deps;
      const startedAt = new Date();
      // The client is shared across batches: its counts run on, so the batch's share is the difference.
      const before = deps.source.requests().total;
      const { synced, ownersFound, stopped } = await syncBatch(deps, engine, refs, hints);
      rememberBatchOwners(engine, owners);
      if (opts.onBatch !== undefined) {
        const crmCalls = callsSince(deps.sink.calls(), callsBefore);
        opts.onBatch({ refs: refs.length, report: engine.report, crmCalls, ...(stopped === undefined ? {} : { error: stopped }) });
      }
      const seen = engine.ownersSeen();
      const requests = deps.source.requests().total - before;
      // Each batch is a run in the org's sync log; its failure never fails the batch.
      const salesforceCalls = deps.sink.calls().total - callsBefore.total;
      const note = await logBatch(deps, { refs: refs.length, report: engine.report, stopped, startedAt, platformRequests: requests, salesforceCalls, redact }, opts.retention);
      if (note !== undefined && !(note.missing && missingSaid)) onNote?.(note.text);
      if (note?.missing) missingSaid = true;

      pausedBy = stopped !== undefined && isFatal(stopped) ? reasonOf(stopped) : undefined;
      if (stopped !== undefined && isFatal(stopped)) return { outcomes: failAll(stopped).outcomes, owners: seen, requests };
      // A run that stopped on another error keeps what it finished; the rest is retried.
      const fallback = stopped === undefined ? 'the engine reported no outcome for this record' : `the run stopped before this record: ${messageOf(stopped)}`;
      const outcomes = [...new Map(synced.map((ref) => [keyFor(ref.type, ref.id), ref])).values()].map((ref) => masked(outcomeFor(ref, engine.report, fallback), redact));
      return { outcomes, owners: seen, requests, ...(ownersFound === undefined ? {} : { ownersFound }) };
    },
  };
}
