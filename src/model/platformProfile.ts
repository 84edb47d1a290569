/**
 * What a run learned of the platform where SPEC.md is silent ("query parameters, pagination,
 * response envelope: not shown"): whether list filters are honoured, the page size served, whether
 * list pages carry what the by-id records carry, whether rate limits are reported. Kept beside the
 * run state and used to cost plans; learned again for another base URL or after a day.
 */
type FilterSupport = 'honoured' | 'ignored';

export interface CollectionProfile {
  updatedAfter?: FilterSupport;
  createdAfter?: FilterSupport;
  /** Records a list page holds at most (asked 100). */
  pageSize?: number;
  /** Whether list records carry every key the mapping reads that the by-id record has. */
  list?: 'complete' | 'partial';
  /** The keys list records lack (when partial). */
  missing?: string[];
  /** Ids of records fetched by id so far without telling complete from partial (runs add up to a verdict, a few a run). */
  sampled?: number[];
  /** Keys read (a `|` joins alternative forms) that no list record has carried: while unsettled, looked for by id; under a complete claim, keys the records lack. */
  unseen?: string[];
  /** ISO 8601: since when records were taken from list pages while unsettled (what a later "partial" reads again). */
  listedSince?: string;
  /** ISO 8601: lists found partial after records were taken from them since then: the next scan reads the whole collection by id. */
  reread?: string;
  /** ISO 8601: when the list verdict was learned or last confirmed (a saved claim is confirmed again after a day). */
  checkedAt?: string;
  /** Records the unfiltered list held when last read (total_entries): what a full scan costs. */
  records?: number;
}

export interface PlatformProfile {
  /** The base URL it was learned from (credentials never kept). */
  baseUrl: string;
  /** ISO 8601: when it was learned. */
  learnedAt: string;
  /** Whether responses carry X-RateLimit-* headers. */
  rateLimitHeaders?: boolean;
  /**
   * The site_id the platform's records carried (every record names its site): a later run that
   * reads none (nothing changed) still names the site, without a request of its own.
   */
  site?: number;
  /** By collection path ("donations"). */
  collections: Record<string, CollectionProfile>;
}

/** In how many runs of 100 a key on 1 record in 10 would have shown in `count` records read by id: the risk doctor and runs state. */
export const shownIn = (count: number): number => Math.round(100 * (1 - 0.9 ** count));

/** A profile older than this is learned again. */
const PROFILE_MAX_AGE_MS = 24 * 3_600_000;

/** Whether a profile learned at `learnedAt` may still be used: younger than a day, and not from the future (a clock or a hand that cannot be trusted). */
function profileFresh(learnedAt: string, now: number = Date.now()): boolean {
  const age = now - Date.parse(learnedAt);
  return age >= 0 && age < PROFILE_MAX_AGE_MS;
}

/**
 * A URL without its user name and password (up to the last "@" before the path, as URL parsers
 * read it): the profile is a file on disk, and a password has no place in one.
 */
export const withoutCredentials = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');

/**
 * The profile to start a run with: the saved one when it is for this base URL and fresh, else an
 * empty one. Base URLs are compared, and kept, without credentials (a file of an older release
 * that kept them is rewritten without).
 */
export function profileFor(saved: PlatformProfile | undefined, baseUrl: string, now: number = Date.now()): PlatformProfile {
  const url = withoutCredentials(baseUrl);
  const sameSite = saved !== undefined && withoutCredentials(saved.baseUrl) === url;
  if (sameSite && profileFresh(saved.learnedAt, now)) return { ...structuredClone(saved), baseUrl: url };
  const collections: Record<string, CollectionProfile> = {};
  // Filters and sizes are learned again; not the list-shape evidence gathered a few records a run,
  // a re-read still owed, nor a list verdict (confirmed again): a daily run must add up to one.
  for (const [path, c] of Object.entries(sameSite && Date.parse(saved.learnedAt) <= now ? saved.collections : {})) {
    const kept = { ...(c.sampled ? { sampled: [...c.sampled] } : {}), ...(c.unseen ? { unseen: [...c.unseen] } : {}), ...(c.listedSince ? { listedSince: c.listedSince } : {}) };
    if (c.reread !== undefined) Object.assign(kept, { list: 'partial', missing: [...(c.missing ?? [])], reread: c.reread });
    // A complete claim stays, to be confirmed by one record by id (its checkedAt is over a day old).
    else if (c.list === 'complete' && c.checkedAt !== undefined) Object.assign(kept, { list: 'complete', checkedAt: c.checkedAt });
    if (Object.keys(kept).length > 0) collections[path] = kept;
  }
  // The site a base URL's records named stays with it, however old: a record of another site
  // replaces it the next time one is read.
  return { baseUrl: url, learnedAt: new Date(now).toISOString(), collections, ...(sameSite && saved.site !== undefined ? { site: saved.site } : {}) };
}
