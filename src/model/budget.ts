/**
 * The platform's rate-limit budget as the tool talks about it: the last figures the API reported,
 * and the port through which several processes on one API key share what is left of it.
 */

export type WaitReason = 'minute_limit' | 'hour_limit' | 'rate_limited';

/** The last rate-limit figures the API reported (undefined: never reported). */
export interface RateLimitSnapshot {
  limitMinute?: number | undefined;
  remainingMinute?: number | undefined;
  limitHour?: number | undefined;
  remainingHour?: number | undefined;
  /** Milliseconds until the hour window renews, when the API said (RateLimit-Reset of the hour). */
  hourResetInMs?: number | undefined;
}

/** A reading of the budget from one response's headers (absolute times in ms). */
export interface BudgetReading {
  remainingMinute?: number;
  minuteResetAt?: number;
  remainingHour?: number;
  hourResetAt?: number;
  /** After a 429: nobody on this key sends before this time. */
  blockedUntil?: number;
  /** The shared grant the request was sent under: grants after it may not be counted yet. */
  grant?: number;
}

export type SharedTake = { grant: number } | { until: number; reason: WaitReason };

/**
 * The budget of one API key shared with other processes (receivers on one queue database), so
 * together they spend no more than one would. Local pacing still applies on top of it.
 */
export interface SharedBudget {
  /** Takes one request from the shared budget (a grant number), or says until when every process must wait. */
  take(now: number): Promise<SharedTake>;
  /** Stores a fresh reading for the others (best effort: pacing never fails on it). */
  record(reading: BudgetReading): void;
}

/** One platform request attempt, as metrics count it. */
export interface PlatformRequestInfo {
  kind: 'byId' | 'list';
  /** HTTP status; undefined after a network error or timeout. */
  status?: number | undefined;
}
