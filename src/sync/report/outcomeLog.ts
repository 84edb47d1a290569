/**
 * A run's per-record outcomes, in the order they came, without an object per record: a first sync
 * of a million records is a million plain inserts (`{object, key, action: 'insert'}`, nothing
 * else said), kept here as 9 bytes each (a kind and an id in typed arrays) and made into objects
 * again only when listed, one at a time. Outcomes that say more (an update's changes, a skip's
 * reason, a failure, warnings) are kept as given: they are the ones a person reads.
 */
import { IdTable } from '../../model/idTable.js';
import type { Changes, OutcomeAction, RecordOutcome, ReportedObject } from '../../model/outcomes.js';

/** A key as svc-sync writes most: a prefix and a whole id without leading zeros (`Donation_100050`). */
const PLAIN_KEY = /^([A-Za-z]+)_([1-9]\d{0,14})$/;
const ACTIONS: readonly OutcomeAction[] = ['insert', 'update', 'unchanged', 'skip', 'fail'];
/** The log's code for an outcome kept as given (the next of `given`). */
const GIVEN = 255;

/** What outcomeOf answers for every unchanged record (one shared object). */
const UNCHANGED = Object.freeze({ action: 'unchanged' as const });

function plainKey(key: string): { prefix: string; id: number } | undefined {
  const m = PLAIN_KEY.exec(key);
  return m === null ? undefined : { prefix: m[1] as string, id: Number(m[2]) };
}

/** An outcome that is its object, key and action alone, of a plain key. */
function isPlain(o: RecordOutcome): boolean {
  let n = 0;
  for (const k in o) if (++n > 3 || (k !== 'object' && k !== 'key' && k !== 'action')) return false;
  return o.action === 'insert' || o.action === 'unchanged';
}

export class OutcomeLog implements Iterable<RecordOutcome> {
  /** Plain outcomes' (object, key prefix) pairs: the log's codes 0-254. */
  private readonly kinds: Array<{ object: ReportedObject; prefix: string }> = [];
  private readonly kindOf = new Map<string, number>();
  /** Per key prefix: each plain key's last action (its index in ACTIONS, plus 1). */
  private readonly actions = new Map<string, IdTable>();
  private codes = new Uint8Array(1_024);
  private ids = new Float64Array(1_024);
  private count = 0;
  /** Outcomes kept as given, in order. */
  private readonly given: RecordOutcome[] = [];
  /** The last outcome of each key whose last outcome was kept as given. */
  private readonly givenByKey = new Map<string, RecordOutcome | typeof UNCHANGED>();

  /** Outcomes listed (every one but "unchanged"). */
  get size(): number {
    return this.count;
  }

  add(outcome: RecordOutcome): void {
    const plain = isPlain(outcome) ? plainKey(outcome.key) : undefined;
    const kind = plain === undefined ? undefined : this.kind(outcome.object, plain.prefix);
    if (plain === undefined || kind === undefined) {
      this.givenByKey.set(outcome.key, outcome.action === 'unchanged' ? UNCHANGED : outcome);
      if (outcome.action !== 'unchanged') {
        this.given.push(outcome);
        this.append(GIVEN, 0);
      }
      return;
    }
    if (this.givenByKey.size > 0) this.givenByKey.delete(outcome.key);
    let table = this.actions.get(plain.prefix);
    if (table === undefined) this.actions.set(plain.prefix, (table = new IdTable()));
    table.set(plain.id, ACTIONS.indexOf(outcome.action) + 1);
    if (outcome.action !== 'unchanged') this.append(kind, plain.id);
  }

  /** The last outcome of a key: its action, and for one kept as given its reason or error. */
  outcomeOf(key: string): { action: OutcomeAction; reason?: string | undefined } | undefined {
    const o = this.givenByKey.get(key);
    if (o !== undefined) return 'key' in o ? { action: o.action, reason: o.reason ?? o.error?.message } : { action: o.action };
    const plain = plainKey(key);
    const code = plain === undefined ? 0 : (this.actions.get(plain.prefix)?.get(plain.id) ?? 0);
    return code === 0 ? undefined : { action: ACTIONS[code - 1] as OutcomeAction };
  }

  /** The changes of a key's last outcome, when it was an update that said them. */
  changesOf(key: string): Changes | undefined {
    const o = this.givenByKey.get(key);
    return o !== undefined && 'key' in o ? o.changes : undefined;
  }

  /** The failures, in order (never plain: each has its error). */
  failures(): RecordOutcome[] {
    return this.given.filter((o) => o.action === 'fail');
  }

  *[Symbol.iterator](): Iterator<RecordOutcome> {
    let next = 0;
    for (let i = 0; i < this.count; i++) {
      const code = this.codes[i] as number;
      if (code === GIVEN) {
        yield this.given[next++] as RecordOutcome;
      } else {
        const { object, prefix } = this.kinds[code] as { object: ReportedObject; prefix: string };
        yield { object, key: `${prefix}_${this.ids[i] as number}`, action: 'insert' };
      }
    }
  }

  /** JSON.stringify lists them (the --json writer streams them instead). */
  toJSON(): RecordOutcome[] {
    return [...this];
  }

  /** The code of an (object, prefix) pair; undefined once 255 pairs are taken (then kept as given). */
  private kind(object: ReportedObject, prefix: string): number | undefined {
    const name = `${object} ${prefix}`;
    let code = this.kindOf.get(name);
    if (code === undefined && this.kinds.length < GIVEN) {
      code = this.kinds.push({ object, prefix }) - 1;
      this.kindOf.set(name, code);
    }
    return code;
  }

  private append(code: number, id: number): void {
    if (this.count === this.codes.length) {
      const codes = new Uint8Array(this.codes.length * 2);
      codes.set(this.codes);
      const ids = new Float64Array(this.ids.length * 2);
      ids.set(this.ids);
      [this.codes, this.ids] = [codes, ids];
    }
    this.codes[this.count] = code;
    this.ids[this.count++] = id;
  }
}
