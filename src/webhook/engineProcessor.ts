/**
 * The worker's BatchProcessor over the real engine: each claimed batch of refs becomes one
 * SyncEngine run (syncRefs), and every ref gets the outcome the engine reported for it.
 *
 * Fresh per batch: the engine (its run cache) and the platform source (its record cache), so a
 * donation announced again after its batch is fetched again (it may now carry the paid status).
 * Kept across batches: the Salesforce connection and the platform client, so the rate-limit
 * pacer keeps what it learned from the API's headers.
 *
 * No sync logic lives here: this file translates between the worker's and the engine's words.
 */
import type { Settings } from '../config/settings.js';
import { ApiLimitError, SalesforceAuthError } from '../crm/errors.js';
import { SalesforceSink } from '../crm/sink.js';
import type { CrmCallCounts, CrmSink } from '../crm/types.js';
import type { SharedBudget } from '../platform/rateLimit.js';
import { keyFor } from '../mapping/map.js';
import type { ObjectRef } from '../mapping/objects.js';
import { PlatformClient } from '../platform/client.js';
import { PlatformError } from '../platform/errors.js';
import type { PlatformHooks } from '../platform/http.js';
import { PlatformSource } from '../platform/source.js';
import { SyncEngine } from '../sync/engine.js';
import type { RecordSource } from '../sync/ports.js';
import type { RunReport } from '../sync/report.js';
import type { OwnerPair } from './queue.js';
import type { BatchHints, BatchProcessor, ProcessOutcome, ProcessResult } from './worker.js';

export interface EngineDeps {
  source: RecordSource;
  sink: CrmSink;
}

/**
 * Called once per batch. The source it returns must be fresh (or at least hold no cached records
 * of earlier batches), or a re-sent donation would be served from that cache instead of fetched.
 */
export type EngineDepsFactory = () => EngineDeps | Promise<EngineDeps>;

export interface EngineProcessorOptions {
  /** Records of one type that go through the engine together (default 500, the worker's batch size). */
  batchSize?: number;
  /** Write records even when Salesforce already holds the same values. */
  force?: boolean;
  /** Skip children whose parent cannot be found instead of writing them unlinked. */
  strictParents?: boolean;
  /** Settings form only: rate-limit waits and retries of the platform client. */
  platformHooks?: PlatformHooks;
  /** Settings form only: the platform budget shared with other receivers on the same key. */
  sharedBudget?: SharedBudget;
  /** After each batch, with the engine's report and the Salesforce calls it made (logging, benches, metrics). */
  onBatch?: (info: { refs: number; report: RunReport; crmCalls: CrmCallCounts; error?: unknown }) => void;
}

export const DEFAULT_ENGINE_BATCH_SIZE = 500;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Errors after which no ref of the batch can be trusted to succeed: a wrong API key, a failed
 * Salesforce login, the org's daily allowance used up. The whole batch is failed so its events
 * stay queued and come back with the queue's backoff.
 */
export function isFatal(error: unknown): boolean {
  return (error instanceof PlatformError && error.fatal) || error instanceof SalesforceAuthError || error instanceof ApiLimitError;
}

/**
 * Deps from settings: one Salesforce sink (connected on first use, a failed connection retried on
 * the next batch) and one platform client; a new PlatformSource over that client per batch.
 */
function depsFromSettings(settings: Settings, hooks: PlatformHooks | undefined, shared: SharedBudget | undefined): EngineDepsFactory {
  const client = new PlatformClient(settings.platform, { hooks: hooks ?? {}, ...(shared === undefined ? {} : { sharedBudget: shared }) });
  let sink: Promise<SalesforceSink> | undefined;
  return async () => {
    sink ??= SalesforceSink.connect(settings.salesforce).catch((error: unknown) => {
      sink = undefined;
      throw error;
    });
    client.resume();
    return { source: new PlatformSource(client, settings.platform.listIdsOnly), sink: await sink };
  };
}

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

export function createEngineProcessor(deps: EngineDepsFactory | Settings, opts: EngineProcessorOptions = {}): BatchProcessor {
  const factory = typeof deps === 'function' ? deps : depsFromSettings(deps, opts.platformHooks, opts.sharedBudget);
  const batchSize = opts.batchSize ?? DEFAULT_ENGINE_BATCH_SIZE;

  return {
    async process(refs: ObjectRef[], hints: BatchHints = {}): Promise<ProcessResult> {
      const failAll = (error: unknown): ProcessResult => ({ outcomes: refs.map((ref) => ({ ref, status: 'failed', reason: messageOf(error) })) });

      let engine: SyncEngine;
      let sink: CrmSink;
      let callsBefore: CrmCallCounts;
      try {
        const deps = await factory();
        sink = deps.sink;
        callsBefore = sink.calls();
        const { source } = deps;
        engine = new SyncEngine(source, sink, { dryRun: false, force: Boolean(opts.force), strictParents: Boolean(opts.strictParents), batchSize });
      } catch (error) {
        // No connection: nothing was attempted, every event stays queued.
        return failAll(error);
      }

      let stopped: unknown;
      try {
        await engine.syncRefs(refs, hints.changedSince === undefined ? {} : { changedSince: hints.changedSince });
      } catch (error) {
        stopped = error;
      }
      if (opts.onBatch !== undefined) {
        const after = sink.calls();
        const crmCalls = { ...after };
        for (const k of Object.keys(after) as Array<keyof CrmCallCounts>) crmCalls[k] = Math.max(0, after[k] - callsBefore[k]);
        opts.onBatch({ refs: refs.length, report: engine.report, crmCalls, ...(stopped === undefined ? {} : { error: stopped }) });
      }
      const owners: OwnerPair[] = engine.owners.map((p) => ({ userId: p.userId, actionId: p.actionId }));

      if (stopped !== undefined && isFatal(stopped)) return { outcomes: failAll(stopped).outcomes, owners };
      // A run that stopped on another error keeps what it finished; the rest is retried.
      const fallback = stopped === undefined ? 'the engine reported no outcome for this record' : `the run stopped before this record: ${messageOf(stopped)}`;
      return { outcomes: refs.map((ref) => outcomeFor(ref, engine.report, fallback)), owners };
    },
  };
}
