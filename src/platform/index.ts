/** The platform side of svc-sync: what the engine and the CLI import. */
export { createPlatformSource, PlatformSource, type FetchOptions, type PlanRecord } from './source.js';
export { checkApiKey, PlatformClient, MAX_PER_PAGE, type ApiKeyCheck, type ClientOptions } from './client.js';
export { DEFAULT_RETRY, type PlatformHooks, type RequestInfo, type RequestKind, type RetryTuning } from './http.js';
export { describeWait, type OnWait, type RateLimitSnapshot, type WaitInfo, type WaitReason } from './rateLimit.js';
export { chooseFetchPlan, shouldProbe, PROBE_MIN_IDS, type FetchPlan, type PlanInput } from './planner.js';
export { PlatformError, type PlatformErrorKind } from './errors.js';
export * from './records.js';
