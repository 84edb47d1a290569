/**
 * The engine's two seams: a source that turns refs into API records (platform/), and a sink that
 * reads and writes CRM records (crm/). The engine knows both sides only through these.
 */
import type { PlatformProfile } from './platformProfile.js';
import type { ApiRecordOf, ResourceType } from './apiRecords.js';
import type { CrmCallCounts, CrmRecord, DeleteOutcome, StoredRecord, UpsertOutcome } from './crmRecords.js';
import type { PlatformError } from './errors.js';
import type { GiftObject, SObjectName } from './objects.js';
import type { WriteStep } from './outcomes.js';

export interface FetchResult<T> {
  records: Map<number, T>;
  /** Deleted or never existed: answered 404 by id, or absent from a complete list scan. */
  notFound: number[];
  /** Those of notFound that a complete, unfiltered list scan of this run proved absent (no request made). */
  absentFromScan?: ReadonlySet<number>;
  /** Anything else that failed after retries, per id. */
  failed: Map<number, PlatformError>;
}

export interface FetchOptions {
  /** The ids are known to have changed after this time: a list scan may be narrowed to it. */
  updatedAfter?: string;
  /**
   * Ask for each id by id, even one a complete list scan of this run shows absent: `audit`
   * confirms an orphan with a 404 (a record may have been created after its page was read).
   */
  byId?: boolean;
  /**
   * The latest created_at of the records naming these ids (parents of a batch): an absence kept
   * from before then holds for them whatever their id (a parent exists before its children).
   */
  namedBefore?: string;
}

export interface ScanPage<T> {
  records: T[];
  /** Listed records that could not be fetched (lists used for ids only): failures, not skips. */
  failed: Map<number, PlatformError>;
  /** This page's number (1-based), as the list API counts. */
  page: number;
  totalPages: number;
  /** Records the (filtered) list holds in all: the progress total. */
  totalEntries: number;
  /** The characters of the page's strings as listed (textSize), when the source measured them: a batch counts them once. */
  text?: number;
}

export interface ScanFilter {
  updatedAfter?: string;
  createdAfter?: string;
  /** First page to read (a resumed run skips the pages it already wrote). */
  fromPage?: number;
}

/** Platform requests made, by kind: the first performance figure of a run. */
export interface PlatformRequestCounts {
  total: number;
  byId: number;
  list: number;
  retries: number;
  rateLimitWaits: number;
  /** Milliseconds the run spent waiting for rate-limit windows (overlapping waits counted once). */
  waitedMs: number;
}

export interface RecordSource {
  /**
   * Records by id at the lowest request cost (by id or a list scan, whichever is cheaper); each
   * record is fetched at most once per run and served from the cache after that.
   */
  fetch<T extends ResourceType>(type: T, ids: number[], options?: FetchOptions): Promise<FetchResult<ApiRecordOf[T]>>;
  /** A list scan, page by page in page order, so large collections flow through in bounded memory. */
  scan<T extends ResourceType>(type: T, filter: ScanFilter): AsyncIterable<ScanPage<ApiRecordOf[T]>>;
  requests(): PlatformRequestCounts;
  /**
   * The first page of the run's first scan, read before anything else: a base URL that is not the
   * platform's API stops the run (a ConfigError); the page is kept for the scan (no extra request).
   */
  openScan?(type: ResourceType, filter: ScanFilter): Promise<void>;
  /** What the run learned of the platform (an ignored filter, a smaller page, partial list pages), one line each. */
  learned?(): string[];
  /** What is known of the platform now, to keep for the next run. */
  profile?(): PlatformProfile;
  /** The site the platform's records carry (site_id), once one was read. */
  siteReported?(): number | undefined;
  /** Records a later change names (webhooks, retries): a kept proof of their absence no longer holds. */
  named?(type: ResourceType, ids: readonly number[]): void;
  /** Proven not on the platform, with no request: this run's complete list scan did not list it, or a kept proof up to the last complete scan's highest id holds. */
  provenGone?(type: ResourceType, id: number): boolean;
}

export interface CrmSink {
  /** Reads existing records by SvcId__c with the given fields, batched; unknown keys are absent. */
  readByKeys(object: SObjectName, keys: string[], fields: string[]): Promise<Map<string, StoredRecord>>;
  /** Upserts on SvcId__c in batches (Collections or Bulk 2.0); one outcome per distinct key; `onStep` hears where the write stands. */
  upsert(object: SObjectName, records: CrmRecord[], onStep?: (step: WriteStep) => void): Promise<UpsertOutcome[]>;
  /** Records whose `field` holds one of `values` (a lookup for a descendant re-link, an owner's email), with the given fields. */
  readWhere(object: SObjectName, field: string, values: string[], fields: string[]): Promise<StoredRecord[]>;
  calls(): CrmCallCounts;
}

/** What makes every write of an object fail, as doctor words it. */
export interface SetupProblem {
  /** doctor's first finding for the object, whole (it names the fix). */
  cause: string;
  /** How many such findings doctor made for the object. */
  findings: number;
}

/**
 * doctor's checks of one object (one describe call): what makes every write of it fail (a field
 * missing or hidden, a field the user may not edit, the object absent), undefined when nothing does.
 */
export type ObjectCheck = (object: SObjectName) => Promise<SetupProblem | undefined>;

/** What an audit needs of Salesforce beyond the engine's sink: a walk over every key, and deletes. */
export interface AuditSink extends CrmSink {
  /** Every record of an object, page by page; `expected`: about how many (a Bulk API 2.0 query above the bulk threshold). */
  scanKeys(object: SObjectName, fields?: string[], expected?: number): AsyncIterable<StoredRecord[]>;
  /** Deletes by Salesforce Id in batches; one outcome per distinct Id. */
  deleteByIds(object: SObjectName, ids: string[]): Promise<DeleteOutcome[]>;
  /** SVC_SITE_KEYS: how many mirror records carry no site prefix (never touched; `keys qualify` rewrites them); undefined without site keys. */
  bareKeyCount?(): Promise<number | undefined>;
}

/** What `keys qualify` needs of Salesforce beyond the audit's walk: updates by Id (a record's keys rewritten, nothing else). */
export interface KeySink extends AuditSink {
  /**
   * Updates by Salesforce Id in batches (Collections of 200, a Bulk API 2.0 update job above the bulk threshold); one outcome per record, keyed by its Id.
   * `object`: a mirror object, a gift-side one or the run log's errors (those two always in Collections).
   */
  updateByIds(object: string, records: Array<CrmRecord & { Id: string }>): Promise<UpsertOutcome[]>;
  /** `Id` and `fields` of every record of `object` that meets `where` (a condition built by the caller, never from input), page by page; Bulk above the threshold, as scanKeys. */
  scanWhere(object: string, fields: string[], where: string | undefined, expected?: number): AsyncIterable<StoredRecord[]>;
  /** Whether the org has `object` with every one of `fields` (a describe): the gift side and the run log are optional. */
  hasFields(object: string, fields: readonly string[]): Promise<boolean>;
}

/**
 * What the gift projection needs of Salesforce (PROJECTION.md §6.2): upserts on each object's own
 * key field, updates by Id (claims, filled blanks), deletes, and SOQL reads. Every write goes in
 * sObject Collections of 200; each call counts in `calls()` with the mirror's.
 */
export interface GiftSink {
  /** Upserts on `keyField` (an external id); one outcome per distinct key, keyed by its value. */
  upsertOn(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]>;
  /** Inserts records whose key field is plain text, not an external id (NPSP's contact roles, P9); one outcome per record, keyed by its value. */
  insertKeyed(object: GiftObject, keyField: string, records: CrmRecord[]): Promise<UpsertOutcome[]>;
  /** Updates records by their `Id`; one outcome per record, keyed by its Id. */
  updateByIds(object: GiftObject, records: Array<CrmRecord & { Id: string }>): Promise<UpsertOutcome[]>;
  /** Deletes by Id; one outcome per distinct Id. */
  deleteByIds(object: GiftObject, ids: string[]): Promise<DeleteOutcome[]>;
  /** A SOQL query, every page. `withDeleted`: /queryAll, which also returns deleted rows (a merged loser and its MasterRecordId). */
  query(soql: string, withDeleted?: boolean): Promise<CrmRecord[]>;
  calls(): CrmCallCounts;
  /**
   * SVC_SITE_KEYS: the site whose prefix the gift-side keys carry in the org (giftSiteKeys.ts).
   * The writes above qualify them; the reads by key (sync/gifts/soqlIn.ts) ask and answer through it.
   */
  readonly siteKeys?: number | undefined;
}
