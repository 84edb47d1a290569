/** `sync`'s work, loaded when the command runs (sync.ts declares it). */
import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { SYNC_ORDER } from '../../model/objects.js';
import { firstScan, planIncremental, runIncremental, type Scope } from '../../sync/mirror/incremental.js';
import { StateFile } from '../../sync/run/state.js';
import { requirePlatformApi } from '../../sync/compose.js';
import { platformSettings, salesforceSettings } from '../../config/load.js';
import { DEFAULT_SYNC_LOG } from '../../config/settings.js';
import { retentionIfDue, retryRefs } from '../../sync/run/runLog.js';
import type { GlobalOptions } from '../globals.js';
import { runCommand, type CommandContext, type SetExit } from '../runner.js';
import { runEngine } from '../runEngine.js';
import { keyShown, rowsShown } from '../render/shownKeys.js';
import type { SyncOptions } from './sync.js';

/**
 * The state file of this run: --state, or state.json in the connection's state folder. One --state
 * for several connections would make each take over the other's progress: refused.
 */
function stateFileOf(ctx: CommandContext, given: string | undefined): string {
  if (given !== undefined && ctx.deployment.connections.length > 1 && ctx.deployment.top.SVC_CONNECTION === undefined) {
    throw new ConfigError('--state: one state file for several connections would mix their progress; give --connection NAME with it');
  }
  return given ?? path.join(ctx.connection.stateDir, 'state.json');
}

export async function syncAction(opts: SyncOptions, c: Command, setExit: SetExit): Promise<void> {
  const types = opts.types ?? [...SYNC_ORDER];
  const globals = c.optsWithGlobals<GlobalOptions>();
  const scope: Scope = opts.all ? { kind: 'all' } : opts.since !== undefined ? { kind: 'since', since: opts.since } : { kind: 'continue' };
  await runCommand(
    c,
    setExit,
    (ctx) => {
      const stateFile = stateFileOf(ctx, opts.state);
      let planned: ReturnType<typeof planIncremental> | undefined;
      return runEngine(ctx, {
        fix: 'the next sync retries the failed records by id; --report FILE lists them',
        command: 'sync',
        opts,
        stateFile,
        // Read once this run holds the state (a run it waited for has saved its own by then), and
        // after the settings are checked: missing settings are named before any watermark.
        prepare: () => {
          planned = planIncremental(new StateFile(stateFile), scope, types, globals.dryRun);
        },
        body: async (engine, deps) => {
          const plan = planned as ReturnType<typeof planIncremental>;
          // A full run is the repair path: the projection is compared with the org, not the digests.
          if (scope.kind === 'all') deps.gifts?.compareEveryDonation();
          // Said once the settings are valid and the connections made: a run that cannot start resumes nothing.
          if (plan.resumed) ctx.out.info(`resuming the run started ${plan.run.startedAt} (done: ${plan.run.completed.join(', ') || 'nothing yet'})`);
          // A wrong base URL would make every list look empty or every record deleted: stop first (exit 2).
          // The check is the first page of the first scan, kept for it: no request of its own.
          const first = firstScan(plan);
          if (first !== undefined && deps.source.openScan !== undefined) await deps.source.openScan(first.type, first.filter);
          else await requirePlatformApi(platformSettings(ctx.raw));
          // The records an admin ticked RetryRequested__c on in the org: synced by id with the retries.
          const retry = deps.log ? await retryRefs(deps.log) : undefined;
          const requested = retry?.refs ?? [];
          if (retry?.refused !== undefined) engine.report.warn(retry.refused);
          const done = await runIncremental(engine, plan, deps.sink, requested, retry?.ignored);
          // Not when the log cannot be read (the objects missing): the run says so once, at its end.
          const logReady = deps.log !== undefined && retry?.result === undefined;
          const retention = logReady ? await retentionIfDue(deps.log!, salesforceSettings(ctx.raw).log ?? DEFAULT_SYNC_LOG, stateFile).catch(() => undefined) : undefined;
          // A shared org whose log cannot tell the sites' runs apart: none deleted, said with the fix (once a day, as the clean-up).
          if (retention?.kept !== undefined) ctx.out.info(retention.kept);
          // Orphan candidates named as the org holds them (site-qualified with SVC_SITE_KEYS), as audit names them.
          const shown = keyShown(salesforceSettings(ctx.raw).siteKeys);
          const candidates = done.orphanCandidates === undefined ? {} : { orphanCandidates: rowsShown(done.orphanCandidates, shown) };
          return { ...done, ...candidates, retryRequested: requested.length, ...(retention ? { logRetention: retention } : {}) };
        },
      });
    },
    { connections: 'each' },
  );
}
