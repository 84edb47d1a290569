/** Per-record outcomes of a run, collected by the engine; the CLI renders them. The engine never prints. */
import { OutcomeLog } from './outcomeLog.js';
import { emptyObjectCounts, type Changes, type ReportedObject, type MissingParent, type ObjectCounts, type OutcomeAction, type OutsideParent, type RecordOutcome } from '../../model/outcomes.js';

const COUNTER: Record<OutcomeAction, keyof ObjectCounts> = {
  insert: 'inserted',
  update: 'updated',
  unchanged: 'unchanged',
  skip: 'skipped',
  fail: 'failed',
};

export class RunReport {
  /**
   * Every outcome but "unchanged" (those are only counted, so a quiet re-run stays small), in
   * order, packed (outcomeLog.ts): a first sync of a million records holds 9 bytes a record here.
   * The last outcome of each key is kept with them: how the webhook worker learns what became of
   * each ref.
   */
  readonly listed = new OutcomeLog();
  readonly summary = new Map<ReportedObject, ObjectCounts>();
  readonly missingParents: MissingParent[] = [];
  /** Records attached to a parent outside the spec's objects, written with no lookups (not a problem). */
  readonly outsideParents: OutsideParent[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly onOutcome?: (o: RecordOutcome) => void) {}

  /** The listed outcomes as an array: a copy, made now (a large run iterates `listed` instead). */
  get records(): RecordOutcome[] {
    return [...this.listed];
  }

  add(outcome: RecordOutcome): void {
    const counts = this.summary.get(outcome.object) ?? emptyObjectCounts();
    counts[COUNTER[outcome.action]]++;
    this.summary.set(outcome.object, counts);
    this.listed.add(outcome);
    this.onOutcome?.(outcome);
  }

  missingParent(m: MissingParent): void {
    this.missingParents.push(m);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  outcomeOf(key: string): { action: OutcomeAction; reason?: string | undefined } | undefined {
    return this.listed.outcomeOf(key);
  }

  /** What a key's last update changed, field by field (a dry run's too); undefined for any other outcome. */
  changesOf(key: string): Changes | undefined {
    return this.listed.changesOf(key);
  }

  /** The failed outcomes, in order. */
  failures(): RecordOutcome[] {
    return this.listed.failures();
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
