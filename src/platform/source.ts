/**
 * The engine's RecordSource over the platform API: refs in, records out, at the lowest request
 * cost. Holds the run's cache (RecordCache), so a record (a parent, an action owner) is fetched at
 * most once however many children point at it.
 */
import type { PlatformSettings } from '../config/settings.js';
import type { FetchOptions, FetchResult, PlatformRequestCounts, RecordSource, ScanFilter, ScanPage } from '../model/ports.js';
import { asStartError, MAX_PER_PAGE, PlatformClient } from './client.js';
import { ListCoverage } from './coverage.js';
import { valueAt, type LearnOptions } from './learning.js';
import { ProfileLearner } from './profileLearner.js';

export type { LearnOptions };
import { PlatformError } from '../model/errors.js';
import type { PlatformHooks, RetryTuning } from './http.js';
import { chooseFetchPlan, shouldProbe, type PlanRecord } from './planner.js';
import type { RateLimitSnapshot } from './rateLimit.js';
import type { ApiRecord, ApiRecordOf, ListPage, ResourceType } from '../model/apiRecords.js';
import type { CollectionProfile, PlatformProfile } from '../model/platformProfile.js';
import { KeptAbsence } from './keptAbsence.js';
import { readAhead } from './readAhead.js';
import { asTyped, RecordCache } from './recordCache.js';

type Outcome<T> = { record: T } | { notFound: true } | { error: PlatformError };

const isUnfiltered = (filter: ScanFilter): boolean => !filter.updatedAfter && !filter.createdAfter;

export class PlatformSource implements RecordSource {
  private readonly cache = new RecordCache();
  private readonly pending = new Map<string, Promise<Outcome<ApiRecord>>>();
  /** total_entries per list (type + filter), learned from a first page. */
  private readonly totals = new Map<string, number>();
  /** List pages read per list in this run, so a scan never reads one twice. */
  private readonly pagesRead = new Map<string, Set<number>>();
  private readonly planLog: PlanRecord[] = [];
  /** Per type, what the run has read of its unfiltered list: the proof of absence. */
  private readonly coverage = new Map<ResourceType, ListCoverage>();

  /** What the run learns of the platform's lists, and what it knew from earlier runs. */
  private readonly learner: ProfileLearner;
  /** The page openScan read, until its scan takes it. */
  private openedPage: { key: string; page: ListPage<ApiRecord> } | undefined;
  /** Absences kept across runs (the state folder's). */
  private readonly kept: KeptAbsence;

  constructor(
    readonly client: PlatformClient,
    private readonly listIdsOnly: boolean,
    learn: LearnOptions = {},
  ) {
    this.learner = new ProfileLearner(learn, client.baseUrl, () => client.limitsReported(), listIdsOnly);
    this.kept = new KeptAbsence(learn.proofs);
  }

  /** Records a later change names (a webhook, a retry): a kept proof of their absence is dropped, they are read. */
  named(type: ResourceType, ids: readonly number[]): void {
    this.kept.exist(type, ids);
    this.cache.name(type, ids);
  }

  /** What is known of the platform now (for the run state, doctor and the batch policy). */
  profile(): PlatformProfile {
    return this.learner.profile();
  }

  learned(): string[] {
    return this.learner.learned();
  }

  /** SVC_SITE_ID, else the site this run's records named, else the one an earlier run's named. */
  siteReported(): number | undefined {
    const read = this.client.siteRead();
    if (read !== undefined) this.learner.siteRead(read);
    return this.client.siteReported() ?? this.learner.site();
  }

  /** Records per list page as this platform serves them (100 asked). */
  pageSizeOf(type: ResourceType): number {
    return this.learner.pageSizeOf(type);
  }

  private collection(type: ResourceType): CollectionProfile {
    return this.learner.collection(type);
  }

  /** Lists give ids only: by setting (SVC_LIST_IDS_ONLY) or because this collection's list pages are partial. */
  private idsOnly(type: ResourceType): boolean {
    return this.listIdsOnly || this.collection(type).list === 'partial';
  }

  async fetch<T extends ResourceType>(type: T, ids: number[], options: FetchOptions = {}): Promise<FetchResult<ApiRecordOf[T]>> {
    const wanted = [...new Set(ids)];
    const confirm = options.byId === true;
    let todo = wanted.filter((id) => !this.known(type, id, confirm, options.namedBefore));
    const log: PlanRecord = { type, requested: wanted.length, uncached: todo.length, probed: false };
    const asked = new Set(wanted);

    if (todo.length > 0 && !this.idsOnly(type) && !confirm) {
      // A narrowing filter this platform ignores is not sent (the whole list comes back either way),
      // and the collection's known size prices the scan without a probe request.
      const filter: ScanFilter = options.updatedAfter && this.collection(type).updatedAfter !== 'ignored' ? { updatedAfter: options.updatedAfter } : {};
      const key = this.listKey(type, filter);
      // The whole collection is listed (no filter: a narrowing filter this platform ignores is not
      // sent): its size as last read (this run's profile, or the saved one) prices the plan without a
      // probe request. A size grown since only leaves the ids past it to the by-id pass below.
      let total = this.totals.get(key) ?? (isUnfiltered(filter) ? this.collection(type).records : undefined);
      // Pages whose records are all in the cache, and the probe page (its asked records are).
      const read = new Set(this.pagesRead.get(key));
      if (shouldProbe(todo.length, total !== undefined, false)) {
        log.probed = true;
        const probe = await this.readPage(type, 1, filter, asked);
        total = probe?.totalEntries;
        if (probe?.perPage === this.pageSizeOf(type)) read.add(1);
        todo = todo.filter((id) => !this.known(type, id, false, options.namedBefore));
      }
      if (total !== undefined) {
        const perPage = this.pageSizeOf(type);
        // The probe may have shown the list pages partial: then a scan saves nothing.
        const plan = chooseFetchPlan({ needed: todo.length, totalEntries: total, perPage, pagesRead: read.size, listIdsOnly: this.idsOnly(type) });
        log.plan = plan;
        if (plan.kind === 'scan') {
          const pages: number[] = [];
          for (let page = 1; page <= Math.ceil(total / perPage); page++) if (!read.has(page)) pages.push(page);
          // Pages run concurrently; p-limit inside the client bounds them. Each page is dropped once
          // read (its asked records are in the cache): Promise.all would hold every page until the last.
          await Promise.all(pages.map(async (page) => void (await this.readPage(type, page, filter, asked))));
          todo = todo.filter((id) => !this.known(type, id, false, options.namedBefore));
        }
      }
    }
    this.planLog.push(log);

    // What is left: by id (deleted records answer 404 here and become notFound).
    const failed = new Map<number, PlatformError>();
    const outcomes = await Promise.all(todo.map((id) => this.fetchOne(type, id)));
    outcomes.forEach((outcome, i) => {
      if ('error' in outcome) failed.set(todo[i], outcome.error);
    });

    const absentFromScan = new Set<number>();
    const result: FetchResult<ApiRecordOf[T]> = { records: new Map(), notFound: [], failed, absentFromScan };
    for (const id of wanted) {
      const record = this.cache.get(type, id);
      if (record) result.records.set(id, asTyped(type, record));
      else if (this.cache.gone(type, id)) result.notFound.push(id);
      else if (!confirm && this.provenAbsent(type, id, options.namedBefore)) {
        result.notFound.push(id);
        absentFromScan.add(id);
      }
    }
    return result;
  }

  /** A run's first request: its first scan's first page; a base URL that is not the platform's API (a 404, a redirect, no envelope) stops the run (ConfigError), else the page is kept for that scan. */
  async openScan(type: ResourceType, asked: ScanFilter): Promise<void> {
    const filter = this.learner.planned(type, asked);
    const page = Math.max(1, Math.floor(filter.fromPage ?? 1));
    try {
      this.openedPage = { key: `${this.listKey(type, filter)}#${page}`, page: await this.client.listPage(type, page, MAX_PER_PAGE, filter) };
    } catch (error) {
      throw asStartError(this.client.baseUrl, error);
    }
  }

  /** The page openScan read, once, for the scan it was read for. */
  private opened<T extends ResourceType>(type: T, page: number, filter: ScanFilter): ListPage<ApiRecordOf[T]> | undefined {
    const kept = this.openedPage;
    if (kept === undefined || kept.key !== `${this.listKey(type, filter)}#${page}`) return undefined;
    this.openedPage = undefined;
    return kept.page as ListPage<ApiRecordOf[T]>;
  }

  async *scan<T extends ResourceType>(type: T, asked: ScanFilter): AsyncIterable<ScanPage<ApiRecordOf[T]>> {
    // Records taken from lists since found partial wait to be read again: the whole list, by id.
    let filter = this.learner.rereadSince(type) === undefined ? this.learner.planned(type, asked) : {};
    // One yielded array per list page, in page order: a resumed run counts pages (fromPage).
    let start = Math.max(1, Math.floor(filter.fromPage ?? 1));
    let first = this.opened(type, start, filter) ?? (await this.client.listPage(type, start, MAX_PER_PAGE, filter));
    if (start > 1 && start > first.totalPages) {
      // The resume point lies past the end of the list (records were removed, or the state file
      // says more than the list holds): scanning nothing would pass the list as done. Start over.
      start = 1;
      first = await this.client.listPage(type, start, MAX_PER_PAGE, filter);
    }
    this.notePage(type, filter, first);
    let held = await this.spreadPages(type, filter, first, start);
    // The pages after the first count in the run's budget for samples now (held ones are not noted yet).
    const listed = [first.records, ...[...held.values()].map((p) => p.records)].flat();
    await this.learnListShape(type, listed, isUnfiltered(filter) ? first.totalEntries : undefined, Math.max(0, first.totalPages - start));
    const reread = this.learner.rereadSince(type) !== undefined;
    if (reread && (start > 1 || !isUnfiltered(filter))) {
      // Found partial just now, on a part of the list: the rest was taken from lists too.
      [filter, start, held] = [{}, 1, new Map()];
      first = await this.client.listPage(type, start, MAX_PER_PAGE, filter);
      this.notePage(type, filter, first);
    }
    let count = 0;
    const out = async (records: ApiRecordOf[T][]): Promise<Pick<ScanPage<ApiRecordOf[T]>, 'records' | 'failed'>> => {
      this.kept.seen(type, records);
      const done = await this.complete(type, records);
      count += done.records.length + done.failed.size;
      return done;
    };
    // Read a few pages ahead (as many as may be in flight, fewer of large pages) but hand them out in order.
    let { text, ahead } = readAhead(first.records);
    yield { ...(await out(first.records)), page: start, totalPages: first.totalPages, totalEntries: first.totalEntries, text };
    const queue: Promise<ListPage<ApiRecordOf[T]>>[] = [];
    let next = start + 1;
    const launch = (): void => {
      while (queue.length < ahead && next <= first.totalPages) {
        const kept = held.get(next);
        held.delete(next);
        const page = kept ? Promise.resolve(kept) : this.client.listPage(type, next, MAX_PER_PAGE, filter);
        next++;
        // Awaited below in order; this keeps a rejection from being reported as unhandled meanwhile.
        page.catch(() => undefined);
        queue.push(page);
      }
    };
    launch();
    for (let page = queue.shift(); page; page = queue.shift()) {
      const loaded = await page;
      this.notePage(type, filter, loaded);
      ({ text, ahead } = readAhead(loaded.records));
      launch();
      yield { ...(await out(loaded.records)), page: loaded.currentPage, totalPages: loaded.totalPages, totalEntries: loaded.totalEntries, text };
    }
    if (reread) this.learner.reread(type, count);
  }

  /** When the first page leaves keys to look for by id, the scan's middle and last pages are read first (kept for it): samples spread over the list. */
  private async spreadPages<T extends ResourceType>(type: T, filter: ScanFilter, first: ListPage<ApiRecordOf[T]>, start: number): Promise<Map<number, ListPage<ApiRecordOf[T]>>> {
    const held = new Map<number, ListPage<ApiRecordOf[T]>>();
    if (first.totalPages <= start || !this.learner.wouldSample(type, first.records)) return held;
    const pages = [...new Set([Math.floor((start + first.totalPages + 1) / 2), first.totalPages])].filter((p) => p > start);
    const loaded = await Promise.all(pages.map((p) => this.client.listPage(type, p, MAX_PER_PAGE, filter)));
    pages.forEach((p, i) => held.set(p, loaded[i] as ListPage<ApiRecordOf[T]>));
    return held;
  }

  requests(): PlatformRequestCounts {
    return this.client.counts();
  }

  /**
   * `doctor`: learns a collection's list behaviour in at most four requests: the first page (size
   * served; one record by id for the list's completeness), then the page filtered on the middle
   * record's updated_at and created_at (a record at or before it back means the filter is ignored).
   */
  async probe(type: ResourceType): Promise<CollectionProfile> {
    const first = await this.readPage(type, 1, {});
    const stamps = (key: 'updated_at' | 'created_at'): string[] =>
      (first?.records ?? [])
        .map((r) => valueAt(r, key))
        .filter((v): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v)))
        .sort((a, b) => Date.parse(a) - Date.parse(b));
    for (const [key, filter] of [
      ['updated_at', 'updatedAfter'],
      ['created_at', 'createdAfter'],
    ] as const) {
      const sorted = stamps(key);
      const middle = sorted[Math.floor(sorted.length / 2)];
      // Two distinct times at least: otherwise no record could show the filter ignored.
      if (middle === undefined || sorted[0] === sorted[sorted.length - 1]) continue;
      await this.readPage(type, 1, { [filter]: middle });
    }
    return structuredClone(this.collection(type));
  }

  /** The planning decisions of this run, in order. */
  plans(): PlanRecord[] {
    return this.planLog.map((p) => ({ ...p }));
  }

  rateLimit(): RateLimitSnapshot {
    return this.client.rateLimit();
  }

  private listKey(type: ResourceType, filter: ScanFilter): string {
    return `${type}?u=${filter.updatedAfter ?? ''}&c=${filter.createdAfter ?? ''}`;
  }

  private known(type: ResourceType, id: number, ignoreScan = false, namedBefore?: string): boolean {
    return this.cache.has(type, id) || this.cache.gone(type, id) || (!ignoreScan && this.provenAbsent(type, id, namedBefore));
  }

  provenGone(type: ResourceType, id: number): boolean {
    return !this.cache.has(type, id) && (this.cache.gone(type, id) || this.provenAbsent(type, id));
  }

  /** Not on the complete unfiltered list this run has read (and not since fetched by id), or kept absent (KeptAbsence). */
  private provenAbsent(type: ResourceType, id: number, namedBefore?: string): boolean {
    const coverage = this.coverage.get(type);
    return coverage?.complete() === true ? !coverage.ids.has(id) : this.kept.holds(type, id, namedBefore);
  }

  private store(type: ResourceType, records: ApiRecord[]): void {
    this.cache.store(type, records);
    this.kept.seen(type, records);
  }

  private notePage<T extends ResourceType>(type: T, filter: ScanFilter, page: ListPage<ApiRecordOf[T]>): void {
    this.learner.notePage(type, filter, page);
    if (isUnfiltered(filter)) {
      let coverage = this.coverage.get(type);
      if (!coverage) this.coverage.set(type, (coverage = new ListCoverage()));
      coverage.note(page, this.pageSizeOf(type));
      this.kept.scanned(type, coverage);
    }
    const key = this.listKey(type, filter);
    this.totals.set(key, page.totalEntries);
    let read = this.pagesRead.get(key);
    if (!read) this.pagesRead.set(key, (read = new Set()));
    // Only pages of the size served line up with the planner's page arithmetic.
    if (page.perPage === this.pageSizeOf(type)) read.add(page.currentPage);
  }

  private learnListShape<T extends ResourceType>(type: T, listed: ApiRecordOf[T][], total?: number, ahead = 0): Promise<void> {
    return this.learner.learnListShape(
      type,
      listed,
      async (id) => {
        const outcome = await this.fetchOne(type, id);
        return 'record' in outcome ? outcome.record : undefined;
      },
      total,
      ahead,
    );
  }

  /**
   * A list page into the cache (for a fetch, of a leaf type only the `asked` records: RecordCache);
   * a page with records left out is not counted read, so a later fetch prices it again. A
   * non-fatal failure leaves its ids to the by-id pass.
   */
  private async readPage<T extends ResourceType>(type: T, page: number, filter: ScanFilter, asked?: ReadonlySet<number>): Promise<ListPage<ApiRecordOf[T]> | undefined> {
    try {
      const loaded = await this.client.listPage(type, page, MAX_PER_PAGE, filter);
      this.notePage(type, filter, loaded);
      await this.learnListShape(type, loaded.records, isUnfiltered(filter) ? loaded.totalEntries : undefined);
      if (this.idsOnly(type)) return loaded;
      this.kept.seen(type, loaded.records);
      if (asked === undefined) this.cache.store(type, loaded.records);
      else if (!this.cache.storeListed(type, loaded.records, asked)) this.pagesRead.get(this.listKey(type, filter))?.delete(loaded.currentPage);
      return loaded;
    } catch (error) {
      if (error instanceof PlatformError && !error.fatal) return undefined;
      throw error;
    }
  }

  /** Records of a scanned page, complete: as listed, or by id when lists are partial; not kept in the run cache (a backfill's memory would grow). */
  private async complete<T extends ResourceType>(type: T, listed: ApiRecordOf[T][]): Promise<Pick<ScanPage<ApiRecordOf[T]>, 'records' | 'failed'>> {
    if (!this.idsOnly(type)) return { records: listed, failed: new Map() };
    const outcomes = await Promise.all(listed.map(async (r) => ({ id: r.id, outcome: await this.fetchOne(type, r.id, false) })));
    const records: ApiRecordOf[T][] = [];
    const failed = new Map<number, PlatformError>();
    for (const { id, outcome } of outcomes) {
      if ('record' in outcome) records.push(asTyped(type, outcome.record));
      else if ('error' in outcome) failed.set(id, outcome.error);
    }
    return { records, failed };
  }

  /** By id, once per run: concurrent callers share the request, later ones the cache. */
  private fetchOne(type: ResourceType, id: number, keep = true): Promise<Outcome<ApiRecord>> {
    const cached = this.cache.get(type, id);
    if (cached) return Promise.resolve({ record: cached });
    if (this.cache.gone(type, id)) return Promise.resolve({ notFound: true });
    const key = `${type}:${id}`;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const request = this.client
      .getById(type, id)
      .then((record): Outcome<ApiRecord> => {
        if (keep) this.store(type, [record]);
        this.learner.noteById(type, record);
        return { record };
      })
      .catch((error: unknown): Outcome<ApiRecord> => {
        if (!(error instanceof PlatformError) || error.fatal) throw error;
        if (error.kind === 'not_found') {
          this.cache.notFound(type, id);
          this.kept.notFound(type, id);
          return { notFound: true };
        }
        // Not cached: a later call in the run may try again.
        return { error };
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, request);
    return request;
  }
}

/** The source the engine uses; hooks let the CLI show waits ("waiting 42 s: platform minute limit"). */
export function createPlatformSource(settings: PlatformSettings, hooks: PlatformHooks = {}, retry?: Partial<RetryTuning>, learn: LearnOptions = {}): PlatformSource {
  return new PlatformSource(new PlatformClient(settings, { hooks, retry }), settings.listIdsOnly, { ...learn, ...(settings.incremental ? { incremental: settings.incremental } : {}) });
}
