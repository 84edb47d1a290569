/** What a person reads of an engine run (sync, object, replay) besides the JSON result: the report, notices and alerts. */
import type { GlobalOptions } from '../globals.js';
import { EXIT, type ExitCode } from '../../model/errors.js';
import type { RunReport } from '../../sync/report.js';
import { DRY_RUN_NOTICE, type RunResult } from '../../sync/result.js';
import { renderHuman } from './tables.js';
import { formatCount, outputColumns } from './text.js';

interface RunFacts {
  globals: GlobalOptions;
  status: ExitCode;
  stopped: unknown;
  shortfall: string | undefined;
  /** Warnings known before the run (replay's bad lines). */
  warningsBefore: string[];
}

/**
 * What explains a non-zero exit, never hidden: under --quiet each failure (the report is not
 * shown), and an exit 1 closes with one line saying why (a stop says so in its own line).
 */
function alertsOf(result: RunResult<object>, quiet: boolean, status: ExitCode | undefined, failed: number, shortfall: string | undefined): string[] {
  const alerts = quiet ? result.records.filter((r) => r.action === 'fail').map((r) => `failed: ${r.object} ${r.key} ${r.error?.code ?? 'ERROR'}: ${r.error?.message ?? ''}`) : [];
  if (status !== undefined) {
    const why = [...(failed > 0 ? [`${formatCount(failed)} ${failed === 1 ? 'record' : 'records'} failed`] : []), ...(shortfall === undefined ? [] : [shortfall])];
    alerts.push(`exit ${status}: ${why.join('; ')}`);
  }
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
  const alerts = alertsOf(result, globals.quiet, explained ? f.status : undefined, report.failed, f.shortfall);
  return { warnings, alerts, text: renderHuman(result, { verbose: globals.verbose, columns: outputColumns() }), notes };
}
