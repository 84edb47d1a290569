/**
 * Which run records a connection's retention may delete (issue 53). In an org shared by several
 * sites (SVC_SITE_KEYS), each connection keeps its own retention days: it deletes only the run
 * records that name it and its site (SITES.md decision 5), never another connection's. A lone
 * connection without site keys owns the whole log, as before.
 */
import { soqlLiteral } from './soql.js';
import { CONNECTION_FIELD, DEPLOY_LOG, RUN_OBJECT, SITE_FIELD } from './syncLogSchema.js';
import { sourceFields, type RunSource } from './syncLogLater.js';

/** The WHERE part naming this connection's own run records: its name (null for the implicit one) and its site. */
export function ownRunsFilter(siteId: number, connection: string | undefined): string {
  const own = sourceFields({ connection, siteId: String(siteId) });
  const name = own[CONNECTION_FIELD];
  return `${CONNECTION_FIELD} = ${typeof name === 'string' ? soqlLiteral(name) : 'null'} AND ${SITE_FIELD} = ${soqlLiteral(String(own[SITE_FIELD]))}`;
}

/** A row the query returned names this connection and site (checked again before any delete: the filter's answer is not trusted blindly). */
export function isOwnRun(row: Readonly<Record<string, unknown>>, siteId: number, source: RunSource): boolean {
  const own = sourceFields({ connection: source.connection, siteId: String(siteId) });
  const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));
  return text(row[CONNECTION_FIELD]) === text(own[CONNECTION_FIELD]) && text(row[SITE_FIELD]) === text(own[SITE_FIELD]);
}

/** Said when a shared org's run records cannot be told apart: none is deleted, and how to fix it. */
export const KEPT_RUNS_LINE = `salesforce log: no run record deleted: the org's ${RUN_OBJECT} lacks ${CONNECTION_FIELD} and ${SITE_FIELD}, so this connection cannot tell its own runs from another site's in this shared org; add them: ${DEPLOY_LOG}`;
