/** Proof of absence from complete, unfiltered list scans (see ListCoverage). */
import type { ApiRecord, ListPage } from '../model/apiRecords.js';
import { IdTable } from '../model/idTable.js';

/**
 * What this run has read of a collection's complete, unfiltered list: its ids and pages. Once
 * every page is in (each saying the same total, and the ids adding up to it), an id not among
 * them does not exist on the platform, and asking for it by id would only spend budget.
 * Filtered lists (updated_after, created_after) prove nothing; neither does a list whose total
 * changed while it was read (pages shift when records come and go), nor one with pages missing
 * (a scan that failed part-way, or a resumed one that started past page 1).
 */
export class ListCoverage {
  /** Off the heap: a million-record collection's ids are 9 MB here, not 30 MB of Set. */
  readonly ids = new IdTable();
  private readonly pages = new Set<number>();
  private total: number | undefined;
  private totalPages = 0;
  private changed = false;
  /** complete(), kept until the next page: it is asked once per requested id. */
  private proven: boolean | undefined;

  note(page: ListPage<ApiRecord>, pageSize: number): void {
    this.proven = undefined;
    if (this.total !== undefined && this.total !== page.totalEntries) this.changed = true;
    this.total = page.totalEntries;
    this.totalPages = page.totalPages;
    // Only pages of the size served line up with the page arithmetic (a smaller per_page is another list).
    if (page.perPage !== pageSize) return;
    this.pages.add(page.currentPage);
    for (const record of page.records) this.ids.add(record.id);
  }

  complete(): boolean {
    this.proven ??= this.check();
    return this.proven;
  }

  private check(): boolean {
    if (this.changed || this.total === undefined || this.ids.size !== this.total) return false;
    for (let p = 1; p <= this.totalPages; p++) if (!this.pages.has(p)) return false;
    return true;
  }
}
