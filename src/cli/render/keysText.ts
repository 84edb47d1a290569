/** `keys qualify`'s report: counts per object, a sample of the rewrites, the failures. */
import type { QualifyResult } from '../../sync/keys/qualify.js';
import { grid } from './grid.js';
import { formatCount, outputColumns, shortMessage, wrap } from './text.js';

const WIDTH = outputColumns();
const SHOWN = 10;

export function renderKeys(result: QualifyResult, opts: { verbose: boolean }): string {
  const n = formatCount;
  const rows = Object.entries(result.objects).map(([object, c]) => [object, n(c.records), n(c.bare), n(c.qualified), n(c.otherSites), n(c.updated), n(c.failed)]);
  const out = grid(['object', 'records', 'bare', 'qualified', 'other site', 'updated', 'failed'], rows, { columns: WIDTH, align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'] });
  if (result.bare === 0) out.push(`Every key carries site ${result.siteId} already: nothing to rewrite.`);
  else if (result.dryRun) {
    out.push(`Would rewrite ${n(result.bare)} record(s) with bare keys to site ${result.siteId} (dry run: nothing written; --apply writes):`);
    for (const c of result.sample) out.push(`  ${c.object} ${c.field}: ${c.from} -> ${c.to}`);
  } else out.push(`Rewritten: ${n(result.updated)} record(s)${result.failed ? `, ${n(result.failed)} failed` : ''}`);
  const shown = opts.verbose ? result.failures : result.failures.slice(0, SHOWN);
  for (const f of shown) out.push(`  ${f.object} ${f.key} (${f.id})\n      ${shortMessage(`${f.error.code} ${f.error.message}`, WIDTH - 6)}`);
  if (shown.length < result.failures.length) out.push(`  ... and ${n(result.failures.length - shown.length)} more (--verbose or --json list all)`);
  if (result.refused && result.dryRun) out.push(wrap(`Refused: ${result.refused}`, WIDTH, '  '));
  out.push(`requests: salesforce ${result.requests.salesforce}`);
  return out.join('\n');
}
