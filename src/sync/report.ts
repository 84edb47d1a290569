/** Per-record outcomes of a run, collected by the engine; the CLI renders them. The engine never prints. */
import { emptyObjectCounts, type ReportedObject, type MissingParent, type ObjectCounts, type OutcomeAction, type OutsideParent, type RecordOutcome } from '../model/outcomes.js';

const COUNTER: Record<OutcomeAction, keyof ObjectCounts> = {
  insert: 'inserted',
  update: 'updated',
  unchanged: 'unchanged',
  skip: 'skipped',
  fail: 'failed',
};

/** What outcomeOf answers for every unchanged record (one shared object). */
const UNCHANGED = Object.freeze({ action: 'unchanged' as const });

export class RunReport {
  /** Every outcome but "unchanged" (those are only counted, so a quiet re-run stays small). */
  readonly records: RecordOutcome[] = [];
  readonly summary = new Map<ReportedObject, ObjectCounts>();
  readonly missingParents: MissingParent[] = [];
  /** Records attached to a parent outside the spec's objects, written with no lookups (not a problem). */
  readonly outsideParents: OutsideParent[] = [];
  readonly warnings: string[] = [];
  /**
   * Last outcome per key: how the webhook worker learns what became of each ref. The outcome
   * itself, not a copy: a million-id replay keeps one object per record, not two. An unchanged
   * one is kept as UNCHANGED: nothing else of it is asked, and a quiet re-run of 100,000 records
   * would otherwise hold 100,000 outcomes it never lists.
   */
  private readonly byKey = new Map<string, RecordOutcome | typeof UNCHANGED>();

  constructor(private readonly onOutcome?: (o: RecordOutcome) => void) {}

  add(outcome: RecordOutcome): void {
    const counts = this.summary.get(outcome.object) ?? emptyObjectCounts();
    counts[COUNTER[outcome.action]]++;
    this.summary.set(outcome.object, counts);
    if (outcome.action !== 'unchanged') this.records.push(outcome);
    this.byKey.set(outcome.key, outcome.action === 'unchanged' ? UNCHANGED : outcome);
    this.onOutcome?.(outcome);
  }

  missingParent(m: MissingParent): void {
    this.missingParents.push(m);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  outcomeOf(key: string): { action: OutcomeAction; reason?: string | undefined } | undefined {
    const o = this.byKey.get(key);
    if (o === undefined) return undefined;
    return 'key' in o ? { action: o.action, reason: o.reason ?? o.error?.message } : { action: o.action };
  }

  get failed(): number {
    let n = 0;
    for (const c of this.summary.values()) n += c.failed;
    return n;
  }

  get written(): number {
    let n = 0;
    for (const c of this.summary.values()) n += c.inserted + c.updated;
    return n;
  }
}
