/** Human output of `audit`, readable at 80 columns: a per-object table, then the drift by kind. */
import fs from 'node:fs';
import type { AuditResult } from '../../sync/audit/auditRun.js';
import type { DriftKind, DriftRow } from '../../sync/audit/auditTypes.js';
import { grid } from './grid.js';
import { formatCount, outputColumns, shortMessage, wrap } from './text.js';
import { escapeControls } from '../../model/lineSafe.js';

/** The terminal's width, 80 when unknown (a pipe, cron). */
const WIDTH = outputColumns();
/** Rows shown per kind without --verbose; --report and --json carry all of them. */
const SHOWN = 20;

const HEADINGS: Record<DriftKind, string> = {
  missing: 'Missing from Salesforce',
  stale: 'Stale in Salesforce (fields that differ)',
  orphan: 'Orphans in Salesforce',
};

/** The objects the audit was asked about: --types donations lists Svc_Donation__c alone (questions ride with actions). */
function askedObjects(result: AuditResult): Set<string> {
  // The API name is the type in Pascal case (the schema's names; cli/ may not import mapping/).
  const apiName = (t: string): string =>
    `Svc_${t
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')}__c`;
  const asked = new Set<string>(result.types.map(apiName));
  if (result.types.includes('action')) asked.add('Svc_ActionQuestion__c');
  return asked;
}

function auditTable(result: AuditResult, columns = WIDTH): string {
  const asked = askedObjects(result);
  const n = formatCount;
  const rows = Object.entries(result.summary)
    .filter(([object]) => asked.has(object))
    .map(([object, c]) => [object, n(c.inSync), n(c.missing), n(c.stale), n(c.orphan)]);
  return grid(['object', 'in sync', 'missing', 'stale', 'orphan'], rows, { columns, align: ['left', 'right', 'right', 'right', 'right'] }).join('\n');
}

const more = (n: number): string => `  ... and ${formatCount(n)} more (--verbose, --report FILE or --json list all)`;

function detail(row: DriftRow): string {
  if (row.kind === 'stale') return (row.fields ?? []).join(', ');
  return escapeControls(row.reason ?? '');
}

/** One line per row: object, key, then what differs, shortened to fit. */
function line(row: DriftRow): string {
  const head = `  ${row.object} ${row.key}`;
  const d = detail(row);
  if (!d) return head;
  // One line when it fits, else the detail on its own indented line.
  return head.length + 2 + d.length <= WIDTH ? `${head}: ${d}` : `${head}\n      ${shortMessage(d, WIDTH - 6)}`;
}

function driftByKind(rows: DriftRow[], verbose: boolean): string[] {
  const out: string[] = [];
  for (const kind of ['missing', 'stale', 'orphan'] as const) {
    const of = rows.filter((r) => r.kind === kind);
    if (of.length === 0) continue;
    out.push(`${HEADINGS[kind]}: ${of.length}`);
    const shown = verbose ? of : of.slice(0, SHOWN);
    for (const r of shown) out.push(line(r));
    if (shown.length < of.length) out.push(more(of.length - shown.length));
  }
  return out;
}

export function renderAudit(result: AuditResult, opts: { verbose: boolean }): string {
  const out: string[] = [auditTable(result)];
  if (result.drift.length === 0) out.push('No drift: Salesforce mirrors the platform.');
  else out.push(...driftByKind(result.drift, opts.verbose));
  if (result.fixes) {
    const done = result.fixes.filter((f) => f.action === 'insert' || f.action === 'update').length;
    const failed = result.fixes.filter((f) => f.action === 'fail');
    out.push(`${result.dryRun ? 'Would write' : 'Written'}: ${done} record(s)${failed.length ? `, ${failed.length} failed` : ''}`);
    const shownFailed = opts.verbose ? failed : failed.slice(0, SHOWN);
    // The reason on its own indented line: any object and key length fits the width.
    for (const f of shownFailed) out.push(`  ${f.object} ${f.key}\n      ${shortMessage(`${f.error?.code ?? ''} ${f.error?.message ?? ''}`.trim(), WIDTH - 6)}`);
    if (shownFailed.length < failed.length) out.push(more(failed.length - shownFailed.length));
  }
  if (result.projection && result.projection.length > 0) {
    // Gifts and campaigns of what is gone keep their records, changed in status only.
    out.push(`${result.dryRun ? 'Would mark gone' : 'Marked gone'}: ${result.projection.length} gift or campaign record(s)`);
    const shown = opts.verbose ? result.projection : result.projection.slice(0, SHOWN);
    for (const r of shown) out.push(`  ${r.object} ${r.key}: ${r.action === 'fail' ? `failed, ${r.reason ?? ''}` : (r.fields ?? []).join(', ')}`);
    if (shown.length < result.projection.length) out.push(more(result.projection.length - shown.length));
  }
  if (result.deletions) {
    out.push(`${result.dryRun ? 'Deletions (dry run: nothing deleted)' : 'Deletions'}: ${result.deletions.length}`);
    const shown = opts.verbose ? result.deletions : result.deletions.slice(0, SHOWN);
    for (const d of shown) {
      const why = d.outcome === 'failed' ? `${d.error?.code ?? ''} ${d.error?.message ?? ''}` : d.outcome === 'kept' ? (d.reason ?? '') : '';
      const head = `  ${d.outcome}: ${d.object} ${d.key}`;
      out.push(why ? `${head}\n      ${shortMessage(why, WIDTH - 6)}` : head);
    }
    if (shown.length < result.deletions.length) out.push(more(result.deletions.length - shown.length));
  }
  if (result.remaining) {
    out.push(
      result.remaining.length === 0
        ? 'Remaining drift: none.'
        : `Remaining drift: ${result.remaining.length} (missing ${count(result.remaining, 'missing')}, stale ${count(result.remaining, 'stale')}, orphan ${count(result.remaining, 'orphan')})`,
    );
  }
  for (const p of result.problems.slice(0, opts.verbose ? undefined : SHOWN)) out.push(wrap(`could not audit: ${p}`, WIDTH, '    '));
  if (result.problems.length > SHOWN && !opts.verbose) out.push(`  ... and ${result.problems.length - SHOWN} more (--verbose or --json list all)`);
  // Long sentences: wrapped to the width, never cut (they say what to do next).
  // A real refusal or stop is said once, on stderr (it explains the exit code); the report says what it means here.
  if (result.refused && result.dryRun) out.push(wrap(`Guard: a real run would be ${result.refused}`, WIDTH, '  '));
  if (result.stopped) out.push('Stopped part-way: the deletions and fixes listed above were done, nothing after them.');
  out.push(`requests: platform ${result.requests.platform}, salesforce ${result.requests.salesforce}`);
  return out.join('\n');
}

const count = (rows: DriftRow[], kind: DriftKind): number => rows.filter((r) => r.kind === kind).length;

const cell = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * --report FILE: every drift row, with what became of it when --fix or --delete-orphans ran;
 * masked as stdout is (a reason quotes platform text).
 */
export function writeDriftCsv(file: string, result: AuditResult, mask: (text: string) => string): void {
  const remaining = result.remaining ? new Set(result.remaining.map((r) => `${r.object}\u0000${r.key}`)) : undefined;
  const deletion = new Map((result.deletions ?? []).map((d) => [`${d.object}\u0000${d.key}`, d]));
  const lines = ['object,key,kind,fields,reason,outcome'];
  for (const r of result.drift) {
    const id = `${r.object}\u0000${r.key}`;
    const d = deletion.get(id);
    const outcome = d ? d.outcome : remaining === undefined ? '' : remaining.has(id) ? 'remaining' : 'fixed';
    lines.push(mask([r.object, r.key, r.kind, (r.fields ?? []).join(' '), r.reason ?? '', outcome].map(cell).join(',')));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}
