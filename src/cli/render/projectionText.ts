/**
 * The gift projection in a run's text (PROJECTION.md §6.4): one summary line, and in a dry run one
 * line per donation with the donor decision (matched by what, or new) and the gift it would write.
 * Failures are the run's failed records, listed with the mirror's.
 */
import { escapeControls } from '../../model/lineSafe.js';
import type { ProjectionSummary } from '../../sync/giftProjector.js';
import type { DonationProjection } from '../../sync/gifts/outcome.js';
import { fit, formatCount } from './text.js';

const DECISIONS_SHOWN = 20;

function decisionLine(p: DonationProjection): string {
  const d = p.donor;
  if (d === undefined) return `  ${p.donation}: ${p.gift === 'unchanged' ? 'unchanged since the last run' : `no gift (${p.reason ?? 'not eligible'})`}`;
  // Matched by what (with the Id), or new; a pool or no-key donor made in this run says so.
  const donor = d.matchedBy === 'new' ? 'donor new' : `donor ${d.matchedBy} ${d.id ?? '(new)'}`;
  const amount = p.amount === undefined ? '' : ` ${p.amount.toFixed(2)}`;
  const gift = p.gift === 'fail' ? `no gift (${p.reason ?? 'failed'})` : `gift ${p.gift}${amount} ${p.date ?? ''} "${p.name ?? ''}"`;
  return `  ${p.donation}: ${donor}; ${gift.trimEnd()}`;
}

export function projectionLines(p: ProjectionSummary, opts: { verbose: boolean; columns: number }): string[] {
  const g = p.gifts;
  const counts = [`${formatCount(g.insert)} inserted`, `${formatCount(g.update)} updated`, `${formatCount(g.unchanged)} unchanged`, `${formatCount(g.skip)} skipped`, `${formatCount(g.fail)} failed`];
  const lines = [fit(`Gifts: ${counts.join(', ')} (${formatCount(p.salesforceCalls)} calls)`, opts.columns)];
  // The other objects written (a dry run: would be), each with its non-zero counts.
  const others = Object.entries(p.objects)
    .filter(([object]) => object !== 'GiftTransaction')
    .map(
      ([object, c]) =>
        `${object} ${[c.insert && `${formatCount(c.insert)} inserted`, c.update && `${formatCount(c.update)} updated`, c.delete && `${formatCount(c.delete)} deleted`, c.fail && `${formatCount(c.fail)} failed`].filter(Boolean).join(', ')}`,
    )
    .filter((t) => !t.endsWith(' '));
  if (others.length > 0) lines.push(fit(`  ${others.join('; ')}`, opts.columns));
  const decisions = p.decisions ?? [];
  const shown = opts.verbose ? decisions : decisions.slice(0, DECISIONS_SHOWN);
  for (const d of shown) lines.push(fit(escapeControls(decisionLine(d)), opts.columns));
  if (shown.length < decisions.length) lines.push(`  ... and ${formatCount(decisions.length - shown.length)} more (--verbose or --json list all)`);
  for (const a of p.ambiguousDonors) lines.push(fit(`  ${a.donation}: ambiguous donor, a new one was made; merge ${a.candidates.join(', ')}`, opts.columns));
  return lines;
}
