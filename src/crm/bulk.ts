/**
 * Upsert on SvcId__c through a Bulk API 2.0 ingest job: create, upload CSV, UploadComplete,
 * poll, then read successful and failed results and match them by SvcId__c (their order is not
 * the upload order). Every row carries the same columns (jsforce would take them from the first
 * record only): an absent field is an empty cell (unchanged), null or '' is `#N/A` (cleared).
 * A job that is still running when the poll time is up is reported as pending, not failed.
 */
import { KEY_FIELD } from '../model/refs.js';
import { sleep } from '../model/sleep.js';
import { escapeControls } from '../model/lineSafe.js';
import type { SalesforceApi } from './api.js';
import { BULK_NULL, parseCsv, toCsvBytes } from './csv.js';
import { batchFailureOf } from './errors.js';
import type { CrmError, CrmRecord, CrmValue, UpsertOutcome } from '../model/crmRecords.js';
import type { WriteStep } from '../model/outcomes.js';

export interface BulkOptions {
  /** First wait between polls; grows by half each poll up to maxPollIntervalMs. */
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  /** Total time to wait for a job: Salesforce may take minutes for large jobs. */
  pollTimeoutMs: number;
  /** Upload size per job; Salesforce accepts 150 MB, 100 MB leaves room for its base64 growth. */
  maxJobBytes: number;
}

export const DEFAULT_BULK: BulkOptions = { pollIntervalMs: 1000, maxPollIntervalMs: 10000, pollTimeoutMs: 10 * 60 * 1000, maxJobBytes: 100_000_000 };

interface JobInfo {
  id: string;
  state: 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';
  errorMessage?: string;
  numberRecordsProcessed?: number;
  numberRecordsFailed?: number;
}

function cell(v: CrmValue | undefined): string {
  if (v === undefined) return '';
  if (v === null || v === '') return BULK_NULL;
  return typeof v === 'string' ? v : String(v);
}

/** Columns shared by every row: the key first, then every field any record carries. */
function bulkColumns(records: CrmRecord[], keyField: string): string[] {
  const cols = new Set<string>([keyField]);
  for (const r of records) for (const k of Object.keys(r)) cols.add(k);
  return [...cols];
}

function toBulkCsv(records: CrmRecord[], keyField: string): Buffer {
  const columns = bulkColumns(records, keyField);
  // Rows made one at a time as the CSV is written: no copy of the batch as string arrays.
  return toCsvBytes(columns, function* () {
    for (const r of records) yield columns.map((c) => cell(r[c]));
  });
}

/**
 * A record's CSV row in bytes, over-counted by its field names (room for the empty cells of
 * columns it lacks), without building it.
 */
function rowSize(r: CrmRecord): number {
  let bytes = 16;
  for (const [k, v] of Object.entries(r)) {
    const text = cell(v);
    let quotes = 0;
    for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) quotes++;
    bytes += k.length + Buffer.byteLength(text) + quotes + 3;
  }
  return bytes;
}

/** Splits records into jobs whose CSV stays under maxBytes. */
function splitBySize(records: CrmRecord[], maxBytes: number): CrmRecord[][] {
  const jobs: CrmRecord[][] = [];
  let current: CrmRecord[] = [];
  let size = 0;
  for (const r of records) {
    const rowBytes = rowSize(r);
    if (current.length && size + rowBytes > maxBytes) {
      jobs.push(current);
      current = [];
      size = 0;
    }
    current.push(r);
    size += rowBytes;
  }
  if (current.length) jobs.push(current);
  return jobs;
}

/** "CODE:message" in sf__Error. */
function parseBulkError(text: string): CrmError {
  const m = /^([A-Z_]+):(.*)$/s.exec(text);
  return m ? { code: m[1], message: escapeControls(m[2].trim()) } : { code: 'UNKNOWN_ERROR', message: escapeControls(text) };
}

export async function upsertViaBulk(
  api: SalesforceApi,
  object: string,
  records: CrmRecord[],
  opts: BulkOptions = DEFAULT_BULK,
  onStep?: (step: WriteStep) => void,
  /** The external id to upsert on (SvcId__c; the sync log's objects have their own). */
  keyField: string = KEY_FIELD,
): Promise<Map<string, UpsertOutcome>> {
  const outcomes = new Map<string, UpsertOutcome>();
  for (const part of splitBySize(records, opts.maxJobBytes)) {
    for (const [k, o] of await runJob(api, object, part, opts, onStep, keyField)) outcomes.set(k, o);
  }
  return outcomes;
}

async function runJob(
  api: SalesforceApi,
  object: string,
  records: CrmRecord[],
  opts: BulkOptions,
  onStep: ((step: WriteStep) => void) | undefined,
  keyField: string,
): Promise<Map<string, UpsertOutcome>> {
  const outcomes = new Map<string, UpsertOutcome>();
  const recordKey = (r: CrmRecord): string => String(r[keyField]);
  const job = await runIngestJob(
    api,
    { object, externalIdFieldName: keyField, operation: 'upsert' },
    toBulkCsv(records, keyField),
    opts,
    {
      name: 'job',
      rerun: 'it may still complete (see Setup > Bulk Data Load Jobs), run again to confirm',
    },
    onStep ? { records: records.length, onStep } : undefined,
  );
  if ('error' in job) {
    for (const r of records) outcomes.set(recordKey(r), { key: recordKey(r), status: 'failed', error: job.error });
    return outcomes;
  }
  for (const row of job.ok) {
    const key = row[keyField];
    outcomes.set(key, { key, status: row.sf__Created === 'true' ? 'created' : 'updated', id: row.sf__Id });
  }
  for (const row of job.bad) {
    const key = row[keyField];
    outcomes.set(key, { key, status: 'failed', error: parseBulkError(row.sf__Error ?? '') });
  }
  for (const r of records) {
    const key = recordKey(r);
    if (!outcomes.has(key)) outcomes.set(key, { key, status: 'failed', error: { code: 'BULK_UNPROCESSED', message: `not in the results of Bulk API 2.0 job ${job.jobId}` } });
  }
  return outcomes;
}

/** Updates by Id in Bulk API 2.0 `update` jobs (an Id column and the fields set): outcomes keyed by Id. */
export async function updateViaBulk(api: SalesforceApi, object: string, records: Array<CrmRecord & { Id: string }>, opts: BulkOptions = DEFAULT_BULK): Promise<Map<string, UpsertOutcome>> {
  const outcomes = new Map<string, UpsertOutcome>();
  for (const part of splitBySize(records, opts.maxJobBytes)) {
    const job = await runIngestJob(api, { object, operation: 'update' }, toBulkCsv(part, 'Id'), opts, { name: 'update job', rerun: 'it may still complete, run the command again to confirm' });
    for (const id of part.map((r) => String(r.Id))) {
      // Every row failed until the job's results say otherwise.
      outcomes.set(id, { key: id, status: 'failed', error: 'error' in job ? job.error : { code: 'BULK_UNPROCESSED', message: `not in the results of Bulk API 2.0 job ${job.jobId}` } });
    }
    if ('error' in job) continue;
    for (const row of job.ok) outcomes.set(row.Id, { key: row.Id, status: 'updated', id: row.Id });
    for (const row of job.bad) outcomes.set(row.Id, { key: row.Id, status: 'failed', error: parseBulkError(row.sf__Error ?? '') });
  }
  return outcomes;
}

type ResultRow = Record<string, string>;

/** An ingest job's result rows, or the one error that every record of it fails with. */
type IngestResult = { jobId: string; ok: ResultRow[]; bad: ResultRow[] } | { error: CrmError };

/**
 * One Bulk API 2.0 ingest job (upsert, update or delete): create, upload the CSV, close, poll at growing
 * intervals, then read both result sets (JobComplete can still hold failed rows). A job that failed,
 * was aborted or is still running at the poll timeout comes back as an error for all its records;
 * fatal errors (session, limits) are thrown. `words` names the job in messages.
 */
export async function runIngestJob(
  api: SalesforceApi,
  job: { object: string; operation: 'upsert' | 'update' | 'delete'; externalIdFieldName?: string },
  csv: Buffer,
  opts: BulkOptions,
  words: { name: string; rerun: string },
  /** Told where the job stands; `records` is the job's row count (rows may span lines). */
  progress?: { records: number; onStep: (step: WriteStep) => void },
): Promise<IngestResult> {
  const records = progress?.records ?? 0;
  const onStep = progress?.onStep;
  let jobId: string | undefined;
  try {
    const created = await api.call<JobInfo>({ method: 'POST', url: '/jobs/ingest', body: { ...job, contentType: 'CSV', lineEnding: 'LF', columnDelimiter: 'COMMA' } });
    jobId = created.id;
    onStep?.({ via: 'bulk', step: 'created', records });
    await api.call<string>({ method: 'PUT', url: `/jobs/ingest/${jobId}/batches`, raw: { contentType: 'text/csv', bytes: csv }, text: true });
    await api.call<JobInfo>({ method: 'PATCH', url: `/jobs/ingest/${jobId}`, body: { state: 'UploadComplete' } });
    onStep?.({ via: 'bulk', step: 'uploaded', records });

    const started = Date.now();
    let interval = opts.pollIntervalMs;
    let info: JobInfo;
    for (;;) {
      await sleep(interval);
      info = await api.call<JobInfo>({ method: 'GET', url: `/jobs/ingest/${jobId}` });
      onStep?.({ via: 'bulk', step: 'processing', processed: info.numberRecordsProcessed ?? 0, records });
      if (info.state === 'JobComplete' || info.state === 'Failed' || info.state === 'Aborted') break;
      if (Date.now() - started + interval > opts.pollTimeoutMs) {
        return {
          error: {
            code: 'BULK_JOB_PENDING',
            message: `Bulk API 2.0 ${words.name} ${jobId} is still ${info.state} after ${Math.round((Date.now() - started) / 1000)} s; ${words.rerun}`,
          },
        };
      }
      interval = Math.min(opts.maxPollIntervalMs, Math.round(interval * 1.5));
    }
    if (info.state !== 'JobComplete') {
      return {
        error: {
          code: info.state === 'Failed' ? 'BULK_JOB_FAILED' : 'BULK_JOB_ABORTED',
          message: `Bulk API 2.0 ${words.name} ${jobId} ${info.state}: ${escapeControls(info.errorMessage ?? 'no reason given')}`,
        },
      };
    }
    // The results echo every uploaded column; only the outcome and the matching key are kept.
    onStep?.({ via: 'bulk', step: 'results', records });
    const columns = ['sf__Id', 'sf__Created', 'sf__Error', job.externalIdFieldName ?? 'Id'];
    const ok = parseCsv(await api.call<string>({ method: 'GET', url: `/jobs/ingest/${jobId}/successfulResults`, text: true }), { columns });
    const bad = parseCsv(await api.call<string>({ method: 'GET', url: `/jobs/ingest/${jobId}/failedResults`, text: true }), { columns });
    return { jobId, ok, bad };
  } catch (err) {
    const e = batchFailureOf(err);
    if (jobId) {
      // Best effort: an open job would otherwise linger in the org for days.
      await api.once({ method: 'PATCH', url: `/jobs/ingest/${jobId}`, body: { state: 'Aborted' } }).catch(() => undefined);
    }
    return { error: e.toCrmError() };
  }
}
