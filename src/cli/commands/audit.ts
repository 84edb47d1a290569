import type { Command } from 'commander';
import fs from 'node:fs';
import { ConfigError } from '../../config/errors.js';
import { SYNC_ORDER } from '../../sync/engine.js';
import { connectAudit, runAudit, type AuditDeps } from '../../sync/auditRun.js';
import { EXIT, messageOf } from '../exit.js';
import type { GlobalOptions } from '../globals.js';
import { createProgress } from '../render/progress.js';
import { renderAudit, writeDriftCsv } from '../render/auditTables.js';
import { commandContext, fullSettings, parseBatchSize } from '../runSync.js';
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

export function auditCommand(program: Command, setExit: (code: number) => void): void {
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
    .action(async (opts: AuditOptions, c: Command) => {
      const globals = c.optsWithGlobals<GlobalOptions>();
      const types = parseTypes(opts.types);
      const batchSize = parseBatchSize(opts.batchSize);
      const ctx = commandContext(globals);
      const settings = fullSettings(ctx.raw);
      if (opts.report) checkWritable(opts.report);
      const progress = createProgress(!globals.json && !globals.quiet);
      let deps: AuditDeps | undefined;
      try {
        deps = await connectAudit(settings, (t) => (progress.live ? progress.note(t) : ctx.out.info(t)));
        const d = deps;
        const { result, warnings, failed } = await runAudit(d, {
          types,
          fix: Boolean(opts.fix),
          deleteOrphans: Boolean(opts.deleteOrphans),
          dryRun: globals.dryRun,
          batchSize,
          onProgress: (p) => {
            progress.update(p);
            progress.requests(d.source.requests().total, d.sink.calls().total);
          },
        });
        progress.stop();
        if (opts.report) writeDriftCsv(opts.report, result);
        const open = result.remaining ?? result.drift;
        const status = open.length > 0 || failed || result.problems.length > 0 ? EXIT.PARTIAL : EXIT.OK;
        if (globals.json) ctx.out.json(status, result, warnings);
        else {
          ctx.out.result(renderAudit(result, { verbose: globals.verbose }));
          if (globals.verbose) for (const w of warnings) ctx.out.info(`warning: ${w}`);
          else if (warnings.length > 0) ctx.out.info(`${warnings.length} warning(s); --verbose lists them`);
        }
        setExit(status);
      } finally {
        progress.stop();
      }
    });
}
