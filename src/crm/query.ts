/**
 * REST query with its paging (nextRecordsUrl). Bulk 2.0 query is avoided on purpose: jsforce's
 * bulk2.query() is unreliable when results span several pages.
 */
import type { SalesforceApi } from './api.js';
import { encodeSoql } from './soql.js';
import type { CrmValue } from '../model/crmRecords.js';
import { notSalesforceApi } from './errors.js';

export type QueryRow = Record<string, CrmValue>;

interface QueryPage {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: Array<Record<string, unknown>>;
}

/** One page of a query, checked to be one: `{}` or any other JSON is not Salesforce's REST API. */
async function pageOf(api: SalesforceApi, url: string): Promise<QueryPage> {
  const page = await api.call<QueryPage | null>({ method: 'GET', url });
  if (page === null || typeof page !== 'object' || !Array.isArray(page.records)) {
    const c = api.session.connection;
    throw notSalesforceApi(`${c.instanceUrl}/services/data/v${c.version}/query`, 200, 'JSON that is no query result (no records)');
  }
  return page;
}

export function queryUrlPrefix(api: SalesforceApi): string {
  const c = api.session.connection;
  return `${c.instanceUrl}/services/data/v${c.version}/query?q=`;
}

/** `endpoint` queryAll also returns deleted rows (a merged Account with its MasterRecordId). */
export async function queryAll(api: SalesforceApi, soql: string, endpoint: 'query' | 'queryAll' = 'query'): Promise<QueryRow[]> {
  const rows: QueryRow[] = [];
  let page = await pageOf(api, `/${endpoint}?q=${encodeSoql(soql)}`);
  for (;;) {
    for (const r of page.records) {
      const { attributes: _attributes, ...fields } = r;
      rows.push(fields as QueryRow);
    }
    if (page.done || !page.nextRecordsUrl) return rows;
    page = await pageOf(api, page.nextRecordsUrl);
  }
}

/**
 * The pages of a query one at a time (2,000 rows each at most), so a walk over a whole object
 * holds one page in memory, never the object.
 */
export async function* queryPages(api: SalesforceApi, soql: string): AsyncIterable<QueryRow[]> {
  let page = await pageOf(api, `/query?q=${encodeSoql(soql)}`);
  for (;;) {
    yield page.records.map((r) => {
      const { attributes: _attributes, ...fields } = r;
      return fields as QueryRow;
    });
    if (page.done || !page.nextRecordsUrl) return;
    page = await pageOf(api, page.nextRecordsUrl);
  }
}
