/**
 * Human output of `svc-sync queue`: the counts on one line, then the failed events in the one
 * compact table, fitted to the width; the last error is the flexible column (full text in --json).
 */
import type { ConnectionCounts, FailedEvent, IgnoredReason, QueueCounts } from '../../webhook/queue/store.js';
import { grid } from './grid.js';
import { formatCount, wrap, wrapLine } from './text.js';

/** "11-24 17:45" (UTC, as the heading says): the year and seconds cost room the error needs. */
const when = (iso: string): string => iso.replace(/^\d{4}-(\d\d-\d\d)T(\d\d:\d\d).*$/, '$1 $2');
/** The ref's type, short: the event type and full names are in --json. */
const short = (type: string): string => (type === 'newsletter_subscription' ? 'subscription' : type);

/** The record an event names: its key in the org when the connection qualifies keys (`6:Donation_123`), else type and id. */
const refOf = (f: FailedEvent & { key?: string }): string => f.key ?? `${short(f.refType)} ${f.refId}`;

/** `redact` masks secrets before a cell is cut: a cut secret would no longer match its mask. */
const listOf = (counts: QueueCounts): string =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${formatCount(v)}`)
    .join(', ');

/**
 * `byConnection` (a config with "connections"): one line per connection after the totals, named
 * by `nameOf` (a connection the config no longer has is said so), and each failed event's connection.
 */
export function renderQueue(
  where: string,
  counts: QueueCounts,
  failed: ReadonlyArray<FailedEvent & { key?: string }>,
  columns: number,
  redact: (s: string) => string = (s) => s,
  byConnection?: { counts: readonly ConnectionCounts[]; nameOf: (stored: string) => string },
): string[] {
  const lines = [wrap(`queue ${where}: ${listOf(counts)}`, columns, '  ')];
  for (const c of byConnection?.counts ?? []) lines.push(wrap(`  ${byConnection?.nameOf(c.connection) ?? c.connection}: ${listOf(c.counts)}`, columns, '    '));
  if (failed.length === 0) return lines;
  if (byConnection !== undefined) {
    const nameOf = byConnection.nameOf;
    const rows = failed.map((f) => [f.id, nameOf(f.connection ?? ''), refOf(f), f.attempts, when(f.nextAttemptAt), redact(f.lastError)]);
    lines.push(
      ...grid(['event', 'connection', 'ref', 'tries', 'next (UTC)', 'last error'], rows, { columns, align: ['right', 'left', 'left', 'right', 'left', 'left'], minWidth: 10, flex: 5, flexMin: 24 }),
    );
  } else {
    const rows = failed.map((f) => [f.id, refOf(f), f.attempts, when(f.nextAttemptAt), redact(f.lastError)]);
    lines.push(...grid(['event', 'ref', 'tries', 'next (UTC)', 'last error'], rows, { columns, align: ['right', 'left', 'right', 'left', 'left'], minWidth: 10, flex: 4, flexMin: 24 }));
  }
  lines.push('`svc-sync queue retry` queues them again now; --json shows each error in full');
  return lines;
}

/**
 * `queue -v`: why events were ignored, the most frequent reason first; the platform does not send
 * them again, so the reason is all there is to act on. `nameOf`: the connection, with "connections".
 */
export function ignoredLines(ignored: readonly IgnoredReason[], columns: number, redact: (s: string) => string = (s) => s, nameOf?: (stored: string) => string): string[] {
  if (ignored.length === 0) return [];
  const lines = ['ignored (answered 200, never synced; the platform does not send them again):'];
  for (const g of ignored) {
    const who = nameOf === undefined ? '' : `${nameOf(g.connection)}: `;
    lines.push(...wrapLine(`  ${formatCount(g.count)} ${who}${redact(g.reason)} (last ${when(g.lastAt)} UTC)`, columns));
  }
  return lines;
}
