/**
 * Upsert on SvcId__c through sObject Collections: PATCH /composite/sobjects/<Object>/SvcId__c,
 * at most 200 records a call, allOrNone false, one result per record read in order. Always used
 * instead of the single-record upsert, whose URL carries the key unencoded (keys contain dots).
 * Records failing with a transient code are re-sent, alone, in later rounds; DUPLICATE_VALUE
 * (a concurrent insert of the same new key) is re-sent once, which turns it into an update.
 */
import type { CrmError, CrmRecord, UpsertOutcome } from '../model/crmRecords.js';
import { SalesforceError } from '../model/errors.js';
import { KEY_FIELD } from '../model/refs.js';
import { sleep } from '../model/sleep.js';
import { escapeControls } from '../model/lineSafe.js';
import type { WriteStep } from '../model/outcomes.js';
import { backoff, type SalesforceApi } from './api.js';
import { batchFailureOf, isTransientCode } from './errors.js';

export const COLLECTION_SIZE = 200;

interface SaveResult {
  id?: string | null;
  success: boolean;
  created?: boolean;
  errors?: Array<{ statusCode?: string; errorCode?: string; message?: string; fields?: string[] }>;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function firstError(res: SaveResult): CrmError {
  const e = res.errors?.[0];
  if (!e) return { code: 'UNKNOWN_ERROR', message: 'Salesforce reported a failure without detail' };
  const code = e.statusCode ?? e.errorCode ?? 'UNKNOWN_ERROR';
  // A validation rule's message is the admin's text: kept on the line that quotes it.
  const message = escapeControls(e.message ?? code);
  return e.fields?.length ? { code, message, fields: e.fields } : { code, message };
}

/**
 * A record as JSON: a `Lookup__r.Key__c` field (a reference by the target's external id, as a Bulk
 * CSV column names it) becomes `Lookup__r: {Key__c: value}`, as sObject Collections takes it.
 */
function jsonOf(object: string, r: CrmRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { attributes: { type: object } };
  for (const [k, v] of Object.entries(r)) {
    const dot = k.indexOf('.');
    if (dot < 0) out[k] = v;
    else out[k.slice(0, dot)] = { [k.slice(dot + 1)]: v };
  }
  return out;
}

/** `keyField`: the external id to upsert on (SvcId__c; the sync log's and the gift projection's objects have their own). */
export function upsertViaCollections(api: SalesforceApi, object: string, records: CrmRecord[], onStep?: (step: WriteStep) => void, keyField: string = KEY_FIELD): Promise<Map<string, UpsertOutcome>> {
  return saveViaCollections(api, { method: 'PATCH', url: `/composite/sobjects/${object}/${keyField}`, object, keyField }, records, onStep);
}

/** Updates records by their Id (PATCH /composite/sobjects): outcomes keyed by Id. */
export function updateViaCollections(api: SalesforceApi, object: string, records: Array<CrmRecord & { Id: string }>): Promise<Map<string, UpsertOutcome>> {
  return saveViaCollections(api, { method: 'PATCH', url: '/composite/sobjects', object, keyField: 'Id' }, records);
}

/** Inserts records (POST /composite/sobjects): outcomes keyed by `keyField`'s value, a plain field the records carry. */
export function insertViaCollections(api: SalesforceApi, object: string, records: CrmRecord[], keyField: string): Promise<Map<string, UpsertOutcome>> {
  return saveViaCollections(api, { method: 'POST', url: '/composite/sobjects', object, keyField }, records);
}

interface SaveCall {
  method: 'PATCH' | 'POST';
  url: string;
  object: string;
  /** The field that names a record in the outcomes (the external id, or Id for an update). */
  keyField: string;
}

async function saveViaCollections(api: SalesforceApi, call: SaveCall, records: CrmRecord[], onStep?: (step: WriteStep) => void): Promise<Map<string, UpsertOutcome>> {
  const { object, keyField } = call;
  const recordKey = (r: CrmRecord): string => String(r[keyField]);
  const outcomes = new Map<string, UpsertOutcome>();
  const duplicateRetried = new Set<string>();
  let pending = records;
  for (let round = 0; pending.length > 0; round++) {
    if (round > 0) await sleep(backoff(api.retry, round - 1));
    const again: CrmRecord[] = [];
    const parts = chunk(pending, COLLECTION_SIZE);
    for (const [i, part] of parts.entries()) {
      onStep?.({ via: 'collections', batch: i + 1, batches: parts.length });
      let results: SaveResult[];
      try {
        results = await api.call<SaveResult[]>({ method: call.method, url: call.url, body: { allOrNone: false, records: part.map((r) => jsonOf(object, r)) } });
      } catch (err) {
        const e = batchFailureOf(err);
        for (const r of part) outcomes.set(recordKey(r), { key: recordKey(r), status: 'failed', error: e.toCrmError() });
        continue;
      }
      if (!Array.isArray(results) || results.length !== part.length) {
        throw new SalesforceError('UNEXPECTED_RESPONSE', `Collections upsert of ${part.length} ${object} records answered ${Array.isArray(results) ? results.length : 'no'} results`);
      }
      results.forEach((res, i) => {
        const rec = part[i];
        const key = recordKey(rec);
        if (res.success && res.id) {
          outcomes.set(key, { key, status: res.created ? 'created' : 'updated', id: res.id });
          return;
        }
        const error = firstError(res);
        outcomes.set(key, { key, status: 'failed', error });
        const lastRound = round + 1 >= api.retry.attempts;
        if (isTransientCode(error.code) && !lastRound) again.push(rec);
        else if (error.code === 'DUPLICATE_VALUE' && !duplicateRetried.has(key)) {
          duplicateRetried.add(key);
          again.push(rec);
        }
      });
    }
    pending = again;
  }
  return outcomes;
}
