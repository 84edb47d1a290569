/** The `result` of a run: the stable shape scripts rely on (documented in docs/administration.md). */
import type { CrmCallCounts } from '../model/crmRecords.js';
import type { LogResult } from '../model/syncLog.js';
import type { SObjectName } from '../model/objects.js';
import { SCHEMAS } from '../mapping/schema.js';
import type { PlatformRequestCounts } from '../model/ports.js';
import { emptyObjectCounts } from '../model/outcomes.js';
import { type RunReport } from './report/report.js';
import type { ProjectionSummary } from './gifts/giftProjector.js';
import { type MissingParent, type ObjectCounts, type OutsideParent, type RecordOutcome } from '../model/outcomes.js';

interface RunResultBase {
  command: string;
  dryRun: boolean;
  summary: Record<SObjectName, ObjectCounts>;
  requests: {
    platform: number;
    salesforce: number;
    platformByKind: PlatformRequestCounts;
    salesforceByKind: CrmCallCounts;
  };
  /** Every outcome but "unchanged", in order: iterated (a large run's are not held as objects). */
  records: Iterable<RecordOutcome>;
  missingParents: MissingParent[];
  /** Records attached to a parent outside the spec's objects (a donation form, the site): written with no lookups, TargetSvcId__c blank. */
  outsideParents: OutsideParent[];
  /** Set when a run stopped early (daily API allowance, a fatal error after some writes). */
  stopped?: string;
  /** What the run learned of the platform (an ignored filter, a smaller page size, partial list pages), one line each. */
  learned?: string[];
  /** What became of the run and its failing records in the org's sync log (absent: off, or a dry run). */
  salesforceLog?: LogResult;
  /** The gift projection (SVC_PROJECTION on): counts, failures, and in a dry run each donation's decision. */
  projection?: ProjectionSummary;
  /** Salesforce calls of the mirror and of the projection (SVC_PROJECTION on). */
  salesforceCalls?: { mirror: number; projection: number };
}

/** A run's result, with what its command adds (sync: since, types, watermarks ...; replay: input). */
export type RunResult<Extra extends object = object> = RunResultBase & Extra;

export const DRY_RUN_NOTICE = 'dry run: nothing was written; validation rules, triggers and flows in the org cannot be foreseen';

export function buildResult(command: string, dryRun: boolean, report: RunReport, platform: PlatformRequestCounts, salesforce: CrmCallCounts): RunResultBase {
  const summary = {} as Record<SObjectName, ObjectCounts>;
  for (const s of SCHEMAS) summary[s.apiName] = report.summary.get(s.apiName) ?? emptyObjectCounts();
  return {
    command,
    dryRun,
    summary,
    requests: { platform: platform.total, salesforce: salesforce.total, platformByKind: platform, salesforceByKind: salesforce },
    records: report.listed,
    missingParents: report.missingParents,
    outsideParents: report.outsideParents,
  };
}
