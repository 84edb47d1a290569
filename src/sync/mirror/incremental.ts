/**
 * Incremental sync: where a run starts, where the next one will, and which records failed and
 * must be synced again by id (pure functions over the state file's content), and runIncremental,
 * which drives the engine's scan with resume, retries and watermarks and keeps the file.
 */
import { ConfigError } from '../../model/errors.js';
import { keyFor, refOfKey } from '../../model/refs.js';
import { SYNC_ORDER, type ObjectRef, type SyncableType } from '../../model/objects.js';
import type { CrmSink, ScanFilter } from '../../model/ports.js';
import { ScanLedger, isAuditSink, type OrphanCandidate } from '../audit/orphanCandidates.js';
import type { SyncEngine } from './engine.js';
import type { RunReport } from '../report/report.js';
import { watermarkFrom, type RunProgress, type StateFile, type SyncState } from '../run/state.js';

export type Scope = { kind: 'all' } | { kind: 'since'; since: string } | { kind: 'continue' };

/**
 * The updated_after a run scans from: null for a full run; for `continue`, the oldest watermark
 * of the chosen types (a type scanned more recently is scanned a little more, never less).
 */
export function startingPoint(scope: Scope, state: SyncState, types: SyncableType[], stateFile: string): string | null {
  if (scope.kind === 'all') return null;
  if (scope.kind === 'since') return scope.since;
  if (state.run && sameTypes(state.run.types, types)) return state.run.since;
  const missing = types.filter((t) => !state.watermarks?.[t]);
  if (missing.length > 0) {
    throw new ConfigError(`no watermark in ${stateFile} yet for ${missing.join(', ')}: give --since <iso8601> or --all for the first run`, ['svc-sync sync --all', 'svc-sync sync --since <iso8601>']);
  }
  return types.map((t) => state.watermarks?.[t] as string).sort()[0] ?? null;
}

const sameTypes = (a: SyncableType[], b: SyncableType[]): boolean => a.length === b.length && a.every((t) => b.includes(t));

/**
 * Earlier failures to sync again by id in this run: those of its types the scan did not handle
 * (`synced`: the engine's word, where a record only re-linked under a moved parent is not synced),
 * less those an admin marked Ignored in the org's sync log (`ignored`: lower-case keys).
 */
export function retriesDue(state: SyncState, types: SyncableType[], synced: (key: string) => boolean, ignored: ReadonlySet<string> = new Set()): ObjectRef[] {
  return (state.retry ?? []).filter((r) => types.includes(r.type) && !synced(keyFor(r.type, r.id)) && !ignored.has(keyFor(r.type, r.id).toLowerCase()));
}

/**
 * The state after a completed run: the scanned types' watermarks move to its start (less the
 * overlap), other types keep theirs, and every record that failed (plus earlier failures of
 * types outside this run) is kept to be synced again by id.
 */
export function completedState(state: SyncState, run: RunProgress, report: RunReport): SyncState {
  const watermarks = { ...(state.watermarks ?? {}) };
  for (const t of run.types) watermarks[t] = watermarkFrom(run.startedAt);
  const retry = new Map<string, ObjectRef>();
  for (const r of state.retry ?? []) if (!run.types.includes(r.type)) retry.set(`${r.type}:${r.id}`, r);
  for (const o of report.failures()) {
    // A gift projection failure (`Donation_20:gift`) retries its donation: mirrored again, projected again.
    const ref = o.action === 'fail' ? refOfKey(o.key.replace(/:(donor|campaign|gift|softCredit|refund)$/, '')) : undefined;
    if (ref) retry.set(`${ref.type}:${ref.id}`, ref);
  }
  return { version: 1, watermarks, ...(retry.size > 0 ? { retry: [...retry.values()] } : {}) };
}

interface IncrementalPlan {
  stateFile: StateFile;
  /** The state as read before the run. */
  state: SyncState;
  /** The updated_after the run scans from; null for a full run. */
  since: string | null;
  types: SyncableType[];
  /** This run's progress: the interrupted run's when resumed. */
  run: RunProgress;
  resumed: boolean;
  /** A dry run neither resumes nor records progress. */
  dryRun: boolean;
}

/** Where a run of these types and scope starts, and whether it resumes an interrupted one (same scope only). */
export function planIncremental(stateFile: StateFile, scope: Scope, types: SyncableType[], dryRun: boolean, now: Date = new Date()): IncrementalPlan {
  const state = stateFile.read();
  const since = startingPoint(scope, state, types, stateFile.file);
  const resumed = !dryRun && state.run !== undefined && state.run.since === since && sameTypes(state.run.types, types);
  const run: RunProgress = resumed && state.run ? state.run : { startedAt: now.toISOString(), since, types, completed: [], pagesDone: {} };
  return { stateFile, state, since, types, run, resumed, dryRun };
}

/** The scan a run starts with (its first type not done, from the page it resumes at), if any is left. */
export function firstScan(plan: IncrementalPlan): { type: SyncableType; filter: ScanFilter } | undefined {
  const type = plan.types.find((t) => !plan.run.completed.includes(t));
  if (type === undefined) return undefined;
  return { type, filter: { ...(plan.since ? { updatedAfter: plan.since } : {}), fromPage: Math.max(1, plan.run.pagesDone[type] ?? 1) } };
}

/** What `sync` adds to a run's result. */
interface IncrementalResult {
  since: string | null;
  types: SyncableType[];
  watermarks: Partial<Record<SyncableType, string>>;
  resumed: boolean;
  /** Earlier failures synced again by id in this run. */
  retried: number;
  /** Failures kept in the state file for the next run. */
  retryNextRun: number;
  /** A full run (`--all`): keys Salesforce holds that its complete scans did not list, or listed as no longer eligible. */
  orphanCandidates?: OrphanCandidate[];
}

/**
 * Scans the plan's types (a resumed run from where it stopped), syncs earlier failures again by
 * id, and records progress after every page and the new watermarks at the end.
 */
/**
 * `requested`: records an admin asked to retry in the org; `ignored`: keys (lower-case) an admin
 * marked Ignored there, never retried by id (a scan that lists them still syncs them).
 */
export async function runIncremental(
  engine: SyncEngine,
  plan: IncrementalPlan,
  sink?: CrmSink,
  requested: readonly ObjectRef[] = [],
  ignored: ReadonlySet<string> = new Set(),
): Promise<IncrementalResult> {
  const { stateFile, state, since, types, run, dryRun } = plan;
  const save = (): void => {
    if (dryRun) return;
    const absent = engine.absentParents();
    stateFile.write({ ...state, run: { ...run, ...(absent.length > 0 ? { absent } : {}) } });
  };
  // What the stopped attempt found absent from the platform, this attempt does not ask for again.
  if (plan.resumed) engine.absentBefore(run.absent ?? []);
  // Recorded with the first page done, not before: a run that could not start (a refused login, a
  // wrong URL) leaves no pending run for the next one to "resume".
  // A full run's scans are complete and unfiltered: the types scanned from their first page in this run show orphans.
  const ledger = since === null && sink !== undefined && isAuditSink(sink) ? new ScanLedger() : undefined;
  const fromStart = new Set<SyncableType>();
  await engine.syncScan(
    types.filter((t) => !run.completed.includes(t)),
    since ? { updatedAfter: since } : {},
    {
      // One page back: a record removed before the resume point would shift the pages.
      startPage: (t) => {
        const page = Math.max(1, run.pagesDone[t] ?? 1);
        if (page === 1) fromStart.add(t);
        return page;
      },
      pageRecords: ledger ? (t, records, failed) => ledger.page(t, records, failed) : undefined,
      pageDone: (t, page) => {
        run.pagesDone[t] = page;
        save();
      },
      typeDone: (t) => {
        run.completed.push(t);
        delete run.pagesDone[t];
        save();
      },
    },
  );
  let orphanCandidates: OrphanCandidate[] | undefined;
  if (ledger && sink !== undefined && isAuditSink(sink)) {
    orphanCandidates = await ledger.candidates(
      sink,
      SYNC_ORDER.filter((t) => fromStart.has(t) && run.completed.includes(t)),
    );
    if (orphanCandidates.length > 0) engine.report.warn(`${orphanCandidates.length} orphan candidate(s) in Salesforce: \`svc-sync audit\` confirms them, \`audit --delete-orphans\` removes them`);
  }
  // Earlier failures of this run's types, and the records an admin asked to retry from Salesforce
  // (any type: the request names them), each once and only if the scan did not sync it.
  const due = new Map(retriesDue(state, types, (key) => engine.synced(key), ignored).map((r) => [`${r.type}:${r.id}`, r]));
  for (const r of requested) if (!engine.synced(keyFor(r.type, r.id))) due.set(`${r.type}:${r.id}`, r);
  const again = [...due.values()];
  if (again.length > 0) await engine.syncRefs(again);
  const next = completedState(state, run, engine.report);
  if (!dryRun) stateFile.write(next);
  const retryCount = next.retry?.length ?? 0;
  if (retryCount > 0) engine.report.warn(`${retryCount} record(s) failed and will be synced again by id on the next run`);
  const watermarks = dryRun ? (state.watermarks ?? {}) : (next.watermarks ?? {});
  return { since, types, watermarks, resumed: plan.resumed, retried: again.length, retryNextRun: retryCount, ...(orphanCandidates ? { orphanCandidates } : {}) };
}
