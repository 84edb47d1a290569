/**
 * Deletes by Salesforce Id: sObject Collections (DELETE /composite/sobjects?ids=..., at most 200
 * Ids a call, allOrNone false, one result per Id in order) below the bulk threshold, a Bulk API
 * 2.0 delete job (CSV of one Id column) above it. Records failing with a transient code are sent
 * again in later rounds; a record already gone (ENTITY_IS_DELETED) counts as deleted.
 */
import { backoff, type SalesforceApi } from './api.js';
import { sleep } from '../model/sleep.js';
import { runIngestJob, type BulkOptions } from './bulk.js';
import { chunk, COLLECTION_SIZE } from './collections.js';
import { toCsvBytes } from './csv.js';
import { batchFailureOf, isTransientCode } from './errors.js';
import type { CrmError, DeleteOutcome } from '../model/crmRecords.js';
import { SalesforceError } from '../model/errors.js';

interface DeleteResult {
  id?: string | null;
  success: boolean;
  errors?: Array<{ statusCode?: string; message?: string; fields?: string[] }>;
}

const errorOf = (r: DeleteResult): CrmError => {
  const e = r.errors?.[0];
  const code = e?.statusCode ?? 'UNKNOWN_ERROR';
  return { code, message: e?.message ?? code };
};

/** Gone already is what a delete wants: another run or an admin got there first. */
const goneAlready = (code: string): boolean => code === 'ENTITY_IS_DELETED';

export async function deleteViaCollections(api: SalesforceApi, ids: string[]): Promise<Map<string, DeleteOutcome>> {
  const outcomes = new Map<string, DeleteOutcome>();
  let pending = [...new Set(ids)];
  for (let round = 0; pending.length > 0; round++) {
    if (round > 0) await sleep(backoff(api.retry, round - 1));
    const again: string[] = [];
    for (const part of chunk(pending, COLLECTION_SIZE)) {
      let results: DeleteResult[];
      try {
        results = await api.call<DeleteResult[]>({ method: 'DELETE', url: `/composite/sobjects?ids=${part.map(encodeURIComponent).join(',')}&allOrNone=false` });
      } catch (err) {
        const e = batchFailureOf(err);
        for (const id of part) outcomes.set(id, { id, status: 'failed', error: e.toCrmError() });
        continue;
      }
      if (!Array.isArray(results) || results.length !== part.length) {
        throw new SalesforceError('UNEXPECTED_RESPONSE', `Collections delete of ${part.length} records answered ${Array.isArray(results) ? results.length : 'no'} results`);
      }
      results.forEach((res, i) => {
        const id = part[i];
        if (res.success) return outcomes.set(id, { id, status: 'deleted' });
        const error = errorOf(res);
        if (goneAlready(error.code)) return outcomes.set(id, { id, status: 'deleted' });
        outcomes.set(id, { id, status: 'failed', error });
        if (isTransientCode(error.code) && round + 1 < api.retry.attempts) again.push(id);
        return undefined;
      });
    }
    pending = again;
  }
  return outcomes;
}

/** One Bulk API 2.0 delete job over `ids`; outcomes matched by the echoed Id column. */
export async function deleteViaBulk(api: SalesforceApi, object: string, ids: string[], opts: BulkOptions): Promise<Map<string, DeleteOutcome>> {
  const unique = [...new Set(ids)];
  const outcomes = new Map<string, DeleteOutcome>();
  const job = await runIngestJob(
    api,
    { object, operation: 'delete' },
    toCsvBytes(['Id'], () => unique.map((id) => [id])),
    opts,
    {
      name: 'delete job',
      rerun: 'it may still complete, run the audit again to confirm',
    },
  );
  if ('error' in job) {
    for (const id of unique) outcomes.set(id, { id, status: 'failed', error: job.error });
    return outcomes;
  }
  for (const row of job.ok) outcomes.set(row.Id, { id: row.Id, status: 'deleted' });
  for (const row of job.bad) {
    const m = /^([A-Z_]+):(.*)$/s.exec(row.sf__Error ?? '');
    const error = m ? { code: m[1], message: m[2].trim() } : { code: 'UNKNOWN_ERROR', message: row.sf__Error ?? '' };
    outcomes.set(row.Id, goneAlready(error.code) ? { id: row.Id, status: 'deleted' } : { id: row.Id, status: 'failed', error });
  }
  for (const id of unique) {
    if (!outcomes.has(id)) outcomes.set(id, { id, status: 'failed', error: { code: 'BULK_UNPROCESSED', message: `not in the results of Bulk API 2.0 job ${job.jobId}` } });
  }
  return outcomes;
}
