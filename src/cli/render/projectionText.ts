/**
 * The gift projection in a run's text (PROJECTION.md §6.4): one summary line, and in a dry run one
 * line per donation with the donor decision (matched by what, or new) and the gift it would write.
 * Failures are the run's failed records, listed with the mirror's.
 */
import { escapeControls } from '../../model/lineSafe.js';
import type { ProjectionSummary } from '../../sync/gifts/giftProjector.js';
import type { DonationProjection } from '../../sync/gifts/outcome.js';
import { fit, formatCount, wrap } from './text.js';

const DECISIONS_SHOWN = 20;
const DONOR_WIDTH = 13;
const GIFT_WIDTH = 9;

/** What a dry run's donor column means (§1.3, §1.5): said once above the table. */
const LEGEND =
  'donor: link, key, email+name = an Account found (by the link kept from an earlier run, by ' +
  'its key, or by its email and names); new = none found, one is created; noKey = no email: ' +
  "an Account of its own; anonymousPool = the site's Anonymous donor; ambiguous = several " +
  'found: one is created, merge them';

/** Text wrapped at words, each line two spaces in. */
const indented = (text: string, columns: number): string[] =>
  wrap(text, columns - 2)
    .split('\n')
    .map((l) => `  ${l}`);

/** The gift's label: its Name without " - Donation <id>" (the line names the donation already). */
const labelOf = (p: DonationProjection): string => (p.name ?? '').replace(/ - Donation \d+$/, '');

/** One row: donation, donor decision, what becomes of the gift, amount, date, and the donor's label (or why no gift). */
function decisionLine(p: DonationProjection, keyWidth: number): string {
  const d = p.donor;
  const cells = [p.donation.padEnd(keyWidth), (d?.matchedBy ?? '-').padEnd(DONOR_WIDTH), p.gift.padEnd(GIFT_WIDTH)];
  if (d === undefined || p.amount === undefined || p.gift === 'fail' || p.gift === 'skip') {
    // The code alone (CURRENCY_MISMATCH): the run's Skipped and Failed sections say it whole.
    const why = p.gift === 'unchanged' ? 'unchanged since the last run' : (p.reason ?? 'not eligible').split(':')[0];
    return `  ${cells.join('  ')}  (${why})`;
  }
  return `  ${cells.join('  ')}${p.amount.toFixed(2).padStart(8)}  ${p.date ?? ''}  ${labelOf(p)}`;
}

function decisionLines(decisions: readonly DonationProjection[], opts: { verbose: boolean; columns: number }): string[] {
  if (decisions.length === 0) return [];
  const shown = opts.verbose ? decisions : decisions.slice(0, DECISIONS_SHOWN);
  const keyWidth = Math.max(8, ...shown.map((p) => p.donation.length));
  const lines = indented(LEGEND, opts.columns);
  lines.push(fit(`  ${'donation'.padEnd(keyWidth)}  ${'donor'.padEnd(DONOR_WIDTH)}  ${'gift'.padEnd(GIFT_WIDTH)}  amount  date        donor label`, opts.columns));
  for (const p of shown) lines.push(fit(escapeControls(decisionLine(p, keyWidth)), opts.columns));
  if (shown.length < decisions.length) lines.push(`  ... and ${formatCount(decisions.length - shown.length)} more (--verbose or --json list all)`);
  return lines;
}

/** A dry run: the fundraiser slots that would move because their page's owner changed, one line each. */
function moveLines(moves: NonNullable<ProjectionSummary['softCreditMoves']>, opts: { verbose: boolean; columns: number }): string[] {
  if (moves.length === 0) return [];
  const shown = opts.verbose ? moves : moves.slice(0, DECISIONS_SHOWN);
  const lines = [fit(`  Soft credits that would move (the page's owner changed): ${formatCount(moves.length)}`, opts.columns)];
  for (const m of shown) {
    const what =
      m.action === 'delete' ? 'fundraiser soft credit removed (the owner is the donor, or has no email)' : `fundraiser soft credit ${m.action === 'insert' ? 'added' : 'moved'} to ${m.to ?? '?'}`;
    lines.push(fit(escapeControls(`  ${m.donation} on ${m.page}: ${what}`), opts.columns));
  }
  if (shown.length < moves.length) lines.push(`  ... and ${formatCount(moves.length - shown.length)} more (--verbose or --json list all)`);
  return lines;
}

export function projectionLines(p: ProjectionSummary, opts: { verbose: boolean; columns: number }): string[] {
  const g = p.gifts;
  const counts = [`${formatCount(g.insert)} inserted`, `${formatCount(g.update)} updated`, `${formatCount(g.unchanged)} unchanged`, `${formatCount(g.skip)} skipped`, `${formatCount(g.fail)} failed`];
  const lines = [fit(`Gifts: ${counts.join(', ')} (${formatCount(p.salesforceCalls)} calls)`, opts.columns)];
  const donors = p.donors;
  if (donors.matched + donors.new + donors.ambiguous > 0) {
    lines.push(fit(`  Donors: ${formatCount(donors.matched)} matched, ${formatCount(donors.new)} new, ${formatCount(donors.ambiguous)} ambiguous`, opts.columns));
  }
  const campaigns = p.objects.Campaign;
  if (campaigns !== undefined) {
    const c = [
      `${formatCount(campaigns.insert)} inserted`,
      `${formatCount(campaigns.update)} updated`,
      `${formatCount(campaigns.unchanged)} unchanged`,
      ...(campaigns.fail > 0 ? [`${formatCount(campaigns.fail)} failed`] : []),
    ];
    lines.push(fit(`  Campaigns: ${c.join(', ')}`, opts.columns));
  }
  // The other objects written (a dry run: would be), each with its non-zero counts.
  const others = Object.entries(p.objects)
    .filter(([object]) => object !== 'GiftTransaction' && object !== 'Campaign')
    .map(
      ([object, c]) =>
        `${object} ${[c.insert && `${formatCount(c.insert)} inserted`, c.update && `${formatCount(c.update)} updated`, c.delete && `${formatCount(c.delete)} deleted`, c.fail && `${formatCount(c.fail)} failed`].filter(Boolean).join(', ')}`,
    )
    .filter((t) => !t.endsWith(' '));
  if (others.length > 0) lines.push(...indented(others.join('; '), opts.columns));
  lines.push(...decisionLines(p.decisions ?? [], opts));
  lines.push(...moveLines(p.softCreditMoves ?? [], opts));
  for (const a of p.ambiguousDonors) lines.push(fit(`  ${a.donation}: ambiguous donor, a new one was made; merge ${a.candidates.join(', ')}`, opts.columns));
  return lines;
}
