/**
 * Choosing how to fetch a set of ids of one type: one request per id, or a scan of the list
 * (100 records per request). Pure functions: the source supplies the figures.
 */
import type { ResourceType } from '../model/apiRecords.js';

/** Below this many ids a probe page cannot pay for itself often enough to be worth its request. */
const PROBE_MIN_IDS = 3;

interface PlanInput {
  /** Ids still needed (not cached, not found on pages already read). */
  needed: number;
  /** total_entries of the (possibly narrowed) list, from its first page. */
  totalEntries: number;
  perPage: number;
  /** List pages already read in this run for this list (the probe). */
  pagesRead: number;
  /** Lists only give ids (partial payloads): a scan then saves nothing. */
  listIdsOnly: boolean;
}

/** One planning decision, kept for the run report, the bench and tests. */
export interface PlanRecord {
  type: ResourceType;
  requested: number;
  /** Ids that needed the network (not cached). */
  uncached: number;
  probed: boolean;
  plan?: FetchPlan;
}

type FetchPlan = { kind: 'byId'; requests: number; scanRequests: number } | { kind: 'scan'; requests: number; byIdRequests: number };

/** Compares request counts: by id costs one per id, a scan the pages not read yet. */
export function chooseFetchPlan(input: PlanInput): FetchPlan {
  const byId = Math.max(0, input.needed);
  const totalPages = Math.ceil(Math.max(0, input.totalEntries) / Math.max(1, input.perPage));
  const scan = Math.max(0, totalPages - input.pagesRead);
  if (input.listIdsOnly || byId === 0 || scan >= byId) return { kind: 'byId', requests: byId, scanRequests: scan };
  return { kind: 'scan', requests: scan, byIdRequests: byId };
}

/**
 * Whether to read the first list page before choosing: it costs one request, tells
 * total_entries and may already hold some of the ids. Not worth it for one or two ids, when the
 * collection's size is already known in this run, or when lists cannot replace by-id fetches.
 */
export function shouldProbe(needed: number, totalKnown: boolean, listIdsOnly: boolean): boolean {
  return !listIdsOnly && !totalKnown && needed >= PROBE_MIN_IDS;
}
