/**
 * `sync --all` notices orphans on the way: its list scans are complete and unfiltered, so after
 * a type is scanned, any key Salesforce holds that the scan did not list (or listed as no longer
 * eligible) is a candidate. No platform request is added (candidates are not confirmed by id:
 * `audit` does that); on the Salesforce side it costs one query per 2,000 records of the object
 * (a walk over Id and SvcId__c), and 16 bytes per listed record in memory.
 */
import { excludedBy, questionExcludedBy } from '../../mapping/map.js';
import { SCHEMA } from '../../mapping/schema.js';
import type { ApiAction, ApiRecordOf } from '../../model/apiRecords.js';
import type { SObjectName, SyncableType } from '../../model/objects.js';
import type { AuditSink, CrmSink } from '../../model/ports.js';
import { parsePositiveId, refOfKey } from '../../model/refs.js';
import { IdSet, PairSet, questionIdsOf } from './auditLedger.js';

export interface OrphanCandidate {
  object: SObjectName;
  key: string;
  reason: string;
}

export const isAuditSink = (sink: CrmSink): sink is AuditSink => typeof (sink as Partial<AuditSink>).scanKeys === 'function';

export class ScanLedger {
  private readonly listed = new Map<SyncableType, IdSet>();
  private readonly eligible = new Map<SyncableType, IdSet>();
  private readonly questions = new PairSet();

  private set(map: Map<SyncableType, IdSet>, type: SyncableType): IdSet {
    let s = map.get(type);
    if (!s) map.set(type, (s = new IdSet()));
    return s;
  }

  /** One scanned page; ids that could not be fetched count as listed and eligible (no false candidates). */
  page<T extends SyncableType>(type: T, records: ApiRecordOf[T][], failedIds: number[]): void {
    const listed = this.set(this.listed, type);
    const eligible = this.set(this.eligible, type);
    for (const r of records) {
      listed.add(r.id);
      if (excludedBy(type, r) === undefined) eligible.add(r.id);
      if (type === 'action') {
        for (const q of (r as ApiAction).questions ?? []) {
          // Read as the mapping reads it (3 and "3" are one question), or it would look an orphan.
          const id = parsePositiveId(q?.id);
          if (id !== undefined && questionExcludedBy(r as ApiAction, q) === undefined) this.questions.add(r.id, id);
        }
      }
    }
    for (const id of failedIds) {
      listed.add(id);
      eligible.add(id);
    }
  }

  /** Walks Salesforce's keys of the given (completely scanned) types. */
  async candidates(sink: AuditSink, types: SyncableType[]): Promise<OrphanCandidate[]> {
    const out: OrphanCandidate[] = [];
    for (const type of types) {
      const object = SCHEMA[type].apiName;
      const listed = this.set(this.listed, type);
      const eligible = this.set(this.eligible, type);
      for await (const rows of sink.scanKeys(object, [], listed.count)) {
        for (const row of rows) {
          const ref = refOfKey(row.SvcId__c);
          if (!ref || ref.type !== type) continue;
          if (!listed.has(ref.id)) out.push({ object, key: row.SvcId__c, reason: 'not in the complete list scan (deleted on the platform?)' });
          else if (!eligible.has(ref.id)) out.push({ object, key: row.SvcId__c, reason: "no longer eligible under the spec's filters" });
        }
      }
      if (type !== 'action') continue;
      for await (const rows of sink.scanKeys(SCHEMA.question.apiName, [], this.questions.count)) {
        for (const row of rows) {
          const ids = questionIdsOf(row.SvcId__c);
          if (!ids || this.questions.has(ids.actionId, ids.questionId)) continue;
          const reason = listed.has(ids.actionId) ? "blank answer, or no longer in its action's questions" : 'its action is not in the complete list scan';
          out.push({ object: SCHEMA.question.apiName, key: row.SvcId__c, reason });
        }
      }
    }
    return out;
  }
}
