/**
 * `audit --delete-orphans`: orphans deleted from Salesforce, children before parents, in batches
 * (Collections 200 a call, a Bulk API 2.0 delete job above the bulk threshold). A record that
 * still has children in Salesforce which are not orphans is kept, with the reason: deleting it
 * would clear their lookups.
 */
import { LEVEL, SCHEMAS, schemaByApiName } from '../../mapping/schema.js';
import type { CrmError } from '../../model/crmRecords.js';
import type { SObjectName } from '../../model/objects.js';
import type { AuditSink } from '../../model/ports.js';
import type { OrphanRow } from './auditTypes.js';

type DeletionOutcome = 'deleted' | 'would delete' | 'kept' | 'failed';

export interface DeletionRow {
  object: SObjectName;
  key: string;
  /** Salesforce Id. */
  id: string;
  outcome: DeletionOutcome;
  reason?: string | undefined;
  error?: CrmError;
}

/** Child objects and the lookup fields by which their records point at `object`. */
function childLinks(object: SObjectName): Array<{ object: SObjectName; field: string }> {
  const out: Array<{ object: SObjectName; field: string }> = [];
  for (const s of SCHEMAS) for (const f of s.fields) if (f.type.kind === 'lookup' && f.type.to === object) out.push({ object: s.apiName, field: f.name });
  return out;
}

const level = (object: SObjectName): number => LEVEL[schemaByApiName(object)?.type ?? 'segment'];

/** Deletions sent together between two looks at the stop signal (a Collections call takes 200). */
const CHUNK = 200;

interface DeleteOptions {
  /** Each row as it is decided: a stopped run still reports every deletion done. */
  onRow?: (row: DeletionRow) => void;
  /** Ctrl-C / SIGTERM: the chunk in flight completes, no new one starts (the reason is thrown). */
  stop?: AbortSignal;
}

export async function deleteOrphans(sink: AuditSink, orphans: OrphanRow[], dryRun: boolean, opts: DeleteOptions = {}): Promise<DeletionRow[]> {
  const { onRow, stop } = opts;
  const byObject = new Map<SObjectName, OrphanRow[]>();
  for (const o of orphans) {
    const list = byObject.get(o.object);
    if (list) list.push(o);
    else byObject.set(o.object, [o]);
  }
  const rows: DeletionRow[] = [];
  const report = (row: DeletionRow): void => {
    rows.push(row);
    onRow?.(row);
  };
  /** Ids deleted (or, in a dry run, that would be): children among them do not hold a parent back. */
  const gone = new Set<string>();
  const objects = [...byObject.keys()].sort((a, b) => level(b) - level(a));
  for (const object of objects) {
    const list = byObject.get(object) ?? [];
    const ids = list.map((o) => o.id);
    const holders = new Map<string, string[]>();
    for (const link of childLinks(object)) {
      const children = await sink.readWhere(link.object, link.field, ids, [link.field]);
      for (const child of children) {
        if (gone.has(child.Id)) continue;
        const parent = String(child[link.field]);
        const list = holders.get(parent);
        if (list) list.push(`${link.object} ${child.SvcId__c}`);
        else holders.set(parent, [`${link.object} ${child.SvcId__c}`]);
      }
    }
    const free: OrphanRow[] = [];
    for (const o of list) {
      const held = holders.get(o.id);
      if (!held) {
        free.push(o);
        continue;
      }
      const shown = held.slice(0, 3).join(', ') + (held.length > 3 ? ` and ${held.length - 3} more` : '');
      report({ object, key: o.key, id: o.id, outcome: 'kept', reason: `${held.length} child record(s) in Salesforce are not orphans: ${shown}` });
    }
    if (free.length === 0) continue;
    if (dryRun) {
      for (const o of free) {
        gone.add(o.id);
        report({ object, key: o.key, id: o.id, outcome: 'would delete', reason: o.reason });
      }
      continue;
    }
    for (let i = 0; i < free.length; i += CHUNK) {
      stop?.throwIfAborted();
      await deleteChunk(sink, object, free.slice(i, i + CHUNK), gone, report);
    }
  }
  return rows;
}

async function deleteChunk(sink: AuditSink, object: SObjectName, free: OrphanRow[], gone: Set<string>, report: (row: DeletionRow) => void): Promise<void> {
  const outcomes = new Map(
    (
      await sink.deleteByIds(
        object,
        free.map((o) => o.id),
      )
    ).map((d) => [d.id, d]),
  );
  for (const o of free) {
    const d = outcomes.get(o.id);
    if (d?.status === 'deleted') {
      gone.add(o.id);
      report({ object, key: o.key, id: o.id, outcome: 'deleted', reason: o.reason });
    } else {
      report({ object, key: o.key, id: o.id, outcome: 'failed', error: d?.status === 'failed' ? d.error : { code: 'NO_RESULT', message: 'Salesforce returned no result for this record' } });
    }
  }
}
