/**
 * One audit from settings to result: connect both sides, compare, then (when asked) fix and
 * delete, and say what remains. The CLI renders the result; nothing here prints.
 */
import type { CrmCallCounts } from '../../model/crmRecords.js';
import type { SObjectName, SyncableType } from '../../model/objects.js';
import type { Progress, RecordOutcome } from '../../model/outcomes.js';
import type { PlatformRequestCounts } from '../../model/ports.js';
import { InterruptedError, RefusedError } from '../../model/errors.js';
import { Auditor } from './audit.js';
import { deleteOrphans, type DeletionRow } from './auditDelete.js';
import { AuditFixer } from './auditFix.js';
import { allowed, allowsAll, refusalOf, type Limit } from './auditGuard.js';
import { auditSummary, type AuditCounts, type DriftRow, type OrphanRow } from './auditTypes.js';
import type { AuditDeps } from '../compose.js';
import type { SyncEngine } from '../mirror/engine.js';
import type { RunReport } from '../report/report.js';

interface AuditRunOptions {
  types: SyncableType[];
  fix: boolean;
  deleteOrphans: boolean;
  dryRun: boolean;
  batchSize: number;
  /** Explicit --max-delete / --max-fix; the defaults of auditGuard.ts otherwise. */
  maxDelete?: Limit | undefined;
  maxFix?: Limit | undefined;
  /** The platform's base URL as shown to a person (for the refusal). */
  platform?: string;
  /** Ctrl-C / SIGTERM: the batch in flight completes, then the run stops and reports what was done. */
  stop?: AbortSignal;
  onProgress?: (p: Progress) => void;
}

/** The `result` of `audit --json` (documented in docs/administration.md). */
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
  /** --fix with SVC_PROJECTION: the gifts and campaigns of what is gone, marked (PROJECTION.md §2.3, §3.2). */
  projection?: Array<{ object: string; key: string; action: string; fields?: string[] | undefined; reason?: string | undefined }>;
  /** --delete-orphans: one row per orphan. */
  deletions?: DeletionRow[];
  /** --fix / --delete-orphans: the drift still there afterwards. */
  remaining?: DriftRow[];
  /** Why --fix / --delete-orphans wrote nothing (the guards): exit 2. A dry run names what a real run would refuse. */
  refused?: string;
  /** Set when Ctrl-C or SIGTERM stopped the run: what is listed was done by then. */
  stopped?: string;
  [extra: string]: unknown;
}

interface AuditOutcome {
  result: AuditResult;
  warnings: string[];
  failed: boolean;
  /** The guards refused (exit 2), or Ctrl-C / SIGTERM stopped the run (130 / 143). */
  stopped?: RefusedError | InterruptedError;
  /** --fix: the engine's report of the fixes (the sync log's error records come from it). */
  report?: RunReport;
  /** --fix: the engine that wrote them (whose owner fields it wrote: owners.json). */
  fixer?: SyncEngine;
}

/** Pages with a campaign (§3.1): gone, it stays inactive (§3.2 names actions and teams; the projection treats every level alike). */
const PAGES: readonly SObjectName[] = ['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Action__c'];
const GONE_MARKED: readonly SObjectName[] = ['Svc_Donation__c', ...PAGES];

/** What the projection keeps of the orphans (§2.3, §3.2): a donation's gift, a page's campaign, each under the record's key. */
function goneKeys(orphans: readonly OrphanRow[]): { gifts: string[]; campaigns: string[] } {
  const of = (objects: readonly SObjectName[]): string[] => orphans.filter((o) => objects.includes(o.object)).map((o) => o.key);
  return { gifts: of(['Svc_Donation__c']), campaigns: of(PAGES) };
}

export async function runAudit(deps: AuditDeps, opts: AuditRunOptions): Promise<AuditOutcome> {
  const fixer = opts.fix ? new AuditFixer(deps.source, deps.sink, { dryRun: opts.dryRun, batchSize: opts.batchSize, ...(opts.stop ? { stop: opts.stop } : {}) }) : undefined;
  const auditor = new Auditor(deps.source, deps.sink, {
    batchSize: opts.batchSize,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.stop ? { stop: opts.stop } : {}),
    ...(opts.deleteOrphans ? { orphanLimit: (_object, mirrored) => allowed(opts.maxDelete, mirrored), confirmWhenEmpty: allowsAll(opts.maxDelete) } : {}),
    ...(fixer ? { onBatch: async (type, records, drift) => fixer.hold(type, records, drift) } : {}),
  });
  let stopped: RefusedError | InterruptedError | undefined;
  let deletions: DeletionRow[] | undefined;
  let refused: string | undefined, marked: AuditResult['projection'];
  try {
    await auditor.run(opts.types);
    refused = refusalOf(
      { listed: auditor.listedCount, mirrored: auditor.mirrorCount, counts: auditor.counts, unconfirmed: auditor.unconfirmed },
      {
        deleteOrphans: opts.deleteOrphans,
        fix: opts.fix,
        maxDelete: opts.maxDelete,
        maxFix: opts.maxFix,
        marksGone: deps.markGone ? GONE_MARKED : undefined,
        platform: opts.platform ?? 'the platform',
      },
    );
    if (refused && !opts.dryRun) stopped = new RefusedError(refused);
    if (!stopped) {
      await fixer?.fixAll(auditor.drift);
      if (fixer && deps.markGone) marked = await deps.markGone(goneKeys(auditor.orphans), opts.dryRun);
      if (opts.deleteOrphans) {
        deletions = [];
        const rows = deletions;
        await deleteOrphans(deps.sink, auditor.orphans, opts.dryRun, { onRow: (row) => rows.push(row), ...(opts.stop ? { stop: opts.stop } : {}) });
      }
    }
  } catch (error) {
    if (!(error instanceof InterruptedError)) throw error;
    stopped = error;
  }

  const warnings = [...auditor.warnings, ...(fixer?.engine.report.warnings ?? [])];
  // A shared org's bare keys are no site's for sure: never orphans or drift of this one, said once.
  const bare = stopped instanceof InterruptedError ? undefined : await deps.sink.bareKeyCount?.();
  if (bare) warnings.push(`${bare} records with no site prefix: left alone; \`svc-sync keys qualify\` gives them their site`);
  for (const [object, un] of auditor.unconfirmed) {
    if (un.why === 'empty')
      auditor.problems.push(`${object}: the platform lists none, Salesforce holds ${auditor.mirrorCount.get(object) ?? un.candidates}: not confirmed one by one (wrong SVC_API_URL or SVC_API_KEY?)`);
    else auditor.problems.push(`${object}: ${un.candidates} orphan candidates pass the deletion limit: not confirmed one by one`);
  }
  if (refused && opts.dryRun) warnings.push(`a real run would be ${refused}`);
  let remaining: DriftRow[] | undefined;
  let failed = false;
  const acted = (fixer !== undefined || deletions !== undefined) && !(stopped instanceof RefusedError);
  if (acted) {
    const deleted = new Set((deletions ?? []).filter((d) => d.outcome === 'deleted').map((d) => `${d.object}\u0000${d.key}`));
    remaining = auditor.drift.filter((row) => {
      if (row.kind === 'orphan') return !deleted.has(`${row.object}\u0000${row.key}`);
      return !(fixer && !opts.dryRun && fixer.fixed(row));
    });
    failed = (fixer?.engine.report.failed ?? 0) > 0 || (deletions ?? []).some((d) => d.outcome === 'failed') || (marked ?? []).some((r) => r.action === 'fail');
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
    ...(fixer && acted ? { fixes: fixer.engine.report.records } : {}),
    ...(marked ? { projection: marked } : {}),
    ...(deletions ? { deletions } : {}),
    ...(remaining ? { remaining } : {}),
    ...(refused ? { refused } : {}),
    ...(stopped instanceof InterruptedError ? { stopped: stopped.message } : {}),
  };
  return { result, warnings, failed, ...(stopped ? { stopped } : {}), ...(fixer ? { report: fixer.engine.report, fixer: fixer.engine } : {}) };
}
