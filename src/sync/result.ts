/** The `result` of a run: the stable shape scripts rely on (documented in README.md). */
import type { CrmCallCounts } from '../crm/types.js';
import type { SObjectName } from '../mapping/objects.js';
import { SCHEMAS } from '../mapping/schema.js';
import type { PlatformRequestCounts } from './ports.js';
import { emptyCounts, type MissingParent, type ObjectCounts, type RecordOutcome, type RunReport } from './report.js';

export interface RunResult {
  command: string;
  dryRun: boolean;
  summary: Record<SObjectName, ObjectCounts>;
  requests: {
    platform: number;
    salesforce: number;
    platformByKind: PlatformRequestCounts;
    salesforceByKind: CrmCallCounts;
  };
  records: RecordOutcome[];
  missingParents: MissingParent[];
  /** Set when a run stopped early (daily API allowance, a fatal error after some writes). */
  stopped?: string;
  [extra: string]: unknown;
}

export const DRY_RUN_NOTICE = 'dry run: nothing was written; validation rules, triggers and flows in the org cannot be foreseen';

export function buildResult(command: string, dryRun: boolean, report: RunReport, platform: PlatformRequestCounts, salesforce: CrmCallCounts): RunResult {
  const summary = {} as Record<SObjectName, ObjectCounts>;
  for (const s of SCHEMAS) summary[s.apiName] = report.summary.get(s.apiName) ?? emptyCounts();
  return {
    command,
    dryRun,
    summary,
    requests: { platform: platform.total, salesforce: salesforce.total, platformByKind: platform, salesforceByKind: salesforce },
    records: report.records,
    missingParents: report.missingParents,
  };
}
