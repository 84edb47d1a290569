import type { Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { SYNC_ORDER, parseObjectType, type SyncableType } from '../../model/objects.js';
import { echo } from '../../config/echo.js';
import { CRON_RECIPE } from '../globals.js';
import type { SetExit } from '../runner.js';
import type { RunOptions } from '../runEngine.js';
import { addRunOptions } from './runOptions.js';
import { optionRules, parsedOption } from './optionRules.js';
import { helpAfter } from '../helpText.js';

/** As commander hands them over, parsed (optionRules.ts). */
export interface SyncOptions extends RunOptions {
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
  // The work in its own chunk: --help and option errors never load it.
  optionRules(addRunOptions(cmd), [{ kind: 'excludes', flag: '--since', other: '--all' }]).action(async (opts: SyncOptions, c: Command) => (await import('./syncRun.js')).syncAction(opts, c, setExit));
}
