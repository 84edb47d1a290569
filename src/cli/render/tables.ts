/** Human output: the dry-run diff table, the per-object summary, failures and missing parents. */
import Table from 'cli-table3';
import type { RunResult } from '../../sync/result.js';
import { DRY_RUN_NOTICE } from '../../sync/result.js';
import { shorten } from './text.js';

const table = (head: string[]): Table.Table => new Table({ head, style: { head: [], border: [] }, wordWrap: false });

export function diffTable(result: RunResult): string {
  const t = table(['object', 'key', 'action', 'changes / reason']);
  for (const r of result.records) {
    let detail = '';
    if (r.action === 'update' && r.changes) {
      detail = Object.entries(r.changes)
        .map(([f, c]) => `${f}: ${shorten(c.from, 30)} -> ${shorten(c.to, 30)}`)
        .join('\n');
      if (r.reason) detail = `${r.reason}\n${detail}`;
    } else if (r.action === 'skip') detail = r.reason ?? '';
    else if (r.action === 'fail') detail = `${r.error?.code ?? ''} ${r.error?.message ?? ''}`.trim();
    if (r.warnings?.length) detail = [detail, ...r.warnings.map((w) => `warning: ${w}`)].filter(Boolean).join('\n');
    t.push([r.object, r.key, r.action, detail || '']);
  }
  return result.records.length === 0 ? 'No changes: Salesforce already holds every value.' : t.toString();
}

export function summaryTable(result: RunResult): string {
  const t = table(['object', 'inserted', 'updated', 'unchanged', 'skipped', 'failed']);
  for (const [object, c] of Object.entries(result.summary)) {
    if (c.inserted + c.updated + c.unchanged + c.skipped + c.failed === 0) continue;
    t.push([object, c.inserted, c.updated, c.unchanged, c.skipped, c.failed]);
  }
  return t.length === 0 ? 'No records.' : t.toString();
}

export function failuresTable(result: RunResult): string | undefined {
  const failed = result.records.filter((r) => r.action === 'fail');
  if (failed.length === 0) return undefined;
  const t = table(['object', 'key', 'error', 'message']);
  for (const r of failed) t.push([r.object, r.key, r.error?.code ?? '', shorten(r.error?.message ?? '', 100)]);
  return t.toString();
}

export function missingParentsTable(result: RunResult): string | undefined {
  if (result.missingParents.length === 0) return undefined;
  const t = table(['object', 'key', 'missing parent', 'reason']);
  for (const m of result.missingParents) t.push([m.object, m.key, m.parent ?? '(none)', shorten(m.reason, 100)]);
  return t.toString();
}

export function renderHuman(result: RunResult, opts: { verbose: boolean }): string {
  const out: string[] = [];
  if (result.dryRun) out.push(diffTable(result), '', DRY_RUN_NOTICE);
  else if (opts.verbose) out.push(diffTable(result));
  out.push(summaryTable(result));
  out.push(`requests: platform ${result.requests.platform}, salesforce ${result.requests.salesforce}`);
  const failures = failuresTable(result);
  if (failures) out.push('Failures:', failures);
  const missing = missingParentsTable(result);
  if (missing) out.push('Missing parents:', missing);
  if (result.stopped) out.push(`Stopped early: ${result.stopped}`);
  return out.join('\n');
}
