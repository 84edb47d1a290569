/**
 * One door to Salesforce's REST API for the sink: typed requests through the jsforce
 * connection, call counts by kind, the daily-allowance guard from Sforce-Limit-Info, and this
 * tool's retry policy for transient failures of a whole request (503, network, concurrent limit).
 */
import type { HttpRequest, HttpResponse } from 'jsforce';
import type { SalesforceSession } from './connection.js';
import { ApiLimitError, type SalesforceError } from '../model/errors.js';
import { isTransientCode, passesThrough, toSalesforceError } from './errors.js';
import type { CrmCallCounts } from '../model/crmRecords.js';
import { sleep } from '../model/sleep.js';
import { allowanceKey, OrgAllowance, type AllowanceReading } from './orgAllowance.js';

export interface RetryPolicy {
  /** Attempts per request or per record, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const SALESFORCE_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 8000 };

interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to /services/data/vXX.X (e.g. /query?q=...), or a /services/... path. */
  url: string;
  body?: unknown;
  /** Raw body (CSV bytes), sent as is with this content type. */
  raw?: { contentType: string; bytes: Buffer };
  /** Answer as text instead of parsed JSON. */
  text?: boolean;
  /**
   * The org's limits read at a run's start: the org's own figure, so only this connection's reading
   * may refuse it; another's (up to 15 minutes old, perhaps from before the daily window rolled
   * over) would refuse a run that the org would take.
   */
  ownReading?: boolean;
}

export function backoff(policy: RetryPolicy, attempt: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return exp / 2 + Math.random() * (exp / 2);
}

type Kind = 'query' | 'collections' | 'bulk' | 'describe' | 'other';

function kindOf(url: string): Kind {
  const path = url.split('?')[0];
  // Bulk API 2.0 first: /jobs/query/... would otherwise count as a REST query.
  if (path.includes('/jobs/ingest') || path.includes('/jobs/query')) return 'bulk';
  if (/\/query(All)?(\/|$)/.test(path)) return 'query';
  if (path.includes('/composite/sobjects')) return 'collections';
  if (path.endsWith('/describe')) return 'describe';
  return 'other';
}

/** How long a Sforce-Limit-Info reading is trusted to refuse calls. */
const USAGE_READING_TTL_MS = 15 * 60 * 1000;

export class SalesforceApi {
  private readonly counts = { query: 0, collections: 0, bulk: 0, describe: 0, other: 0 };
  private usage: AllowanceReading | undefined;
  /** The org's allowance, shared with the other connections of the org (orgAllowance.ts). */
  private readonly allowance: OrgAllowance;

  /** `allowanceDir`: the deployment's state folder, where other processes on the org find the readings. */
  constructor(
    readonly session: SalesforceSession,
    private readonly maxApiUsage: number,
    readonly retry: RetryPolicy = SALESFORCE_RETRY,
    allowanceDir?: string,
  ) {
    this.allowance = new OrgAllowance(() => allowanceKey(session.orgId(), () => session.instanceUrl()), allowanceDir);
    session.onResponse((req: HttpRequest, res: HttpResponse | undefined) => {
      if (req.url.includes('/services/oauth2/')) return;
      this.counts[kindOf(req.url)]++;
      const info = res?.headers?.['sforce-limit-info'];
      const m = typeof info === 'string' ? /api-usage=(\d+)\/(\d+)/.exec(info) : null;
      if (m) this.noteUsage(Number(m[1]), Number(m[2]));
    });
  }

  calls(): CrmCallCounts {
    const c = this.counts;
    const auth = this.session.authCalls();
    return { total: c.query + c.collections + c.bulk + c.describe + c.other + auth, query: c.query, collections: c.collections, bulk: c.bulk, describe: c.describe, auth };
  }

  apiUsage(): { used: number; limit: number } | undefined {
    return this.usage ? { used: this.usage.used, limit: this.usage.limit } : undefined;
  }

  /** A reading of the daily allowance from elsewhere than a header (the limits resource). */
  noteUsage(used: number, limit: number): void {
    this.usage = { used, limit, at: Date.now() };
    this.allowance.note(this.usage);
  }

  /** Refuses to start a call once the configured share of the daily allowance is used (`shared`: as any connection of the org read it). */
  guard(shared = true): void {
    // An old reading is let go, so a long-lived `serve` tries again once the daily window has
    // moved on; the next response brings a fresh figure (and the guard back, if still needed).
    // The org's freshest reading, whichever of its connections took it: they share one allowance.
    const usage = shared ? this.allowance.freshest(this.usage) : this.usage && { ...this.usage, elsewhere: false };
    if (!usage || usage.limit <= 0 || Date.now() - usage.at > USAGE_READING_TTL_MS) return;
    const share = usage.used / usage.limit;
    if (share >= this.maxApiUsage) {
      const whose = usage.elsewhere ? ` (as another connection of this org read it ${Math.max(0, Math.round((Date.now() - usage.at) / 1000))} s ago)` : '';
      throw new ApiLimitError(
        `stopping: ${usage.used} of the org's ${usage.limit} daily API requests are used (${Math.round(share * 100)}%)${whose}, at or above the configured maximum of ${Math.round(this.maxApiUsage * 100)}%`,
        usage.used,
        usage.limit,
      );
    }
  }

  /** One request, no retry. Errors come back as SalesforceError. */
  async once<T>(req: ApiRequest): Promise<T> {
    this.guard(req.ownReading !== true);
    const conn = this.session.connection;
    const headers: Record<string, string> = {};
    let body: string | Buffer | undefined;
    if (req.raw) {
      headers['content-type'] = req.raw.contentType;
      body = req.raw.bytes;
    } else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    try {
      const result = await conn.request<T>({ method: req.method, url: req.url, headers, ...(body !== undefined ? { body } : {}) }, req.text ? { responseType: 'text/plain' } : {});
      return result;
    } catch (err) {
      if (passesThrough(err)) throw err;
      const e = toSalesforceError(err);
      // The org refused for its daily limit: every connection of the org is told, not just this one.
      if (e instanceof ApiLimitError && this.usage !== undefined) this.noteUsage(Math.max(this.usage.used, this.usage.limit), this.usage.limit);
      throw e;
    }
  }

  /**
   * A GET answered without loading jsforce when the connection is not made yet (the session check
   * at start-up: a run's first platform request waits for it); anything but a plain success is
   * asked again through `call`, so failures, renewals and retries are exactly those of `call`.
   */
  async getEarly<T>(url: string, stop?: AbortSignal): Promise<T> {
    this.guard(false);
    const early = await this.session.getEarly(url, stop);
    return early === undefined ? this.call<T>({ method: 'GET', url, ownReading: true }) : (early as T);
  }

  /** A request nothing answered: the host it went to and what was tried, for the line a person reads. */
  private unanswered(e: SalesforceError, attempts: number, ms: number): SalesforceError {
    let host = '(SF_INSTANCE_URL)';
    try {
      host = new URL(this.session.instanceUrl()).origin;
    } catch {
      // No instance URL known yet: the setting's name stands in for it.
    }
    const tried = attempts === 1 ? '1 attempt' : `${attempts} attempts over ${(ms / 1000).toFixed(1)} s`;
    e.unanswered = `at ${host} (${tried})`;
    return e;
  }

  /**
   * A request retried on transient failures of the whole request. Upserts on an external id are
   * idempotent, so re-sending a PATCH or a job creation after a 503 or a dropped connection is safe.
   */
  async call<T>(req: ApiRequest): Promise<T> {
    const began = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(req);
      } catch (err) {
        if (passesThrough(err)) throw err;
        const e = toSalesforceError(err);
        if (e.code === 'NETWORK_ERROR' && attempt + 1 >= this.retry.attempts) throw this.unanswered(e, attempt + 1, Date.now() - began);
        if (!isTransientCode(e.code) || attempt + 1 >= this.retry.attempts) throw e;
        await sleep(backoff(this.retry, attempt));
      }
    }
  }
}
