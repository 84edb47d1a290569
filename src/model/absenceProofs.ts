/**
 * Proofs that the platform does not hold a record, kept across runs (issue 48): a complete list
 * scan proves every id up to the highest it listed that it did not list absent; a 404 by id
 * proves that id absent. Each holds from the time it was made until something names the id
 * again (a record read, a webhook, a newer updated_at): then it is dropped and the id is read.
 * Platform ids grow: an id up to the highest a complete scan listed was made before that scan, so
 * its absence then is for good. An id above it may be made later: its proof holds only for a child
 * made before the proof (a page exists before its donations), the caller's to weigh.
 */
import type { ResourceType } from './apiRecords.js';

export interface AbsenceProofs {
  /** When the platform was proven not to hold this record (ISO 8601), if it was and nothing named it since. */
  has(type: ResourceType, id: number): string | undefined;
  /** The highest id a complete scan of the type listed (ids up to it are made before it), if one is kept. */
  top(type: ResourceType): number | undefined;
  /** A 404 by id at `at`. */
  add(type: ResourceType, id: number, at: string): void;
  /** Something named the record since (it may exist now): its proof, if any, no longer holds. */
  drop(type: ResourceType, id: number): void;
  /** drop() of many ids at once (a list page's records): one change. */
  dropAll(type: ResourceType, ids: readonly number[]): void;
  /** A complete, unfiltered scan at `at` listed these ids: every other id is absent; it replaces the type's earlier proofs. */
  proveScan(type: ResourceType, listed: Iterable<number>, at: string): void;
}
