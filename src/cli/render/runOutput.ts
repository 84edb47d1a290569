/** What a person reads of an engine run (sync, object, replay) besides the JSON result: the report, notices and alerts. */
import type { GlobalOptions } from '../globals.js';
import { EXIT, type ExitCode } from '../../model/errors.js';
import type { RunReport } from '../../sync/report/report.js';
import { DRY_RUN_NOTICE, type RunResult } from '../../sync/result.js';
import { renderHuman } from './tables.js';
import { failureGroups, groupPhrase } from '../../sync/report/failureGroups.js';
import { outputColumns } from './text.js';

interface RunFacts {
  globals: GlobalOptions;
  status: ExitCode;
  stopped: unknown;
  /** The one line that explains a non-zero exit: outcome, count, first reason, next command. */
  closing: string;
  /** Warnings known before the run (replay's bad lines). */
  warningsBefore: string[];
}

/**
 * What explains a non-zero exit, never hidden: under --quiet the failures by reason (the report
 * is not shown), and an exit 1 closes with one line saying why (a stop says so in its own line).
 */
function alertsOf(result: RunResult<object>, quiet: boolean, closing: string | undefined): string[] {
  // The closing line names the first reason: the others get a line each.
  const alerts = quiet
    ? failureGroups(result.records)
        .slice(1)
        .map((g) => `failed: ${groupPhrase(g)}`)
    : [];
  if (closing !== undefined) alerts.push(closing);
  return alerts;
}

export function renderRun(result: RunResult<object>, report: RunReport, f: RunFacts): { warnings: string[]; alerts: string[]; text: string; notes: string[] } {
  const { globals } = f;
  const warnings = [...f.warningsBefore, ...report.warnings];
  if (globals.dryRun) warnings.push(DRY_RUN_NOTICE);
  const notes = f.warningsBefore.map((w) => `warning: ${w}`);
  notes.push(...(result.learned ?? []).map((l) => `platform: ${l}`));
  if (globals.verbose) notes.push(...report.warnings.map((w) => `warning: ${w}`));
  else if (report.warnings.length > 0) notes.push(`${report.warnings.length} warning(s); --verbose lists them`);
  const explained = (f.status === EXIT.PARTIAL || f.status === EXIT.NOT_FOUND) && f.stopped === undefined;
  const alerts = alertsOf(result, globals.quiet, explained ? f.closing : undefined);
  return { warnings, alerts, text: renderHuman(result, { verbose: globals.verbose, columns: outputColumns() }), notes };
}
