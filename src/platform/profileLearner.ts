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

/**
 * By-id requests a run spends per collection to tell partial list pages from records that lack
 * keys, when a page alone cannot (small filtered pages): the first that is inconclusive settles it.
 */
const SHAPE_SAMPLES = 1;

export class ProfileLearner {
  private readonly profileValue: PlatformProfile;
  private readonly notes: string[] = [];
  /** Per collection, the records fetched by id this run to learn the list pages' shape. */
  private readonly shapeSamples: Partial<Record<ResourceType, Set<number>>> = {};

  constructor(
    private readonly learn: LearnOptions,
    baseUrl: string,
    private readonly limitsReported: () => boolean | undefined,
    private readonly listIdsOnly: boolean,
  ) {
    this.profileValue = profileFor(learn.profile, baseUrl);
  }

  /** What is known of the platform now (for the run state, doctor and the batch policy). */
  profile(): PlatformProfile {
    const reported = this.limitsReported();
    return { ...structuredClone(this.profileValue), ...(reported === undefined ? {} : { rateLimitHeaders: reported }) };
  }

  learned(): string[] {
    return [...this.notes];
  }

  collection(type: ResourceType): CollectionProfile {
    const path = RESOURCES[type].path;
    return (this.profileValue.collections[path] ??= {});
  }

  private changed(): void {
    this.learn.onProfile?.(this.profile());
  }

  private tell(text: string): void {
    if (this.notes.includes(text)) return;
    this.notes.push(text);
    this.learn.onLearn?.(text);
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
    this.notePageSize(type, page);
    this.noteFilters(type, filter, page);
    if (!filter.updatedAfter && !filter.createdAfter) this.collection(type).records = page.totalEntries;
  }

  /** A page smaller than asked (its per_page, or fewer records with a next page): the size this platform serves. */
  private notePageSize<T extends ResourceType>(type: T, page: ListPage<ApiRecordOf[T]>): void {
    const served = page.perPage < MAX_PER_PAGE ? page.perPage : page.currentPage < page.totalPages && page.records.length < MAX_PER_PAGE ? page.records.length : undefined;
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

  /**
   * Whether a collection's list records carry what its by-id records carry (an absent key, not a
   * null value). A partial list payload leaves a key out of every record, while optional values are
   * absent here and there: a page on which no key the mapping reads is absent from every record
   * settles it at no cost. Else one record is fetched by id (at most SHAPE_SAMPLES in a run): when
   * its by-id form has keys its list form lacks, the list pages are partial, the collection's
   * records are fetched by id from then on, and the run says so with the cost.
   */
  async learnListShape<T extends ResourceType>(type: T, listed: ApiRecordOf[T][], byIdOf: (id: number) => Promise<ApiRecord | undefined>): Promise<void> {
    const profile = this.collection(type);
    if (this.listIdsOnly || profile.list !== undefined || listed.length === 0 || this.learn.keysRead === undefined) return;
    const read = this.learn.keysRead(type);
    const settle = (list: 'complete' | 'partial', missing: string[] = []): void => {
      profile.list = list;
      if (missing.length > 0) profile.missing = missing;
      this.changed();
    };
    const absentEverywhere = read.filter((k) => listed.every((r) => !Object.hasOwn(r, k)));
    if (absentEverywhere.length === 0) return settle('complete');
    const sampled = (this.shapeSamples[type] ??= new Set<number>());
    const sample = listed.find((r) => !sampled.has(r.id));
    if (sample === undefined || sampled.size >= SHAPE_SAMPLES) return;
    sampled.add(sample.id);
    const byId = await byIdOf(sample.id);
    if (byId === undefined) return;
    const missing = read.filter((k) => Object.hasOwn(byId, k) && !Object.hasOwn(sample, k));
    // The by-id record lacks them too: values this record does not have; a few such records settle it.
    if (missing.length === 0) return sampled.size >= SHAPE_SAMPLES ? settle('complete') : undefined;
    settle('partial', missing);
    const plural = RESOURCES[type].path;
    this.tell(
      `list pages of ${plural} lack ${missing.join(', ')} (the by-id records have them): each record of ${plural} is fetched by id, 1 request a record instead of 1 per ${this.pageSizeOf(type)}`,
    );
  }
}
