import type { Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { keyFor, refOfKey } from '../../mapping/map.js';
import { parseObjectType, type ObjectRef, type SyncableType } from '../../mapping/objects.js';
import { SYNC_ORDER } from '../../sync/engine.js';
import { StateFile, watermarkFrom, type RunProgress } from '../../sync/state.js';
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
    if (!t) throw new ConfigError(`--types: unknown object type ${JSON.stringify(word)}`);
    if (!out.includes(t)) out.push(t);
  }
  if (out.length === 0) throw new ConfigError('--types: give at least one object type');
  return out;
}

function parseSince(since: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(since) || Number.isNaN(Date.parse(since))) {
    throw new ConfigError(`--since ${JSON.stringify(since)}: not an ISO 8601 date or date-time`);
  }
  return new Date(Date.parse(since)).toISOString();
}

const sameTypes = (a: SyncableType[], b: SyncableType[]): boolean => a.length === b.length && a.every((t) => b.includes(t));

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
      '\nWithout --since or --all, continues from the watermark of the last completed run; an interrupted run with the same\nscope resumes where it stopped.\n\nExamples:\n  svc-sync sync --all\n  svc-sync sync --since 2026-11-01T00:00:00Z --types donations\n  */15 * * * *  cd /srv/svc-sync && svc-sync sync --json --quiet >> sync.log 2>&1',
    );
  addRunOptions(cmd).action(async (opts: SyncOptions, c: Command) => {
    if (opts.since !== undefined && opts.all) throw new ConfigError('--since and --all: give one of them, not both');
    const types = parseTypes(opts.types);
    const globals = c.optsWithGlobals<GlobalOptions>();
    const stateFile = new StateFile(opts.state);
    const state = stateFile.read();
    let since: string | null;
    if (opts.all) since = null;
    else if (opts.since !== undefined) since = parseSince(opts.since);
    else if (state.run) since = state.run.since;
    else if (state.watermark) since = state.watermark;
    else throw new ConfigError(`no watermark in ${opts.state} yet: give --since <iso8601> or --all for the first run`);

    const ctx = commandContext(globals);
    // Resume only the same scope; a dry run neither resumes nor records progress.
    const resumable = !globals.dryRun && state.run !== undefined && state.run.since === since && sameTypes(state.run.types, types);
    const run: RunProgress = resumable && state.run ? state.run : { startedAt: new Date().toISOString(), since, types, completed: [], pagesDone: {} };
    if (resumable) ctx.out.info(`resuming the run started ${run.startedAt} (done: ${run.completed.join(', ') || 'nothing yet'})`);
    const retry = state.retry ?? [];
    const save = (): void => {
      if (!globals.dryRun) stateFile.write({ ...state, run });
    };
    const code = await runWithEngine('sync', ctx, opts, async (engine) => {
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
      // Records that failed last time, by id, unless this scan already handled them.
      const again = retry.filter((r) => types.includes(r.type) && engine.report.outcomeOf(keyFor(r.type, r.id)) === undefined);
      if (again.length > 0) await engine.syncRefs(again);
      const failed = new Map<string, ObjectRef>();
      for (const r of engine.report.records) {
        const ref = r.action === 'fail' ? refOfKey(r.key) : undefined;
        if (ref) failed.set(`${ref.type}:${ref.id}`, ref);
      }
      // Retries of types outside this run's scope wait for a run that covers them.
      const kept = retry.filter((r) => !types.includes(r.type));
      for (const r of kept) failed.set(`${r.type}:${r.id}`, r);
      const watermark = watermarkFrom(run.startedAt);
      if (!globals.dryRun) stateFile.write({ version: 1, watermark, ...(failed.size > 0 ? { retry: [...failed.values()] } : {}) });
      if (failed.size > 0) engine.report.warn(`${failed.size} record(s) failed and will be synced again by id on the next run`);
      return { since, types, watermark: globals.dryRun ? state.watermark ?? null : watermark, resumed: resumable, retried: again.length, retryNextRun: failed.size };
    });
    setExit(code);
  });
}
