/**
 * A claimed batch translated for the engine and back, pure apart from the owner lookup: the refs the
 * engine syncs (a users.update stands for the actions that user owns), and each claimed ref's event
 * outcome from what the engine reported.
 */
import type { ObjectRef, SyncableType } from '../../model/objects.js';
import type { OwnedActions } from '../../model/outcomes.js';
import { keyFor } from '../../model/refs.js';
import type { ClaimedBatch, ClaimedRef, EventOutcome } from '../queue/store.js';
import type { QueueStore } from '../queue/store.js';
import { CHANGE_MARGIN_MS, type BatchHints, type ProcessOutcome } from './workerTypes.js';

export const refKey = (ref: ObjectRef): string => keyFor(ref.type, ref.id);

/** failed > done > skipped: if the engine reports a ref twice, the worse outcome counts. */
export function worse(a: ProcessOutcome | undefined, b: ProcessOutcome): ProcessOutcome {
  if (a === undefined) return b;
  const rank = { failed: 2, done: 1, skipped: 0 } as const;
  return rank[b.status] > rank[a.status] ? b : a;
}

/**
 * A claimed ref's event outcome. A users.update stands for the user's actions: those the owners
 * table holds, or else those the processor found in Salesforce under the user's email (`found`).
 */
export function outcomeForRef(claimed: ClaimedRef, outcomes: Map<string, ProcessOutcome>, actionsOf: Map<number, number[]>, found?: OwnedActions): EventOutcome {
  const eventIds = claimed.eventIds;
  if (claimed.refType === 'user') {
    const byEmail = found?.get(claimed.refId);
    if (byEmail !== undefined && 'error' in byEmail) return { eventIds, status: 'failed', error: byEmail.error };
    const known = actionsOf.get(claimed.refId) ?? [];
    const actions = known.length > 0 ? known : (byEmail?.actions ?? []);
    if (actions.length === 0)
      return { eventIds, status: 'skipped', reason: `no known actions owned by user ${claimed.refId}${byEmail === undefined ? '' : ", nor any in Salesforce under the user's email"}` };
    const failures: string[] = [];
    for (const id of actions) {
      const o = outcomes.get(keyFor('action', id));
      if (o === undefined) failures.push(`action ${id}: no outcome returned`);
      else if (o.status === 'failed') failures.push(`action ${id}: ${o.reason ?? 'failed'}`);
    }
    if (failures.length > 0) return { eventIds, status: 'failed', error: failures.join('; ') };
    return { eventIds, status: 'done', reason: `re-synced actions ${actions.join(', ')}` };
  }
  const o = outcomes.get(keyFor(claimed.refType, claimed.refId));
  if (o === undefined) return { eventIds, status: 'failed', error: 'the processor returned no outcome for this ref' };
  if (o.status === 'failed') return { eventIds, status: 'failed', error: o.reason ?? 'failed without a reason' };
  return o.reason === undefined ? { eventIds, status: o.status } : { eventIds, status: o.status, reason: o.reason };
}

/**
 * Since when the batch's records changed: the batch's oldest event, and each type's own oldest
 * (less the margin), so a type's list is not widened by an older event of another type. A user's
 * actions (users.update) have no event of their own: their type falls back to the batch's time.
 */
export function changedSinceOf(batch: ClaimedBatch): Pick<BatchHints, 'changedSince' | 'changedSinceByType'> {
  const since = (at: number): string => new Date(at - CHANGE_MARGIN_MS).toISOString();
  const byType: Partial<Record<SyncableType, string>> = {};
  for (const [type, at] of Object.entries(batch.oldestByType)) if (type !== 'user' && at !== undefined) byType[type as SyncableType] = since(at);
  return { changedSince: since(batch.oldestReceivedAt), changedSinceByType: byType };
}

/** The engine's refs of a claimed batch: a users.update stands for the actions that user owns. */
export async function engineRefsOf(batch: ClaimedBatch, queue: QueueStore): Promise<{ refs: Map<string, ObjectRef>; actionsOf: Map<number, number[]> }> {
  const refs = new Map<string, ObjectRef>();
  const actionsOf = new Map<number, number[]>();
  for (const claimed of batch.refs) {
    if (claimed.refType === 'user') {
      const actions = await queue.actionsOwnedBy(claimed.refId);
      actionsOf.set(claimed.refId, actions);
      for (const id of actions) refs.set(keyFor('action', id), { type: 'action', id });
    } else {
      const ref: ObjectRef = { type: claimed.refType, id: claimed.refId };
      refs.set(refKey(ref), ref);
    }
  }
  return { refs, actionsOf };
}
