/**
 * What a run learns of the platform's lists where SPEC.md is silent (model/platformProfile.ts),
 * from the pages it reads anyway: a filter ignored, the page size served, list records lacking
 * keys. Each thing learned is said once and kept at once (a killed run does not pay for it again).
 */
import { RESOURCES, type ApiRecord, type ApiRecordOf, type ListPage, type ResourceType } from '../model/apiRecords.js';
import { profileFor, type CollectionProfile, type PlatformProfile } from '../model/platformProfile.js';
import type { ScanFilter } from '../model/ports.js';
import { MAX_PER_PAGE } from './client.js';
import { timeOf, valueAt, type LearnOptions } from './learning.js';
import { CONFIRM_AGE_MS, ListShape, type ShapeHost } from './listShape.js';

export class ProfileLearner implements ShapeHost {
  private readonly profileValue: PlatformProfile;
  private readonly notes: string[] = [];
  /** Whether list records carry what by-id records carry: learned, or a saved claim confirmed, once a run. */
  private readonly shape: ListShape | undefined;
  /** List pages read in this run (the verification budget is a share of them). */
  private pages = 0;

  constructor(
    private readonly learn: LearnOptions,
    baseUrl: string,
    private readonly limitsReported: () => boolean | undefined,
    listIdsOnly: boolean,
  ) {
    this.profileValue = profileFor(learn.profile, baseUrl);
    // A saved "complete" is relied on to read records from lists: confirmed by this run first,
    // unless this process learned it (serve's next batch) or a run confirmed it within the last day.
    const saved = learn.profile !== undefined && learn.learnedHere !== true;
    const now = Date.now();
    const stale = (c: CollectionProfile): boolean => c.checkedAt === undefined || !(now - Date.parse(c.checkedAt) >= 0 && now - Date.parse(c.checkedAt) < CONFIRM_AGE_MS);
    const complete = saved ? Object.entries(this.profileValue.collections).flatMap(([path, c]) => (c.list === 'complete' && stale(c) ? [path] : [])) : [];
    this.shape = learn.keysRead === undefined || listIdsOnly ? undefined : new ListShape(this, learn.keysRead, complete, learn.learnedHere !== true, learn.sampleEach === true);
  }

  /** What is known of the platform now (for the run state, doctor and the batch policy). */
  profile(): PlatformProfile {
    const reported = this.limitsReported();
    return { ...structuredClone(this.profileValue), ...(reported === undefined ? {} : { rateLimitHeaders: reported }) };
  }

  learned(): string[] {
    return [...this.notes];
  }

  /** The site the platform's records named, in this run or an earlier one. */
  site(): number | undefined {
    return this.profileValue.site;
  }

  /** The site this run's records named: kept (saved at once when it is news). */
  siteRead(site: number): void {
    if (this.profileValue.site === site) return;
    this.profileValue.site = site;
    this.changed();
  }

  collection(type: ResourceType): CollectionProfile {
    const path = RESOURCES[type].path;
    return (this.profileValue.collections[path] ??= {});
  }

  changed(): void {
    this.learn.onProfile?.(this.profile());
  }

  tell(text: string): void {
    if (this.notes.includes(text)) return;
    this.notes.push(text);
    this.learn.onLearn?.(text);
  }

  pagesRead(): number {
    return this.pages;
  }

  /** Records per list page as this platform serves them (100 asked). */
  pageSizeOf(type: ResourceType): number {
    return this.collection(type).pageSize ?? MAX_PER_PAGE;
  }

  /**
   * The filter a scan sends. Where this collection's lists are known to ignore updated_after, an
   * incremental scan asks without it: the same whole list comes back, but as the unfiltered list,
   * which proves absence (ListCoverage), so a parent no longer listed costs no request by id and
   * the run costs what a full scan costs. With SVC_INCREMENTAL=new-records it asks created_after
   * instead (unless that is known ignored too): new records only, said once with what it leaves
   * to webhooks and audit.
   */
  planned(type: ResourceType, filter: ScanFilter): ScanFilter {
    const known = this.collection(type);
    if (filter.updatedAfter === undefined || filter.createdAfter !== undefined || known.updatedAfter !== 'ignored') return filter;
    const { updatedAfter, ...rest } = filter;
    if (this.learn.incremental !== 'new-records' || known.createdAfter === 'ignored') return rest;
    const plural = RESOURCES[type].path;
    this.tell(
      `the platform ignores updated_after on ${plural} lists: this run reads the ${plural} created after ${updatedAfter} (created_after; SVC_INCREMENTAL=new-records); changes to existing ${plural} come through serve's webhooks and audit --fix`,
    );
    return { ...rest, createdAfter: updatedAfter };
  }

  /** What a list page shows: the page size served, filters ignored, the collection's size (unfiltered). */
  notePage<T extends ResourceType>(type: T, filter: ScanFilter, page: ListPage<ApiRecordOf[T]>): void {
    this.pages++;
    this.notePageSize(type, page);
    this.noteFilters(type, filter, page);
    if (!filter.updatedAfter && !filter.createdAfter) this.collection(type).records = page.totalEntries;
  }

  /** A page smaller than asked (its per_page, or fewer records with a next page): the size this platform serves. */
  private notePageSize<T extends ResourceType>(type: T, page: ListPage<ApiRecordOf[T]>): void {
    const served = page.perPage < MAX_PER_PAGE ? page.perPage : page.currentPage < page.totalPages && page.records.length < MAX_PER_PAGE ? page.records.length : undefined;
    if (served === undefined && this.collection(type).pageSize !== undefined && page.perPage >= MAX_PER_PAGE) {
      // A saved smaller size no longer holds (the page arithmetic and the proof of absence rely on it).
      delete this.collection(type).pageSize;
      this.changed();
      return;
    }
    if (served === undefined || served < 1 || served === this.collection(type).pageSize) return;
    this.collection(type).pageSize = served;
    this.changed();
    const plural = RESOURCES[type].path;
    this.tell(`the platform serves ${plural} lists ${served} a page (asked ${MAX_PER_PAGE}): a full scan of ${page.totalEntries} costs ${Math.ceil(page.totalEntries / served)} requests`);
  }

  /**
   * A filtered list holding a record outside its filter: this platform ignores the filter. The run
   * stays exact (the whole list is read and skip-unchanged writes nothing extra); it says so once.
   */
  private noteFilters<T extends ResourceType>(type: T, filter: ScanFilter, page: ListPage<ApiRecordOf[T]>): void {
    const checks = [
      { value: filter.updatedAfter, key: 'updated_at', name: 'updated_after', field: 'updatedAfter' },
      { value: filter.createdAfter, key: 'created_at', name: 'created_after', field: 'createdAfter' },
    ] as const;
    for (const c of checks) {
      if (c.value === undefined || page.records.length === 0) continue;
      const after = timeOf(c.value);
      const outside = page.records.some((r) => timeOf(valueAt(r, c.key)) <= after);
      const profile = this.collection(type);
      if (outside) {
        if (profile[c.field] === 'ignored') continue;
        profile[c.field] = 'ignored';
        // The filter did nothing: the list's total is the collection's size (what a scan costs).
        profile.records = page.totalEntries;
        this.changed();
        const plural = RESOURCES[type].path;
        this.tell(
          `the platform ignores ${c.name} on ${plural} lists: this run reads the whole list (${page.totalEntries} records, ${Math.ceil(page.totalEntries / this.pageSizeOf(type))} requests) and stays exact`,
        );
      } else {
        profile[c.field] ??= 'honoured';
      }
    }
  }

  /** Whether records at hand would be looked at for the list shape (not settled or confirmed in this run yet). */
  shapeOpen(type: ResourceType): boolean {
    return this.shape?.open(type) ?? false;
  }

  /** Whether learning the list shape would sample records by id after these list records (pages spread over the list are then read first). */
  wouldSample(type: ResourceType, listed: readonly ApiRecord[]): boolean {
    return this.shape?.wouldSample(type, listed) ?? false;
  }

  /** A record read by id for the run's own needs: evidence for the list shape at no cost. */
  noteById(type: ResourceType, record: ApiRecord): void {
    this.shape?.noteById(type, record);
  }

  /** Since when records taken from this collection's lists (found partial since) wait to be read again by id, if they do. */
  rereadSince(type: ResourceType): string | undefined {
    const c = this.collection(type);
    return c.list === 'partial' ? c.reread : undefined;
  }

  /** A scan has read the whole collection again by id: said with what it read. */
  reread(type: ResourceType, count: number): void {
    const c = this.collection(type);
    const since = c.reread;
    if (since === undefined) return;
    delete c.reread;
    this.changed();
    const plural = RESOURCES[type].path;
    this.tell(
      `read again by id: all ${count} ${plural} (their list pages, read since ${since}, lack ${(c.missing ?? []).map((k) => k.split('|').join(' or ')).join(', ')}): each is written as its by-id record has it`,
    );
  }

  /** Looks at list records for the list pages' shape (see listShape.ts); `total`: the unfiltered list's size; `ahead`: pages the scan has still to read. */
  learnListShape(type: ResourceType, listed: readonly ApiRecord[], byIdOf: (id: number) => Promise<ApiRecord | undefined>, total?: number, ahead = 0): Promise<void> {
    return this.shape?.look(type, listed, byIdOf, total, ahead) ?? Promise.resolve();
  }
}
