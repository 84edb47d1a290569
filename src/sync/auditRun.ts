/**
 * One audit from settings to result: connect both sides, compare, then (when asked) fix and
 * delete, and say what remains. The CLI renders the result; nothing here prints.
 */
import type { CrmCallCounts } from '../model/crmRecords.js';
import type { SObjectName, SyncableType } from '../model/objects.js';
import type { Progress, RecordOutcome } from '../model/outcomes.js';
import type { PlatformRequestCounts } from '../model/ports.js';
import { Auditor } from './audit.js';
import { deleteOrphans, type DeletionRow } from './auditDelete.js';
import { AuditFixer } from './auditFix.js';
import { auditSummary, type AuditCounts, type DriftRow } from './auditTypes.js';
import type { AuditDeps } from './compose.js';

export interface AuditRunOptions {
  types: SyncableType[];
  fix: boolean;
  deleteOrphans: boolean;
  dryRun: boolean;
  batchSize: number;
  onProgress?: (p: Progress) => void;
}

/** The `result` of `audit --json` (documented in README.md). */
export interface AuditResult {
  command: 'audit';
  dryRun: boolean;
  types: SyncableType[];
  /** Every drift the audit found (before any --fix or --delete-orphans). */
  drift: DriftRow[];
  summary: Record<SObjectName, AuditCounts>;
  requests: { platform: number; salesforce: number; platformByKind: PlatformRequestCounts; salesforceByKind: CrmCallCounts };
  /** Records the audit could not judge (a fetch failed, a value cannot be mapped). */
  problems: string[];
  /** --fix: the engine's outcomes (inserts, updates, failures), as `sync --json` lists them. */
  fixes?: RecordOutcome[];
  /** --delete-orphans: one row per orphan. */
  deletions?: DeletionRow[];
  /** --fix / --delete-orphans: the drift still there afterwards. */
  remaining?: DriftRow[];
  [extra: string]: unknown;
}

export async function runAudit(deps: AuditDeps, opts: AuditRunOptions): Promise<{ result: AuditResult; warnings: string[]; failed: boolean }> {
  const fixer = opts.fix ? new AuditFixer(deps.source, deps.sink, { dryRun: opts.dryRun, batchSize: opts.batchSize }) : undefined;
  const auditor = new Auditor(deps.source, deps.sink, {
    batchSize: opts.batchSize,
    onProgress: opts.onProgress,
    onBatch: fixer ? (type, records, drift) => fixer.fixBatch(type, records, drift) : undefined,
  });
  await auditor.run(opts.types);

  let deletions: DeletionRow[] | undefined;
  if (opts.deleteOrphans) deletions = await deleteOrphans(deps.sink, auditor.orphans, opts.dryRun);

  const warnings = [...auditor.warnings, ...(fixer?.engine.report.warnings ?? [])];
  let remaining: DriftRow[] | undefined;
  let failed = false;
  if (fixer || deletions) {
    const deleted = new Set((deletions ?? []).filter((d) => d.outcome === 'deleted').map((d) => `${d.object}\u0000${d.key}`));
    remaining = auditor.drift.filter((row) => {
      if (row.kind === 'orphan') return !deleted.has(`${row.object}\u0000${row.key}`);
      return !(fixer && !opts.dryRun && fixer.fixed(row));
    });
    failed = (fixer?.engine.report.failed ?? 0) > 0 || (deletions ?? []).some((d) => d.outcome === 'failed');
  }
  const platform = deps.source.requests();
  const salesforce = deps.sink.calls();
  const result: AuditResult = {
    command: 'audit',
    dryRun: opts.dryRun,
    types: opts.types,
    drift: auditor.drift,
    summary: auditSummary(auditor.counts),
    requests: { platform: platform.total, salesforce: salesforce.total, platformByKind: platform, salesforceByKind: salesforce },
    problems: auditor.problems,
    ...(fixer ? { fixes: fixer.engine.report.records } : {}),
    ...(deletions ? { deletions } : {}),
    ...(remaining ? { remaining } : {}),
  };
  return { result, warnings, failed };
}
