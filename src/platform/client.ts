/**
 * Typed access to the read API: one record by id, one list page. Envelopes are unwrapped and
 * checked here, so the rest of the tool sees records, never `{"donation": {...}}`.
 */
import type { PlatformSettings } from '../config/settings.js';
import type { PlatformRequestCounts, ScanFilter } from '../model/ports.js';
import { ConfigError, PlatformError } from '../model/errors.js';
import { parsePositiveId } from '../model/refs.js';
import { echo } from '../config/echo.js';
import { createGot, PLATFORM_RETRY, PlatformHttp, shownBaseUrl, type PlatformHooks, type RetryTuning, type SearchParams } from './http.js';
import { stopGrace } from './stopGrace.js';
import { RatePacer, stoppableSleep, type RateLimitSnapshot, type SharedBudget } from './rateLimit.js';
import { RESOURCES, type ApiRecordOf, type ListPage, type ResourceType } from '../model/apiRecords.js';

/** The API serves at most 100 records per page; fewer pages means fewer requests. */
export const MAX_PER_PAGE = 100;

interface ClientOptions {
  hooks?: PlatformHooks | undefined;
  retry?: Partial<RetryTuning> | undefined;
  /** Budget shared with other processes on the same key (receivers on one PostgreSQL queue). */
  sharedBudget?: SharedBudget | undefined;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * An API record with its id read the one way ids are read everywhere (a number or a decimal
 * string: "12" is record 12), so a record compares, caches and keys the same whichever form the
 * platform sent; undefined when it has no readable id.
 */
function asApiRecord<T extends ResourceType>(value: unknown, _type: T): ApiRecordOf[T] | undefined {
  if (!isObject(value)) return undefined;
  const id = parsePositiveId(value.id);
  if (id === undefined) return undefined;
  // Keys are only read through the record types, each of them optional: any object with an id is one.
  return (value.id === id ? value : { ...value, id }) as unknown as ApiRecordOf[T];
}

function toInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/**
 * SVC_SITE_ID: a record of another site means the URL or key reaches another site's data (a staging
 * site, another charity of the same agency). Nothing may be written from it, so the run stops here,
 * before the record reaches the engine or the audit. site_id is read as every id is (7 and "7" are
 * one site); a record whose site cannot be read (absent, null, "seven") cannot be vouched for and
 * stops the run the same way.
 */
function checkSite(expected: number | undefined, type: ResourceType, records: readonly ApiRecordOf[ResourceType][], baseUrl: string): void {
  if (expected === undefined) return;
  for (const r of records) {
    const raw = Object.hasOwn(r, 'site_id') ? (r as { site_id?: unknown }).site_id : undefined;
    const site = parsePositiveId(raw);
    if (site === expected) continue;
    const served =
      site === undefined
        ? `${type} ${r.id} without a readable site_id (${raw === undefined ? 'absent' : `got ${raw === null ? 'null' : echo(typeof raw === 'string' ? raw : JSON.stringify(raw), 40)}`}), so which site it belongs to cannot be told`
        : `records of site ${site} (${type} ${r.id})`;
    throw new ConfigError(`SVC_SITE_ID is ${expected}, but ${shownBaseUrl(baseUrl)} serves ${served}: wrong SVC_API_URL or SVC_API_KEY? Nothing was written`, [
      'check SVC_API_URL, SVC_API_KEY and SVC_SITE_ID',
      'svc-sync doctor',
    ]);
  }
}

export class PlatformClient {
  private readonly http: PlatformHttp;
  private readonly siteId: number | undefined;
  private readonly baseUrlValue: string;
  /** The site_id the first record read carries, when SVC_SITE_ID is not set (the run names it). */
  private reported: number | undefined;

  constructor(settings: PlatformSettings, options: ClientOptions = {}) {
    const stop = options.hooks?.stop;
    this.siteId = settings.siteId;
    this.baseUrlValue = settings.apiUrl;
    const retry = { ...PLATFORM_RETRY, ...options.retry };
    const pacer = new RatePacer({
      concurrency: settings.concurrency > 0 ? settings.concurrency : 4,
      maxWaitMs: retry.maxRetryAfterMs,
      onWait: options.hooks?.onWait,
      ...(stop ? { sleep: stoppableSleep(stop) } : {}),
      ...(options.sharedBudget === undefined ? {} : { shared: options.sharedBudget }),
      ...(options.hooks?.onSharedError === undefined ? {} : { onSharedError: options.hooks.onSharedError }),
    });
    // Requests already sent when the run stops may finish (a few seconds): the pages read ahead are kept.
    const inFlight = stopGrace(stop);
    this.http = new PlatformHttp(createGot(settings, inFlight), settings, pacer, { ...options.hooks, inFlight }, retry);
  }

  /** The site the platform reports in its records (the first readable site_id), SVC_SITE_ID or not. */
  siteReported(): number | undefined {
    return this.siteId ?? this.reported;
  }

  /** The first readable site_id of the records this client read, if it read one. */
  siteRead(): number | undefined {
    return this.reported;
  }

  private note(records: readonly object[]): void {
    if (this.reported !== undefined) return;
    for (const r of records) {
      this.reported = parsePositiveId((r as { site_id?: unknown }).site_id);
      if (this.reported !== undefined) return;
    }
  }

  /** Lets a new run send requests again after a 401/403 stopped the previous one. */
  resume(): void {
    this.http.clearFatal();
  }

  /** GET /v1/<collection>/:id, unwrapped. Throws PlatformError (kind not_found for a 404). */
  async getById<T extends ResourceType>(type: T, id: number): Promise<ApiRecordOf[T]> {
    const { path, one } = RESOURCES[type];
    const route = `${path}/${encodeURIComponent(String(id))}`;
    const body = await this.http.get(route, 'byId');
    const record = asApiRecord(isObject(body) ? body[one] : undefined, type);
    if (record === undefined) {
      throw new PlatformError('invalid_response', 'GET', `/v1/${route}`, 200, `expected a "${one}" object with an id`);
    }
    checkSite(this.siteId, type, [record], this.baseUrlValue);
    this.note([record]);
    return record;
  }

  /** GET /v1/<collection>?page=N&per_page=M[&updated_after&created_after], unwrapped. */
  async listPage<T extends ResourceType>(type: T, page: number, perPage: number = MAX_PER_PAGE, filter: ScanFilter = {}): Promise<ListPage<ApiRecordOf[T]>> {
    const { path, many } = RESOURCES[type];
    const size = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(perPage)));
    const params: SearchParams = { page, per_page: size };
    if (filter.updatedAfter) params.updated_after = filter.updatedAfter;
    if (filter.createdAfter) params.created_after = filter.createdAfter;
    const body = await this.http.get(path, 'list', params);
    const items = isObject(body) ? body[many] : undefined;
    if (!isObject(body) || !Array.isArray(items)) {
      throw new PlatformError('invalid_response', 'GET', `/v1/${path}`, 200, `expected a "${many}" array`);
    }
    const records = items.map((item) => asApiRecord(item, type)).filter((r): r is ApiRecordOf[T] => r !== undefined);
    checkSite(this.siteId, type, records, this.baseUrlValue);
    this.note(records);
    const perPageSeen = toInt(body.per_page) ?? size;
    const totalEntries = toInt(body.total_entries) ?? records.length;
    return {
      records,
      totalEntries,
      totalPages: toInt(body.total_pages) ?? Math.ceil(totalEntries / Math.max(1, perPageSeen)),
      perPage: perPageSeen,
      currentPage: toInt(body.current_page) ?? page,
    };
  }

  /** The base URL (for the capability profile: which platform it describes). */
  get baseUrl(): string {
    return this.baseUrlValue;
  }

  /** Whether the platform reports its rate limits (undefined before the first response). */
  limitsReported(): boolean | undefined {
    return this.http.pacer.limitsReported;
  }

  counts(): PlatformRequestCounts {
    return { ...this.http.counts, rateLimitWaits: this.http.pacer.waits, waitedMs: this.http.pacer.waitedMs };
  }

  rateLimit(): RateLimitSnapshot {
    return this.http.pacer.snapshot();
  }
}

export type PlatformCheck =
  | { ok: true; rateLimit: RateLimitSnapshot }
  /** notPlatform: something answered, but not the platform's API (a wrong SVC_API_URL). */
  | { ok: false; notPlatform: boolean; error: PlatformError; message: string };

function notPlatformMessage(apiUrl: string, error: PlatformError): string {
  return `SVC_API_URL ${shownBaseUrl(apiUrl)} is not the platform's API: ${error.method} ${error.path} answered ${error.status === undefined ? '' : `${error.status} `}(${error.apiMessage}); give the API's base URL, without /v1`;
}

/** A list request's failure as the run's first request reports it: a wrong base URL is a configuration error (exit 2). */
export function asStartError(apiUrl: string, error: unknown): unknown {
  return error instanceof PlatformError && isNotPlatform(error) ? new ConfigError(notPlatformMessage(apiUrl, error)) : error;
}

/** What a wrong base URL answers: any 404 or redirect on the list route, or a body that is not its envelope. */
function isNotPlatform(error: PlatformError): boolean {
  if (error.kind === 'not_found' || error.kind === 'not_platform' || error.kind === 'invalid_response') return true;
  return error.status !== undefined && error.status >= 300 && error.status < 400;
}

/**
 * One cheap request that only the platform's API answers correctly: the first segment of the
 * list. `doctor` reports the outcome; `sync` and `serve` stop before doing anything when the base
 * URL is not the API, since every record would otherwise fail (or, worse, look deleted).
 */
export async function checkPlatform(settings: PlatformSettings, retry: Partial<RetryTuning> = { retries: 0, rateLimitRetries: 0 }): Promise<PlatformCheck> {
  const client = new PlatformClient(settings, { retry });
  try {
    await client.listPage('segment', 1, 1);
    return { ok: true, rateLimit: client.rateLimit() };
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    const notPlatform = isNotPlatform(error);
    const message = notPlatform ? notPlatformMessage(settings.apiUrl, error) : error.message;
    return { ok: false, notPlatform, error, message };
  }
}

/** For `sync` and `serve`: throws a ConfigError (exit 2) when the base URL is not the platform's API. */
export async function assertPlatformApi(settings: PlatformSettings): Promise<void> {
  // Transient trouble (a 502, a reset) is retried as in a run; a 429 waits as in a run.
  const check = await checkPlatform(settings, { retries: 2 });
  if (check.ok) return;
  if (check.notPlatform) throw new ConfigError(check.message);
  throw check.error;
}
