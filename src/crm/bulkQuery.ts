/**
 * A Bulk API 2.0 query job read page by page: create, poll until JobComplete, then results of at
 * most `maxRecords` rows a call, chained by the Sforce-Locator response header. Used for walks
 * over a whole object above the bulk threshold: a handful of calls instead of one per 2,000 rows.
 * (jsforce's bulk2.query() is not used: it is unreliable across result pages.)
 */
import type { SalesforceApi } from './api.js';
import { sleep } from '../model/sleep.js';
import type { BulkOptions } from './bulk.js';
import type { SalesforceSession } from './connection.js';
import { parseCsv } from './csv.js';
import { SalesforceError } from '../model/errors.js';
import type { QueryRow } from './query.js';

/** Rows per results call: bounds the memory of one page (Salesforce's default is 50,000). */
const BULK_QUERY_PAGE = 10_000;

interface JobInfo {
  id: string;
  state: string;
  errorMessage?: string;
}

/** The Sforce-Locator of each job's last results call, read from the response headers. */
const locators = new WeakMap<SalesforceSession, Map<string, string>>();

function locatorsOf(session: SalesforceSession): Map<string, string> {
  let byJob = locators.get(session);
  if (!byJob) {
    const map = new Map<string, string>();
    byJob = map;
    locators.set(session, map);
    session.onResponse((req, res) => {
      const m = /\/jobs\/query\/([^/?]+)\/results/.exec(req.url);
      const header = res?.headers?.['sforce-locator'];
      if (m) map.set(m[1], typeof header === 'string' ? header : 'null');
    });
  }
  return byJob;
}

export async function* bulkQueryPages(api: SalesforceApi, soql: string, opts: BulkOptions, pageSize = BULK_QUERY_PAGE): AsyncIterable<QueryRow[]> {
  const seen = locatorsOf(api.session);
  const job = await api.call<JobInfo>({ method: 'POST', url: '/jobs/query', body: { operation: 'query', query: soql, contentType: 'CSV', columnDelimiter: 'COMMA', lineEnding: 'LF' } });
  const started = Date.now();
  let interval = opts.pollIntervalMs;
  for (;;) {
    await sleep(interval);
    const info = await api.call<JobInfo>({ method: 'GET', url: `/jobs/query/${job.id}` });
    if (info.state === 'JobComplete') break;
    if (info.state === 'Failed' || info.state === 'Aborted')
      throw new SalesforceError('BULK_QUERY_FAILED', `Bulk API 2.0 query job ${job.id} ${info.state}: ${info.errorMessage ?? 'no reason given'}`);
    if (Date.now() - started + interval > opts.pollTimeoutMs)
      throw new SalesforceError('BULK_JOB_PENDING', `Bulk API 2.0 query job ${job.id} is still ${info.state} after ${Math.round((Date.now() - started) / 1000)} s`);
    interval = Math.min(opts.maxPollIntervalMs, Math.round(interval * 1.5));
  }
  let locator: string | undefined;
  try {
    do {
      const text = await api.call<string>({ method: 'GET', url: `/jobs/query/${job.id}/results?maxRecords=${pageSize}${locator ? `&locator=${encodeURIComponent(locator)}` : ''}`, text: true });
      locator = seen.get(job.id);
      // Bulk CSV has no nulls: an empty cell is one.
      const rows: QueryRow[] = parseCsv(text);
      for (const row of rows) for (const k in row) if (row[k] === '') row[k] = null;
      yield rows;
    } while (locator && locator !== 'null');
  } finally {
    seen.delete(job.id);
  }
}
