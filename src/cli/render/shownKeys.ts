/**
 * Keys as output names them (SITES.md): with SVC_SITE_KEYS the engine works with bare keys (the
 * sink qualifies them at the org's edge), but `--json`, the text report, dry-run lists, audit rows
 * and `--report` name each record as the org holds it, `6:Donation_123`, so a reader can find it.
 */
import type { MissingParent, OutsideParent, RecordOutcome } from '../../model/outcomes.js';
import { qualifyKey } from '../../model/siteKeys.js';

/** How output names a key: qualified with the site when the connection qualifies keys, else as it is. */
type KeyShown = (key: string) => string;

export const keyShown = (siteKeys: number | undefined): KeyShown => (siteKeys === undefined ? (k) => k : (k) => qualifyKey(siteKeys, k));

/** A record with a `key` (an outcome, an audit row) as output names it. */
export const withKeyShown = <R extends { key: string }>(row: R, shown: KeyShown): R => ({ ...row, key: shown(row.key) });

/**
 * The run's outcomes as output names them, lazily (a large run's are never all held as objects)
 * and iterable again each time: --json, the text report and the alerts each walk them.
 */
export function outcomesShown(records: Iterable<RecordOutcome>, shown: KeyShown): Iterable<RecordOutcome> {
  return {
    *[Symbol.iterator]() {
      for (const r of records) yield withKeyShown(r, shown);
    },
  };
}

/** Rows with a key (audit's drift, fixes, deletions) as output names them. */
export const rowsShown = <R extends { key: string }>(rows: readonly R[], shown: KeyShown): R[] => rows.map((r) => withKeyShown(r, shown));

/** A record without its parent, both keys as output names them. */
export const missingParentShown = (m: MissingParent, shown: KeyShown): MissingParent => ({ ...m, key: shown(m.key), parent: m.parent === null ? null : shown(m.parent) });

export const outsideParentShown = (m: OutsideParent, shown: KeyShown): OutsideParent => withKeyShown(m, shown);
