import type { Command } from 'commander';
import { SYNC_ORDER, type SyncableType } from '../../model/objects.js';
import { parseLimit, type Limit } from '../../sync/audit/auditGuard.js';
import type { SetExit } from '../runner.js';
import { parseBatchSize, type WaitValue } from '../runLimits.js';
import { optionRules, parsedOption } from './optionRules.js';
import { waitOption } from './runOptions.js';
import { parseTypes } from './sync.js';
import { helpAfter } from '../helpText.js';

/** As commander hands them over, parsed (optionRules.ts). */
export interface AuditOptions {
  types?: SyncableType[];
  fix?: boolean;
  deleteOrphans?: boolean;
  report?: string;
  batchSize: number;
  maxDelete?: Limit;
  maxFix?: Limit;
  wait?: WaitValue;
}

/** Help after audit's options. */
const AUDIT_HELP = helpAfter({
  prose: [
    'Kinds of drift: missing (on the platform, not in Salesforce), stale (fields differ from what a sync writes), orphan (in Salesforce, but gone from the platform - confirmed by a 404 - or no longer eligible).',
    'Guards: --delete-orphans and --fix write nothing, and exit 2, when the platform lists none of an object Salesforce holds, or when more than --max-delete / --max-fix records of an object would go (a wrong SVC_API_URL or key).',
    'Exit codes: 0 no drift; 1 drift found (with --fix/--delete-orphans: drift remains or a write failed); 2 usage, configuration or refused by a guard; 129 / 130 / 143 stopped by SIGHUP / Ctrl-C / SIGTERM (deletions done so far are listed).',
  ],
  examples: [
    'svc-sync audit',
    'svc-sync audit --types donations --report drift.csv',
    'svc-sync audit --fix --delete-orphans',
    'svc-sync --dry-run audit --delete-orphans   # list what would be deleted',
  ],
  after: [`Object types, in audit order: ${SYNC_ORDER.join(', ')}`],
});

export function auditCommand(program: Command, setExit: SetExit): void {
  // The work in its own chunk: --help and option errors never load it.
  auditOptions(program).action(async (opts: AuditOptions, c: Command) => (await import('./auditRun.js')).auditAction(opts, c, setExit));
}

/** audit's options and the rules between them. */
function auditOptions(program: Command): Command {
  const cmd = program
    .command('audit')
    .description('compare every platform record with Salesforce: missing, stale and orphaned records (read-only unless --fix or --delete-orphans)')
    .addOption(parsedOption('--types <list>', `comma-separated object types (default: all; questions come with actions)`, parseTypes))
    .option('--fix', 'write the missing and stale records through the normal sync engine')
    .option('--delete-orphans', 'delete orphans from Salesforce, children before parents (with --dry-run: list them)')
    .addOption(
      parsedOption('--max-delete <n|p%>', 'with --delete-orphans: most orphans deleted per object, a number or a share of its mirror (default: 10 %, at most 500)', (raw) =>
        parseLimit(raw, '--max-delete'),
      ),
    )
    .addOption(parsedOption('--max-fix <n|p%>', 'with --fix: most stale records overwritten per object, a number or a share (default: 10 %, at most 500)', (raw) => parseLimit(raw, '--max-fix')))
    .option('--report <file>', 'write every drift row as CSV to this file')
    .addOption(waitOption('with --fix or --delete-orphans: '))
    .addOption(parsedOption('--batch-size <n>', 'records compared together (bounds memory)', parseBatchSize))
    .addHelpText('after', AUDIT_HELP);
  return optionRules(cmd, [
    { kind: 'requires', flag: '--max-delete', other: '--delete-orphans' },
    { kind: 'requires', flag: '--max-fix', other: '--fix' },
  ]);
}
