/**
 * Human output, built for an 80-column terminal and 100,000-record runs: the per-object summary
 * first, then updates one compact block each, skips and missing parents grouped by reason with
 * counts and a few example keys, and every failure. Inserts are counts (listed with --verbose).
 * `--json` and `--report` keep every record; this is what a person reads.
 */
import type { ObjectCounts, RecordOutcome } from '../../model/outcomes.js';
import type { RunResult } from '../../sync/result.js';
import { DRY_RUN_NOTICE } from '../../sync/result.js';
import { failureGroups } from '../../sync/report/failureGroups.js';
import { grid } from './grid.js';
import { projectionLines } from './projectionText.js';
import { fit, formatCount, shorten, wrap } from './text.js';
import { escapeControls } from '../../model/lineSafe.js';

interface HumanOptions {
  verbose: boolean;
  /** Width to fit: the terminal's, 80 when not a terminal. */
  columns: number;
}

/** Update blocks shown without --verbose: enough to read, never a screen of thousands. */
export const UPDATES_SHOWN = 20;
/** Example keys per group of skips or missing parents. */
const EXAMPLES = 3;

const COUNT_COLUMNS: Array<[keyof ObjectCounts, string]> = [
  ['inserted', 'inserted'],
  ['updated', 'updated'],
  ['unchanged', 'unchanged'],
  ['skipped', 'skipped'],
  ['failed', 'failed'],
];

const n = formatCount;

/** The per-object summary: objects with any record, and a total row; never wider than needed. */
function summaryTable(result: RunResult, columns: number): string {
  const rows = Object.entries(result.summary).filter(([, c]) => COUNT_COLUMNS.some(([k]) => c[k] > 0));
  if (rows.length === 0) return 'No records.';
  const total = { inserted: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 } as ObjectCounts;
  for (const [, c] of rows) for (const [k] of COUNT_COLUMNS) total[k] += c[k];
  const body: string[][] = rows.map(([object, c]) => [object, ...COUNT_COLUMNS.map(([k]) => n(c[k]))]);
  if (rows.length > 1) body.push(['total', ...COUNT_COLUMNS.map(([k]) => n(total[k]))]);
  const head = ['object', ...COUNT_COLUMNS.map(([, h]) => h)];
  return grid(head, body, { columns, align: head.map((_, i) => (i === 0 ? 'left' : 'right')) }).join('\n');
}

/** One block per updated record: its key, then each changed field as old -> new, cut to the width. */
function updateBlocks(updates: RecordOutcome[], opts: HumanOptions): string[] {
  const shown = opts.verbose ? updates : updates.slice(0, UPDATES_SHOWN);
  const out: string[] = [`Updates (${n(updates.length)}):`];
  for (const r of shown) {
    out.push(fit(`  ${r.object} ${r.key}${r.reason ? `  (${r.reason})` : ''}`, opts.columns));
    const fields = Object.entries(r.changes ?? {});
    const nameWidth = Math.min(24, Math.max(0, ...fields.map(([f]) => f.length)));
    // What is left of the line after the indent, the name and " -> ", shared by both values.
    const room = Math.max(10, Math.floor((opts.columns - 4 - nameWidth - 2 - 4) / 2));
    for (const [field, c] of fields) {
      out.push(fit(`    ${field.padEnd(nameWidth)}  ${shorten(c.from, room)} -> ${shorten(c.to, room)}`, opts.columns));
    }
  }
  if (shown.length < updates.length) out.push(wrap(`  … ${n(updates.length - shown.length)} more: --verbose lists them all; --json and --report FILE keep every record`, opts.columns, '    '));
  return out;
}

/** Keys inside a reason ("action Action_7 was not written") would make every reason its own group. */
const groupReason = (reason: string): string => reason.replace(/\b([A-Z][A-Za-z]*)_\d+(?:\.\d+)?\b/g, '$1_*');

interface Group {
  object: string;
  reason: string;
  count: number;
  examples: string[];
}

function groupBy(items: Array<{ object: string; reason: string; example: string }>): Group[] {
  const groups = new Map<string, Group>();
  for (const it of items) {
    const reason = groupReason(escapeControls(it.reason));
    const id = `${it.object}\u0000${reason}`;
    const g = groups.get(id) ?? { object: it.object, reason, count: 0, examples: [] };
    g.count += 1;
    if (g.examples.length < EXAMPLES) g.examples.push(it.example);
    groups.set(id, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.object.localeCompare(b.object));
}

function groupLines(title: string, groups: Group[], total: number, opts: HumanOptions): string[] {
  const { columns } = opts;
  const out = [`${title} (${n(total)}), by reason:`];
  const countWidth = Math.max(...groups.map((g) => n(g.count).length));
  for (const g of groups) {
    // The reason is the point of the line: wrapped whole under the object (cut only without -v when long).
    const head = `  ${n(g.count).padStart(countWidth)}  ${g.object}: `;
    const indent = ' '.repeat(countWidth + 4);
    const reason = wrap(`${head}${g.reason}`, columns, indent).split('\n');
    out.push(...(opts.verbose || reason.length <= 2 ? reason : [reason[0]!, fit(`${reason[1]!} ${reason.slice(2).join(' ').trim()}`, columns)]));
    const more = g.count > g.examples.length ? ', …' : '';
    out.push(fit(`  ${' '.repeat(countWidth)}    e.g. ${g.examples.join(', ')}${more}`, columns));
  }
  return out;
}

/** Groups whose message is shown whole: a few reasons are read in full, many are a list to scan. */
const WHOLE_REASONS = 3;

/**
 * Failures by reason: count, object, code and message (whole when there are few reasons), the
 * first records, and what to fix when a retry cannot; every failure itself only with --verbose.
 */
function failureLines(failed: RecordOutcome[], opts: HumanOptions): string[] {
  const { columns } = opts;
  const groups = failureGroups(failed);
  const out = [`Failures (${n(failed.length)}), by reason:`];
  const countWidth = Math.max(...groups.map((g) => n(g.count).length));
  const indent = ' '.repeat(countWidth + 4);
  for (const g of groups) {
    // A word wider than the line (a 200-character value) cannot wrap: only it is cut.
    const reason = wrap(`  ${n(g.count).padStart(countWidth)}  ${g.object} ${g.code}: ${escapeControls(g.message)}`, columns, indent)
      .split('\n')
      .map((l) => fit(l, columns));
    out.push(...(opts.verbose || groups.length <= WHOLE_REASONS ? reason : [fit(reason.join(' ').replace(/\s+/g, ' '), columns)]));
    out.push(fit(`${indent}e.g. ${g.keys.join(', ')}${g.count > g.keys.length ? ', …' : ''}`, columns));
    const fix = g.fix === undefined ? [] : wrap(`a retry cannot fix this: ${g.fix}; next: svc-sync doctor`, columns - indent.length, '').split('\n');
    out.push(...fix.map((l) => `${indent}${l}`));
  }
  if (opts.verbose) for (const r of failed) out.push(fit(`  ${r.object} ${r.key}  ${r.error?.code ?? 'ERROR'}: ${escapeControls(r.error?.message ?? '').replace(/\s+/g, ' ')}`, columns));
  return out;
}

/** Keys of the inserted records per object, wrapped to the width (--verbose only). */
function insertLines(inserts: RecordOutcome[], columns: number): string[] {
  const out = [`Inserts (${n(inserts.length)}):`];
  const byObject = new Map<string, string[]>();
  for (const r of inserts) byObject.set(r.object, [...(byObject.get(r.object) ?? []), r.key]);
  for (const [object, keys] of byObject) {
    let line = `  ${object}:`;
    for (const key of keys) {
      if (line.length + key.length + 2 > columns) {
        out.push(line.replace(/,$/, ','));
        line = '   ';
      }
      line += ` ${key},`;
    }
    out.push(line.replace(/,$/, ''));
  }
  return out;
}

/** The requests line: per side, with the platform's rate-limit waits when there were any. */
function requestsLine(result: RunResult): string {
  const p = result.requests.platformByKind;
  const waits = p.rateLimitWaits > 0 ? ` (${n(p.rateLimitWaits)} rate-limit wait${p.rateLimitWaits === 1 ? '' : 's'}${p.waitedMs ? `, ${Math.round(p.waitedMs / 1000)} s waited` : ''})` : '';
  return `requests: platform ${n(result.requests.platform)}${waits}, salesforce ${n(result.requests.salesforce)}`;
}

export function renderHuman(result: RunResult, opts: HumanOptions): string {
  const sections: string[][] = [];
  sections.push([summaryTable(result, opts.columns), fit(requestsLine(result), opts.columns)]);
  // One pass each over the run's outcomes, made into objects one at a time: inserts only when listed.
  const by = (action: RecordOutcome['action']): RecordOutcome[] => {
    const out: RecordOutcome[] = [];
    for (const r of result.records) if (r.action === action) out.push(r);
    return out;
  };
  const inserts = opts.verbose ? by('insert') : [];
  if (inserts.length > 0) sections.push(insertLines(inserts, opts.columns));
  const updates = by('update');
  if (updates.length > 0) sections.push(updateBlocks(updates, opts));
  const skips = by('skip');
  if (skips.length > 0) {
    const groups = groupBy(skips.map((r) => ({ object: r.object, reason: r.reason ?? 'no reason given', example: r.key })));
    sections.push(groupLines('Skipped', groups, skips.length, opts));
  }
  const failed = by('fail');
  if (failed.length > 0) sections.push(failureLines(failed, opts));
  if (result.missingParents.length > 0) {
    const groups = groupBy(result.missingParents.map((m) => ({ object: m.object, reason: m.reason, example: `${m.key} -> ${m.parent ?? '(none)'}` })));
    sections.push(groupLines('Missing parents', groups, result.missingParents.length, opts));
  }
  if (result.outsideParents.length > 0) {
    const groups = groupBy(
      result.outsideParents.map((m) => ({ object: m.object, reason: `attached to ${m.parent.replace(/ \d+$/, '')}: written with no lookups, TargetSvcId__c blank`, example: m.key })),
    );
    sections.push(groupLines('Outside the mirrored objects', groups, result.outsideParents.length, opts));
  }
  if (result.projection) sections.push(projectionLines(result.projection, opts));
  if (result.dryRun) sections.push([wrap(DRY_RUN_NOTICE, opts.columns)]);
  const candidates = 'orphanCandidates' in result && Array.isArray(result.orphanCandidates) ? (result.orphanCandidates as Array<{ object: string; key: string; reason: string }>) : [];
  if (candidates.length > 0) {
    const lines = [wrap(`Orphan candidates (${n(candidates.length)}): in Salesforce, not on the platform; \`svc-sync audit\` confirms`, opts.columns, '  ')];
    for (const c of candidates.slice(0, opts.verbose ? undefined : UPDATES_SHOWN)) lines.push(fit(`  ${c.object} ${c.key}: ${c.reason}`, opts.columns));
    if (!opts.verbose && candidates.length > UPDATES_SHOWN) lines.push(`  ... and ${candidates.length - UPDATES_SHOWN} more (--verbose or --json list all)`);
    sections.push(lines);
  }
  return sections.map((s) => s.join('\n')).join('\n\n');
}
