/** `audit`'s work, loaded when the command runs (audit.ts declares it). */
import type { Command } from 'commander';
import fs from 'node:fs';
import { settingsOf } from '../../config/load.js';
import { placeOf } from '../../config/connections.js';
import { claimOrg } from '../../config/orgRecord.js';
import type { ExitCode } from '../../model/errors.js';
import type { LogResult } from '../../model/syncLog.js';
import { OwnerIds, ownersFileIn } from '../../sync/mirror/ownerIds.js';
import { RunReport } from '../../sync/report/report.js';
import { logNote, logRun, salesforceReachable } from '../../sync/run/runLog.js';
import { SYNC_ORDER } from '../../model/objects.js';
import { runAudit, type AuditResult } from '../../sync/audit/auditRun.js';
import { createAuditDeps, profileFileFor, type AuditDeps } from '../../sync/compose.js';
import { renderAudit, writeDriftCsv } from '../render/auditTables.js';
import { openReportFile } from '../render/csvReport.js';
import { keyShown, rowsShown } from '../render/shownKeys.js';
import { outputFileOf, runCommand, type CommandContext, type CommandResult, type SetExit } from '../runner.js';
import { RunSession } from '../runSession.js';
import { auditRunStatus } from '../runStatus.js';
import { lockRun } from '../runEngine.js';
import { CLI_BATCH_SIZE } from '../runLimits.js';
import type { RunLock } from '../../sync/run/runLock.js';
import { whereLines, whereOf, withKnownSite, type Where } from '../where.js';
import type { AuditOptions } from './audit.js';

/** Fails before any request when the report file cannot be written: nothing half-done. */
function checkWritable(file: string): void {
  fs.closeSync(openReportFile(file, 'a'));
}

/** An audit that wrote (--fix, --delete-orphans) is a run in the org's sync log, its fixes' failures error records. */
async function logAudit(
  deps: AuditDeps,
  f: { startedAt: Date; status: ExitCode; stopped: unknown; report: RunReport | undefined; result: AuditResult; summary: string; redact: (t: string) => string },
): Promise<LogResult | undefined> {
  if (deps.log === undefined || !salesforceReachable(f.stopped)) return undefined;
  const deleted = (f.result.deletions ?? []).filter((d) => d.outcome === 'deleted').length;
  const { platform, salesforce } = f.result.requests;
  return logRun(deps.log, {
    command: 'audit',
    startedAt: f.startedAt,
    status: f.status,
    stopped: f.stopped,
    report: f.report ?? new RunReport(),
    deleted,
    platformRequests: platform,
    salesforceCalls: salesforce,
    summary: f.summary,
    redact: f.redact,
  });
}

export function auditAction(opts: AuditOptions, c: Command, setExit: SetExit): Promise<void> {
  return runCommand(c, setExit, (ctx) => audit(ctx, opts), { connections: 'each' });
}

/** One connection's audit: lock (when it writes), compare, fix or delete, log, and the result to print. */
async function audit(ctx: CommandContext, opts: AuditOptions): Promise<CommandResult<AuditResult & { where: Where }>> {
  const { globals } = ctx;
  const { types = [...SYNC_ORDER], batchSize = CLI_BATCH_SIZE, maxDelete, maxFix } = opts;
  const settings = settingsOf(ctx.raw, placeOf(ctx.deployment, ctx.connection));
  const reportFile = opts.report === undefined ? undefined : outputFileOf(ctx, opts.report);
  if (reportFile) checkWritable(reportFile);
  // The first Ctrl-C lets the batch in flight finish and reports what was done; the second quits.
  const session = new RunSession(ctx, 'listing what was done');
  let lock: RunLock | undefined;
  const startedAt = new Date();
  try {
    const writes = Boolean(opts.fix || opts.deleteOrphans) && !globals.dryRun;
    // Only a writing audit takes the run lock: a read-only one may run beside a sync.
    if (writes) lock = await lockRun(ctx, undefined, opts.wait, session);
    const profileWarnings: string[] = [];
    const learn = { profileFile: profileFileFor(undefined, ctx.connection.stateDir), save: !globals.dryRun, onWarning: (w: string) => profileWarnings.push(w) };
    const deps: AuditDeps = await createAuditDeps(settings, session.onWait, session.signal, learn, writes, opts.fix === true);
    claimOrg(ctx.deployment.connections, ctx.connection, deps.org, !globals.dryRun, { warn: (w) => profileWarnings.push(w), siteId: ctx.connection.raw.SVC_SITE_ID });
    const where = withKnownSite(whereOf(ctx.raw, ctx.sources, deps.org, ctx.connection.name), deps.source.siteReported?.());
    // With --json the document holds it (result.where): stderr stays for what goes wrong.
    if (!ctx.globals.json) for (const line of whereLines(where, ctx.out.opts.label !== undefined)) ctx.out.info(line);
    const {
      result: found,
      warnings: auditWarnings,
      failed,
      stopped,
      report,
      fixer,
    } = await runAudit(deps, {
      types,
      fix: Boolean(opts.fix),
      deleteOrphans: Boolean(opts.deleteOrphans),
      dryRun: globals.dryRun,
      batchSize,
      maxDelete,
      maxFix,
      platform: settings.platform.apiUrl,
      stop: session.signal,
      onProgress: session.progressOf(deps),
    });
    session.stopProgress();
    // Whose fields the fixed actions' owner fields now hold (serve keeps them only for the same user).
    if (fixer !== undefined && !globals.dryRun) new OwnerIds(ownersFileIn(ctx.connection.stateDir)).record(fixer).save();
    const { command, ...rest } = found;
    // Keys as the org holds them (site-qualified with SVC_SITE_KEYS): --json, text and --report alike.
    const shown = keyShown(settings.salesforce.siteKeys);
    const result: AuditResult & { where: Where } = { command, where, ...rest, drift: rowsShown(rest.drift, shown) };
    if (rest.remaining) result.remaining = rowsShown(rest.remaining, shown);
    if (rest.fixes) result.fixes = rowsShown(rest.fixes, shown);
    if (rest.deletions) result.deletions = rowsShown(rest.deletions, shown);
    const warnings = [...profileWarnings, ...auditWarnings];
    if (reportFile) writeDriftCsv(reportFile, result, ctx.out.mask);
    const status = auditRunStatus({ stopped, open: (result.remaining ?? result.drift).length, failed, problems: result.problems.length });
    const notes = globals.verbose ? [] : warnings.length > 0 ? [`${warnings.length} warning(s); --verbose lists them`] : [];
    const text = renderAudit(result, { verbose: globals.verbose });
    const logged = await logAudit(deps, { startedAt, status, stopped, report, result, summary: text, redact: ctx.out.redact });
    if (logged !== undefined) result.salesforceLog = logged;
    const note = logNote(logged);
    if (note !== undefined) notes.push(note);
    return {
      status,
      result,
      warnings,
      text,
      notes,
      verbose: warnings.map((w) => `warning: ${w}`),
      closing: `exit ${status}: ${closingOf(result, failed, opts)}`,
      ...(stopped ? { stopped } : {}),
    };
  } finally {
    lock?.release();
    session.dispose();
  }
}

/** Why the audit exits as it does, and what to run next. */
function closingOf(result: AuditResult, failed: boolean, opts: AuditOptions): string {
  const open = (result.remaining ?? result.drift).length;
  const why = [
    ...(open > 0 ? [`${open} drift ${open === 1 ? 'row' : 'rows'} ${result.remaining ? 'remain' : 'found'}`] : []),
    ...(failed ? ['a fix or deletion failed'] : []),
    ...(result.problems.length > 0 ? [`${result.problems.length} records could not be judged`] : []),
  ];
  const next = opts.fix || opts.deleteOrphans ? 'svc-sync audit --verbose lists what remains' : 'svc-sync audit --fix --delete-orphans';
  return `${why.join('; ')}; next: ${next}`;
}
