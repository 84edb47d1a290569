/**
 * The bookkeeping of incremental sync: where a run starts, where the next one will, and which
 * records failed and must be synced again by id. Pure functions over the state file's content;
 * the `sync` command reads and writes the file, the engine does the work.
 */
import { ConfigError } from '../config/errors.js';
import { keyFor, refOfKey } from '../mapping/map.js';
import type { ObjectRef, SyncableType } from '../mapping/objects.js';
import type { RunReport } from './report.js';
import { watermarkFrom, type RunProgress, type SyncState } from './state.js';

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
    throw new ConfigError(`no watermark in ${stateFile} yet for ${missing.join(', ')}: give --since <iso8601> or --all for the first run`);
  }
  return types.map((t) => state.watermarks?.[t] as string).sort()[0] ?? null;
}

export const sameTypes = (a: SyncableType[], b: SyncableType[]): boolean => a.length === b.length && a.every((t) => b.includes(t));

/** Earlier failures to sync again by id in this run: those of its types the scan did not handle. */
export function retriesDue(state: SyncState, types: SyncableType[], report: RunReport): ObjectRef[] {
  return (state.retry ?? []).filter((r) => types.includes(r.type) && report.outcomeOf(keyFor(r.type, r.id)) === undefined);
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
  for (const o of report.records) {
    const ref = o.action === 'fail' ? refOfKey(o.key) : undefined;
    if (ref) retry.set(`${ref.type}:${ref.id}`, ref);
  }
  return { version: 1, watermarks, ...(retry.size > 0 ? { retry: [...retry.values()] } : {}) };
}
