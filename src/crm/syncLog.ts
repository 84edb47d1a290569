/**
 * The sync log writer, beside the sink (issue 30): reads the open errors once per run (one
 * query), then writes the run record (one sObject Collections upsert on RunKey__c) and the error
 * records that change (one more, up to 200; a Bulk API 2.0 job beyond), the errors pointing at
 * their run by its external id. Retention deletes what is due in one call (up to 200). Its own
 * calls are counted apart from the mirror's. It never throws: a log that cannot be written is an
 * answer (missing objects, or a failure), and the run's own outcome stands.
 */
import { isFatal } from '../model/errors.js';
import type { LogResult, RetentionDone, RunEntry, RunOutcomes, SyncLogPort } from '../model/syncLog.js';
import { DEFAULT_SYNC_LOG, type Settings } from '../config/settings.js';
import type { SalesforceApi } from './api.js';
import { DEFAULT_BULK, upsertViaBulk, type BulkOptions } from './bulk.js';
import { COLLECTION_SIZE, upsertViaCollections } from './collections.js';
import { deleteViaBulk, deleteViaCollections } from './delete.js';
import { toSalesforceError } from './errors.js';
import { queryAll } from './query.js';
import { cutLine, planErrors, retryKeys, runRecord, type StoredError } from './syncLogPlan.js';
import type { CrmRecord, UpsertOutcome } from '../model/crmRecords.js';
import { ownBareKey, qualifyKey, sitePrefixFilter } from '../model/siteKeys.js';
import { CONNECTION_FIELD, DEPLOY_LOG, ERROR_KEY, ERROR_OBJECT, ERROR_STATUSES, LOG_OBJECTS, RUN_KEY, RUN_OBJECT, SITE_FIELD, type ErrorStatus } from './syncLogSchema.js';
import { laterFieldsNamed, LogFieldsKnown, withoutLater, type RunSource } from './syncLogLater.js';
import { isOwnRun, KEPT_RUNS_LINE, ownRunsFilter } from './syncLogScope.js';

type OpenRead = { ok: true; open: Map<string, StoredError> } | { ok: false; result: LogResult };

const OPEN_QUERY = `SELECT Id, ${ERROR_KEY}, Status__c, Attempts__c, RetryRequested__c FROM ${ERROR_OBJECT} WHERE Status__c IN ('Open', 'Ignored')`;

const isMissingObject = (code: string): boolean => code === 'INVALID_TYPE' || code === 'NOT_FOUND';

const listed = (items: readonly string[]): string => (items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);

/** The later fields an org lacks, said with the fix; undefined when none was found. */
const lackingLine = (fields: readonly string[]): string | undefined =>
  fields.length === 0 ? undefined : `the org lacks ${listed(fields)} (its sync log was set up before they were added): written without them; add them: ${DEPLOY_LOG}`;

export class SyncLog implements SyncLogPort {
  private read: Promise<OpenRead> | undefined;
  private spent = 0;

  constructor(
    private readonly api: SalesforceApi,
    private readonly bulk: BulkOptions = DEFAULT_BULK,
    /** SVC_SITE_KEYS: error records carry the site's qualified key, and only the site's own are read. */
    private readonly siteKeys?: number,
    /** The connection and site the run records name (SITES.md decision 5). */
    private readonly source: RunSource = {},
  ) {
    this.known = LogFieldsKnown.of(api);
  }

  private readonly known: LogFieldsKnown;

  /** An error record as the org holds it: its key qualified with the site, and the site named. */
  private toOrg(record: CrmRecord): CrmRecord {
    const key = record[ERROR_KEY];
    const site = this.source.siteId === undefined ? {} : { [SITE_FIELD]: this.source.siteId };
    const keyed = this.siteKeys === undefined || typeof key !== 'string' ? record : { ...record, [ERROR_KEY]: qualifyKey(this.siteKeys, key) };
    return { ...keyed, ...site };
  }

  /** Salesforce calls the log made so far (apart from the mirror's). */
  calls(): number {
    return this.spent;
  }

  private async counted<T>(work: () => Promise<T>): Promise<T> {
    const before = this.api.calls().total;
    try {
      return await work();
    } finally {
      this.spent += this.api.calls().total - before;
    }
  }

  /** The Open and Ignored errors, read once per run (a run's start and its end share the read). */
  private openErrors(): Promise<OpenRead> {
    this.read ??= this.counted(async () => {
      try {
        const site = this.siteKeys;
        const rows = await queryAll(this.api, site === undefined ? OPEN_QUERY : `${OPEN_QUERY} AND ${sitePrefixFilter(site, ERROR_KEY)}`);
        const open = new Map<string, StoredError>();
        for (const r of rows) {
          const key = site === undefined ? String(r[ERROR_KEY]) : ownBareKey(site, String(r[ERROR_KEY]));
          if (key === undefined) continue;
          const status = (ERROR_STATUSES as readonly string[]).includes(String(r.Status__c)) ? (r.Status__c as ErrorStatus) : 'Open';
          open.set(key.toLowerCase(), { Id: String(r.Id), key, status, attempts: Number(r.Attempts__c ?? 0), retryRequested: r.RetryRequested__c === true });
        }
        return { ok: true as const, open };
      } catch (err) {
        return { ok: false as const, result: await this.unavailable(err) };
      }
    });
    return this.read;
  }

  /** Why the log cannot be used: the objects are missing (each named), or another failure. */
  private async unavailable(err: unknown): Promise<LogResult> {
    const e = toSalesforceError(err);
    if (isFatal(e) || !isMissingObject(e.code)) return { status: 'failed', calls: 0, message: e.message };
    const missing: string[] = [ERROR_OBJECT];
    try {
      await queryAll(this.api, `SELECT Id FROM ${RUN_OBJECT} LIMIT 1`);
    } catch (again) {
      if (isMissingObject(toSalesforceError(again).code)) missing.unshift(RUN_OBJECT);
    }
    const message = `the sync log is not in the org: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing; deploy the org setup: ${DEPLOY_LOG}`;
    return { status: 'missing', calls: 0, missing: LOG_OBJECTS.filter((o) => missing.includes(o)), message };
  }

  /** Keys of Open errors an admin ticked RetryRequested__c on; a reason instead when the log cannot be read. */
  async retryRequested(): Promise<{ keys: string[]; ignored: string[] } | { result: LogResult }> {
    const read = await this.openErrors();
    if (!read.ok) return { result: { ...read.result, calls: this.spent } as LogResult };
    return { keys: retryKeys(read.open), ignored: [...read.open.values()].filter((e) => e.status === 'Ignored').map((e) => e.key) };
  }

  /**
   * A ticked key no retry can sync (not a key svc-sync writes): unticked with the reason, at once,
   * so neither sync nor serve asks for it again (up to 200 a run; one call). A failure is left for
   * the next run.
   */
  async refuseRetries(refused: ReadonlyArray<{ key: string; reason: string }>): Promise<void> {
    if (refused.length === 0) return;
    const records = refused.slice(0, COLLECTION_SIZE).map(({ key, reason }) => this.toOrg({ [ERROR_KEY]: key, RetryRequested__c: false, Message__c: cutLine(reason, 255) }));
    await this.counted(() => upsertViaCollections(this.api, ERROR_OBJECT, records, undefined, ERROR_KEY)).catch(() => undefined);
  }

  /** The run record and the error records that change, at the end of a run. */
  async record(run: RunEntry, outcomes: RunOutcomes, redact: (text: string) => string): Promise<LogResult> {
    const read = await this.openErrors();
    if (!read.ok) return { ...read.result, calls: this.spent } as LogResult;
    return this.counted(async () => {
      try {
        const ran = await this.upsertLog(RUN_OBJECT, [runRecord(run, this.source)], RUN_KEY);
        const runWritten = ran.get(run.key)?.status !== 'failed';
        const plan = planErrors({ open: read.open, outcomes, runKey: runWritten ? run.key : undefined, now: run.finishedAt, redact });
        const records = plan.records.map((r) => this.toOrg(r));
        const written = records.length === 0 ? new Map<string, UpsertOutcome>() : await this.upsertLog(ERROR_OBJECT, records, ERROR_KEY);
        const failedErrors = [...written.values()].filter((o) => o.status === 'failed').length;
        const open = read.open.size + plan.opened - plan.resolved;
        const lacking = lackingLine(this.known.found());
        return { status: 'written' as const, calls: 0, opened: plan.opened, resolved: plan.resolved, open, runWritten, failedErrors, ...(lacking === undefined ? {} : { lacking }) };
      } catch (err) {
        const e = toSalesforceError(err);
        return isMissingObject(e.code) ? this.unavailable(e) : { status: 'failed' as const, calls: 0, message: e.message };
      }
    }).then((r) => ({ ...r, calls: this.spent }) as LogResult);
  }

  /**
   * Log records upserted (Collections up to 200, Bulk beyond); an org set up before the later
   * fields refuses them: the records are sent again without them, and the org is known to lack
   * them for the rest of the process (one extra call, once).
   */
  private async upsertLog(object: typeof RUN_OBJECT | typeof ERROR_OBJECT, rows: CrmRecord[], keyField: string): Promise<Map<string, UpsertOutcome>> {
    const send = (records: CrmRecord[]): Promise<Map<string, UpsertOutcome>> =>
      records.length > COLLECTION_SIZE ? upsertViaBulk(this.api, object, records, this.bulk, undefined, keyField) : upsertViaCollections(this.api, object, records, undefined, keyField);
    const first = this.known.lacks(object) ? rows.map((r) => withoutLater(object, r)) : rows;
    let written: Map<string, UpsertOutcome>;
    try {
      written = await send(first);
    } catch (err) {
      const e = toSalesforceError(err);
      if (first === rows && laterFieldsNamed(object, e.message)) return this.known.lacking(object, () => send(rows.map((r) => withoutLater(object, r))));
      throw e;
    }
    const refused = [...written.values()].some((o) => o.status === 'failed' && laterFieldsNamed(object, o.error.message));
    if (first !== rows || !refused) return written;
    return this.known.lacking(object, () => send(rows.map((r) => withoutLater(object, r))));
  }

  /**
   * Runs finished before `before` that this connection may delete: all of them for a lone
   * connection without site keys; in a shared org (SVC_SITE_KEYS) only those naming this
   * connection and site, and none when the org lacks the fields that name them (kept, and said).
   */
  private async ownOldRuns(before: string): Promise<{ rows: Array<Record<string, unknown>>; kept?: true }> {
    const old = `SELECT Id, ${CONNECTION_FIELD}, ${SITE_FIELD} FROM ${RUN_OBJECT} WHERE FinishedAt__c < ${before}`;
    const site = this.siteKeys;
    if (site === undefined) return { rows: await queryAll(this.api, `SELECT Id FROM ${RUN_OBJECT} WHERE FinishedAt__c < ${before}`) };
    if (this.known.lacks(RUN_OBJECT)) return { rows: [], kept: true };
    try {
      const rows = await queryAll(this.api, `${old} AND ${ownRunsFilter(site, this.source.connection)}`);
      return { rows: rows.filter((r) => isOwnRun(r, site, this.source)) };
    } catch (err) {
      const e = toSalesforceError(err);
      if (!laterFieldsNamed(RUN_OBJECT, e.message)) throw e;
      await this.known.lacking(RUN_OBJECT, () => Promise.resolve());
      return { rows: [], kept: true };
    }
  }

  /**
   * Deletes Resolved errors resolved before `errorsBefore` and runs finished before `runsBefore`:
   * two queries for their Ids, then one delete call (up to 200, of both objects together). With
   * SVC_SITE_KEYS both are the site's own: errors by their key's prefix, runs by the fields naming them.
   */
  async retention(errorsBefore: string, runsBefore: string): Promise<RetentionDone> {
    const before = this.spent;
    const done = await this.counted(async () => {
      const mine = this.siteKeys === undefined ? '' : ` AND ${sitePrefixFilter(this.siteKeys, ERROR_KEY)}`;
      const errors = await queryAll(this.api, `SELECT Id FROM ${ERROR_OBJECT} WHERE Status__c = 'Resolved' AND ResolvedAt__c < ${errorsBefore}${mine}`);
      const { rows: runs, kept } = await this.ownOldRuns(runsBefore);
      const ids = [...errors, ...runs].map((r) => String(r.Id));
      const note = kept ? { kept: KEPT_RUNS_LINE } : {};
      if (ids.length === 0) return { deleted: 0, failed: 0, ...note };
      const outcomes = new Map();
      if (ids.length <= COLLECTION_SIZE) for (const [k, o] of await deleteViaCollections(this.api, ids)) outcomes.set(k, o);
      else {
        for (const [object, rows] of [[ERROR_OBJECT, errors] as const, [RUN_OBJECT, runs] as const]) {
          if (rows.length > 0)
            for (const [k, o] of await deleteViaBulk(
              this.api,
              object,
              rows.map((r) => String(r.Id)),
              this.bulk,
            ))
              outcomes.set(k, o);
        }
      }
      const failed = [...outcomes.values()].filter((o: { status: string }) => o.status === 'failed').length;
      return { deleted: outcomes.size - failed, failed, ...note };
    });
    return { ...done, calls: this.spent - before };
  }
}

/** A fresh log writer for a run (it reads the open errors once): none when the log is off or nothing may be written. */
export function syncLogFor(settings: Settings, api: SalesforceApi, dryRun: boolean): SyncLog | undefined {
  if (!(settings.salesforce.log ?? DEFAULT_SYNC_LOG).enabled || dryRun) return undefined;
  const { siteId } = settings.platform;
  const source = { connection: settings.salesforce.place?.connection, siteId: siteId === undefined ? undefined : String(siteId) };
  return new SyncLog(api, undefined, settings.salesforce.siteKeys, source);
}
