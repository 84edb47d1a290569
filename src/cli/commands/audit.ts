import type { Command } from 'commander';
import fs from 'node:fs';
import { settingsOf } from '../../config/load.js';
import { ConfigError, EXIT, messageOf } from '../../model/errors.js';
import { SYNC_ORDER } from '../../model/objects.js';
import { runAudit, type AuditResult } from '../../sync/auditRun.js';
import { createAuditDeps, type AuditDeps } from '../../sync/compose.js';
import { createProgress } from '../render/progress.js';
import { renderAudit, writeDriftCsv } from '../render/auditTables.js';
import { runCommand, type CommandResult, type SetExit } from '../runner.js';
import { parseBatchSize } from '../runSync.js';
import { parseTypes } from './sync.js';

interface AuditOptions {
  types?: string;
  fix?: boolean;
  deleteOrphans?: boolean;
  report?: string;
  batchSize?: string;
}

/** Fails before any request when the report file cannot be written: nothing half-done. */
function checkWritable(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'a'));
  } catch (err) {
    throw new ConfigError(`--report ${file}: cannot write there (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`);
  }
}

export function auditCommand(program: Command, setExit: SetExit): void {
  program
    .command('audit')
    .description('compare every platform record with Salesforce: missing, stale and orphaned records (read-only unless --fix or --delete-orphans)')
    .option('--types <list>', `comma-separated object types (default: all; questions come with actions)`)
    .option('--fix', 'write the missing and stale records through the normal sync engine')
    .option('--delete-orphans', 'delete orphans from Salesforce, children before parents (with --dry-run: list them)')
    .option('--report <file>', 'write every drift row as CSV to this file')
    .option('--batch-size <n>', 'records compared together (bounds memory)', undefined)
    .addHelpText(
      'after',
      '\nKinds of drift: missing (on the platform, not in Salesforce), stale (fields differ from what a sync writes),\n' +
        'orphan (in Salesforce, but gone from the platform - confirmed by a 404 - or no longer eligible).\n' +
        'Exit codes: 0 no drift; 1 drift found (with --fix/--delete-orphans: drift remains or a write failed); 2 usage or configuration.\n\n' +
        `Examples:\n  svc-sync audit\n  svc-sync audit --types donations --report drift.csv\n  svc-sync audit --fix --delete-orphans\n  svc-sync --dry-run audit --delete-orphans   # list what would be deleted\n\nObject types, in audit order: ${SYNC_ORDER.join(',')}`,
    )
    .action((opts: AuditOptions, c: Command) =>
      runCommand(c, setExit, async (ctx): Promise<CommandResult<AuditResult>> => {
        const { globals } = ctx;
        const types = parseTypes(opts.types);
        const batchSize = parseBatchSize(opts.batchSize);
        const settings = settingsOf(ctx.raw);
        if (opts.report) checkWritable(opts.report);
        const progress = createProgress(!globals.json && !globals.quiet);
        try {
          const deps: AuditDeps = await createAuditDeps(settings, (t) => (progress.live ? progress.note(t) : ctx.out.info(t)));
          const { result, warnings, failed } = await runAudit(deps, {
            types,
            fix: Boolean(opts.fix),
            deleteOrphans: Boolean(opts.deleteOrphans),
            dryRun: globals.dryRun,
            batchSize,
            onProgress: (p) => {
              progress.update(p);
              progress.requests(deps.source.requests().total, deps.sink.calls().total);
            },
          });
          progress.stop();
          if (opts.report) writeDriftCsv(opts.report, result);
          const open = result.remaining ?? result.drift;
          const status = open.length > 0 || failed || result.problems.length > 0 ? EXIT.PARTIAL : EXIT.OK;
          const notes = globals.verbose ? [] : warnings.length > 0 ? [`${warnings.length} warning(s); --verbose lists them`] : [];
          return { status, result, warnings, text: renderAudit(result, { verbose: globals.verbose }), notes, verbose: warnings.map((w) => `warning: ${w}`) };
        } finally {
          progress.stop();
        }
      }),
    );
}
