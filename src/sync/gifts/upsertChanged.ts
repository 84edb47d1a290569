/**
 * The write of the gift, soft-credit and refund steps: records compared field by field with what
 * the org holds under the same key, and only the differing ones sent (an update only with the
 * fields that differ), upserted on the object's key field; obsolete records deleted by Id.
 */
import type { CrmError, CrmRecord } from '../../model/crmRecords.js';
import type { GiftObject } from '../../model/objects.js';
import type { GiftSink } from '../../model/ports.js';
import type { ProjectionRow } from './outcome.js';
import { byKey, changedFields, readIn } from './reads.js';

export interface Desired {
  key: string;
  /** The fields compared and sent. */
  record: CrmRecord;
  /** Fields sent only when the record is created (a master-detail that cannot be re-parented). */
  onInsert?: CrmRecord | undefined;
}

export interface StepResult {
  /** Each written or unchanged record's Id by key (undefined: a dry run's new record). */
  ids: Map<string, string | undefined>;
  failed: Map<string, CrmError>;
  rows: ProjectionRow[];
}

interface Target {
  object: GiftObject;
  keyField: string;
  dryRun: boolean;
  /** The key field is plain text (§0's fallback): an existing record is updated by Id, a new one inserted. */
  plainKey?: boolean | undefined;
}

/** What the org holds under these keys, by lower-cased key, with the fields the comparison reads. */
export async function readExisting(sink: GiftSink, t: Pick<Target, 'object' | 'keyField'>, fields: readonly string[], keys: Iterable<string>): Promise<Map<string, CrmRecord>> {
  return byKey(await readIn(sink, t.object, ['Id', t.keyField, ...fields.filter((f) => f !== 'Id' && f !== t.keyField)], t.keyField, keys), t.keyField);
}

/** Upserts the records that differ from `existing`; unchanged ones are only counted. */
export async function upsertChanged(sink: GiftSink, t: Target, desired: readonly Desired[], existing: ReadonlyMap<string, CrmRecord>): Promise<StepResult> {
  const out: StepResult = { ids: new Map(), failed: new Map(), rows: [] };
  const send: CrmRecord[] = [];
  const byId: Array<CrmRecord & { Id: string }> = [];
  const pending = new Map<string, ProjectionRow>();
  for (const d of desired) {
    const current = existing.get(d.key.toLowerCase());
    const id = typeof current?.Id === 'string' ? current.Id : undefined;
    const changed = changedFields(d.record, current);
    if (changed.length === 0) {
      out.ids.set(d.key, id);
      out.rows.push({ object: t.object, key: d.key, action: 'unchanged' });
      continue;
    }
    const row: ProjectionRow = { object: t.object, key: d.key, action: current ? 'update' : 'insert', fields: changed };
    if (t.dryRun) {
      out.ids.set(d.key, id);
      out.rows.push(row);
      continue;
    }
    const fields = Object.fromEntries(changed.map((f) => [f, d.record[f] ?? null]));
    const updateById = t.plainKey === true && id !== undefined;
    if (updateById) byId.push({ ...fields, Id: id });
    else send.push(current ? { [t.keyField]: d.key, ...fields } : { ...d.record, ...d.onInsert, [t.keyField]: d.key });
    pending.set((updateById ? id : d.key).toLowerCase(), row);
  }
  await sendPending(sink, t, send, pending, out);
  // Updates by Id (a plain key): each outcome under its record's row, by Id.
  for (const o of await sink.updateByIds(t.object, byId)) {
    const row = pending.get(o.key.toLowerCase());
    if (!row) continue;
    if (o.status === 'failed') {
      out.failed.set(row.key, o.error);
      out.rows.push({ ...row, action: 'fail', reason: o.error.code });
    } else {
      out.ids.set(row.key, o.id);
      out.rows.push(row);
    }
  }
  return out;
}

/** Deletes records svc-sync wrote that no longer apply (by their Ids); a dry run only lists them. */
export async function deleteObsolete(sink: GiftSink, t: Target, obsolete: ReadonlyArray<{ key: string; id: string }>): Promise<StepResult> {
  const out: StepResult = { ids: new Map(), failed: new Map(), rows: [] };
  if (obsolete.length === 0) return out;
  if (t.dryRun) {
    for (const o of obsolete) out.rows.push({ object: t.object, key: o.key, action: 'delete' });
    return out;
  }
  const keyOf = new Map(obsolete.map((o) => [o.id, o.key]));
  for (const o of await sink.deleteByIds(t.object, [...keyOf.keys()])) {
    const key = keyOf.get(o.id) ?? o.id;
    if (o.status === 'failed') {
      out.failed.set(key, o.error);
      out.rows.push({ object: t.object, key, action: 'fail', reason: o.error.code });
    } else out.rows.push({ object: t.object, key, action: 'delete' });
  }
  return out;
}

/** Upserts the records to send and records each outcome against its row (`pending`: by lower-cased key). */
export async function sendPending(sink: GiftSink, t: Pick<Target, 'object' | 'keyField' | 'plainKey'>, send: CrmRecord[], pending: ReadonlyMap<string, ProjectionRow>, out: StepResult): Promise<void> {
  if (send.length === 0) return;
  const outcomes = t.plainKey === true ? await sink.insertKeyed(t.object, t.keyField, send) : await sink.upsertOn(t.object, t.keyField, send);
  for (const o of outcomes) {
    const row = pending.get(o.key.toLowerCase());
    if (!row) continue;
    if (o.status === 'failed') {
      out.failed.set(row.key, o.error);
      out.rows.push({ ...row, action: 'fail', reason: o.error.code });
    } else {
      out.ids.set(row.key, o.id);
      out.rows.push(row);
    }
  }
}
