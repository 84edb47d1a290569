import type { Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { quote } from '../../config/quote.js';
import { platformSettings } from '../../config/load.js';
import { parseObjectType, type SyncableType } from '../../mapping/objects.js';
import { assertPlatformApi } from '../../platform/client.js';
import { SYNC_ORDER } from '../../sync/engine.js';
import { completedState, retriesDue, sameTypes, startingPoint, type Scope } from '../../sync/incremental.js';
import { StateFile, type RunProgress } from '../../sync/state.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext, runWithEngine, type RunOptions } from '../runSync.js';
import { addRunOptions } from './runOptions.js';

interface SyncOptions extends RunOptions {
  since?: string;
  all?: boolean;
  types?: string;
  state: string;
}

export const DEFAULT_STATE_FILE = '.svc-sync/state.json';

function parseTypes(list: string | undefined): SyncableType[] {
  if (list === undefined) return [...SYNC_ORDER];
  const out: SyncableType[] = [];
  for (const word of list.split(',').map((w) => w.trim()).filter(Boolean)) {
    const t = parseObjectType(word);
    if (!t) throw new ConfigError(`--types: unknown object type ${quote(word)}`);
    if (!out.includes(t)) out.push(t);
  }
  if (out.length === 0) throw new ConfigError('--types: give at least one object type');
  return out;
}

function parseSince(since: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(since) || Number.isNaN(Date.parse(since))) {
    throw new ConfigError(`--since ${quote(since)}: not an ISO 8601 date or date-time`);
  }
  return new Date(Date.parse(since)).toISOString();
}


export function syncCommand(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('sync')
    .description('backfill or incremental sync from list scans, resumable; for cron')
    .option('--since <iso8601>', 'sync records updated after this time')
    .option('--all', 'sync every record (a backfill)')
    .option('--types <list>', `comma-separated object types (default: all, in order ${SYNC_ORDER.join(',')})`)
    .option('--state <path>', 'state file for resume and watermark', DEFAULT_STATE_FILE)
    .addHelpText(
      'after',
      '\nWithout --since or --all, continues from each type\'s watermark (the start of the last completed run that scanned it);\nan interrupted run with the same scope resumes where it stopped; records that failed are synced again by id next time.\n\nExamples:\n  svc-sync sync --all\n  svc-sync sync --since 2026-11-01T00:00:00Z --types donations\n  */15 * * * *  cd /srv/svc-sync && svc-sync sync --json --quiet >> sync.log 2>&1',
    );
  addRunOptions(cmd).action(async (opts: SyncOptions, c: Command) => {
    if (opts.since !== undefined && opts.all) throw new ConfigError('--since and --all: give one of them, not both');
    const types = parseTypes(opts.types);
    const globals = c.optsWithGlobals<GlobalOptions>();
    const stateFile = new StateFile(opts.state);
    const state = stateFile.read();
    const scope: Scope = opts.all ? { kind: 'all' } : opts.since !== undefined ? { kind: 'since', since: parseSince(opts.since) } : { kind: 'continue' };
    const since = startingPoint(scope, state, types, opts.state);

    const ctx = commandContext(globals);
    // Resume only the same scope; a dry run neither resumes nor records progress.
    const resumable = !globals.dryRun && state.run !== undefined && state.run.since === since && sameTypes(state.run.types, types);
    const run: RunProgress = resumable && state.run ? state.run : { startedAt: new Date().toISOString(), since, types, completed: [], pagesDone: {} };
    if (resumable) ctx.out.info(`resuming the run started ${run.startedAt} (done: ${run.completed.join(', ') || 'nothing yet'})`);
    const save = (): void => {
      if (!globals.dryRun) stateFile.write({ ...state, run });
    };
    const code = await runWithEngine('sync', ctx, opts, async (engine) => {
      // A wrong base URL would make every list look empty or every record look deleted: stop first (exit 2).
      await assertPlatformApi(platformSettings(ctx.raw));
      // Recorded only now that settings and connections are good: a run that could not start leaves no progress behind.
      save();
      await engine.syncScan(types.filter((t) => !run.completed.includes(t)), since ? { updatedAfter: since } : {}, {
        // One page back: a record removed before the resume point would shift the pages.
        startPage: (t) => Math.max(1, run.pagesDone[t] ?? 1),
        pageDone: (t, page) => {
          run.pagesDone[t] = page;
          save();
        },
        typeDone: (t) => {
          run.completed.push(t);
          delete run.pagesDone[t];
          save();
        },
      });
      const again = retriesDue(state, types, engine.report);
      if (again.length > 0) await engine.syncRefs(again);
      const next = completedState(state, run, engine.report);
      if (!globals.dryRun) stateFile.write(next);
      const retryCount = next.retry?.length ?? 0;
      if (retryCount > 0) engine.report.warn(`${retryCount} record(s) failed and will be synced again by id on the next run`);
      const watermarks = globals.dryRun ? state.watermarks ?? {} : next.watermarks ?? {};
      return { since, types, watermarks, resumed: resumable, retried: again.length, retryNextRun: retryCount };
    });
    setExit(code);
  });
}
