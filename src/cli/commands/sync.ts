import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { SYNC_ORDER, parseObjectType, type SyncableType } from '../../model/objects.js';
import { firstScan, planIncremental, runIncremental, type Scope } from '../../sync/incremental.js';
import { StateFile } from '../../sync/run/state.js';
import { requirePlatformApi } from '../../sync/compose.js';
import { platformSettings, salesforceSettings } from '../../config/load.js';
import { DEFAULT_SYNC_LOG } from '../../config/settings.js';
import { retentionIfDue, retryRefs } from '../../sync/run/runLog.js';
import { echo } from '../../config/echo.js';
import { CRON_RECIPE, type GlobalOptions } from '../globals.js';
import { runCommand, type CommandContext, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runEngine.js';
import { addRunOptions } from './runOptions.js';
import { optionRules, parsedOption } from './optionRules.js';
import { helpAfter } from '../helpText.js';

/** As commander hands them over, parsed (optionRules.ts). */
interface SyncOptions extends RunOptions {
  /** ISO 8601, normalised to UTC. */
  since?: string;
  all?: boolean;
  types?: SyncableType[];
  state?: string;
}

export function parseTypes(list: string): SyncableType[] {
  const out: SyncableType[] = [];
  for (const word of list
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)) {
    const t = parseObjectType(word);
    if (!t) throw new ConfigError(`--types: unknown object type ${echo(word)}`);
    if (!out.includes(t)) out.push(t);
  }
  if (out.length === 0) throw new ConfigError('--types: give at least one object type');
  return out;
}

function parseSince(since: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(since) || Number.isNaN(Date.parse(since))) {
    throw new ConfigError(`--since ${echo(since)}: not an ISO 8601 date or date-time`);
  }
  return new Date(Date.parse(since)).toISOString();
}

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

export function syncCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('sync')
    .description('backfill or incremental sync from list scans, resumable; for cron')
    .addOption(parsedOption('--since <iso8601>', 'sync records updated after this time', parseSince))
    .option('--all', 'sync every record (a backfill)')
    .addOption(parsedOption('--types <list>', `comma-separated object types (default: all, in order ${SYNC_ORDER.join(', ')})`, parseTypes))
    .option('--state <path>', "state file for resume and watermark (default: state.json in the connection's state folder, .svc-sync/)")
    .addHelpText(
      'after',
      helpAfter({
        prose: [
          "Without --since or --all, continues from each type's watermark (the start of the last completed run that scanned it); an interrupted run with the same scope resumes where it stopped; records that failed are synced again by id next time.",
        ],
        examples: ['svc-sync sync --all', 'svc-sync sync --since 2026-11-01T00:00:00Z --types donations', CRON_RECIPE],
      }),
    );
  optionRules(addRunOptions(cmd), [{ kind: 'excludes', flag: '--since', other: '--all' }]).action(async (opts: SyncOptions, c: Command) => {
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
            return { ...done, retryRequested: requested.length, ...(retention ? { logRetention: retention } : {}) };
          },
        });
      },
      { connections: 'each' },
    );
  });
}
