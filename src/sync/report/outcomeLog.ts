/**
 * A run's per-record outcomes, in the order they came, without an object per record: a first sync
 * of a million records is a million outcomes that say no more than their object, key, action and
 * at most a skip's reason shared by many (`not paid`, `zero total amount`). Those are kept here as
 * 9 bytes each (a kind and an id in typed arrays) and made into objects again only when listed,
 * one at a time. A kind is everything but the key's number(s); a heavy site's 36,000 action
 * answers (`ActionQuestion_5000.50001`) and its unpaid donations' skips were one object and one
 * Map entry each (about 200 bytes, 12 MiB at 100,000 records). Outcomes that say more (an
 * update's changes, a failure, warnings, a reason naming its record) are kept as given: they are
 * the ones a person reads. Past 65,536 outcomes the log waits on disk a chunk at a time
 * (chunkSpill.ts): 9 bytes a record were still 9 MB at a million, 13.5 with room to grow.
 */
import { IdTable } from '../../model/idTable.js';
import { ChunkSpill, type Chunk } from './chunkSpill.js';
import type { Changes, OutcomeAction, RecordOutcome, ReportedObject } from '../../model/outcomes.js';

/**
 * A key as svc-sync writes most: an optional site and letters, a whole id without leading zeros,
 * an optional second id (an action's answer) and an optional role (`Donation_100050`,
 * `ActionQuestion_5000.50001`, `6:Donation_12:gift`).
 */
const PACKED_KEY = /^([0-9A-Za-z:]*[A-Za-z])_([1-9]\d{0,14})(?:\.(0|[1-9]\d{0,14}))?(:[A-Za-z]+)?$/;
/** A two-id key packs into one exact double when its ids are below these (2^27 * 2^26 = 2^53). */
const FIRST_BELOW = 2 ** 27;
const SECOND_BELOW = 2 ** 26;
/** The log's code for an outcome kept as given (the next of `given`); kinds take codes 0-254. */
const GIVEN = 255;
/** Codes a skip's reason may take, so reasons that vary cannot use up the codes of plain inserts. */
const REASON_KINDS = 128;

/** Outcomes held in memory before they are written to the spill file as one chunk. */
const CHUNK = 65_536;

/** What outcomeOf answers for every unchanged record (one shared object). */
const UNCHANGED = Object.freeze({ action: 'unchanged' as const });

type PackedAction = 'insert' | 'unchanged' | 'skip';

interface Kind {
  object: ReportedObject;
  /** The key around its number(s): before the `_`, whether a second id follows, and after. */
  head: string;
  pair: boolean;
  tail: string;
  action: PackedAction;
  reason?: string;
}

interface PackedKey {
  head: string;
  pair: boolean;
  tail: string;
  id: number;
}

function packedKey(key: string): PackedKey | undefined {
  const m = PACKED_KEY.exec(key);
  if (m === null) return undefined;
  const first = Number(m[2]);
  const tail = m[4] ?? '';
  if (m[3] === undefined) return { head: m[1] as string, pair: false, tail, id: first };
  const second = Number(m[3]);
  if (first >= FIRST_BELOW || second >= SECOND_BELOW) return undefined;
  return { head: m[1] as string, pair: true, tail, id: first * SECOND_BELOW + second };
}

function keyOf(kind: Kind, id: number): string {
  if (!kind.pair) return `${kind.head}_${id}${kind.tail}`;
  const second = id % SECOND_BELOW;
  return `${kind.head}_${(id - second) / SECOND_BELOW}.${second}${kind.tail}`;
}

/** An outcome that says no more than its kind and key: an insert or unchanged alone, a skip with at most its reason. */
function packedAction(o: RecordOutcome): PackedAction | undefined {
  for (const k in o) {
    if (k === 'object' || k === 'key' || k === 'action') continue;
    if (k === 'reason' && o.action === 'skip' && typeof o.reason === 'string') continue;
    return undefined;
  }
  return o.action === 'insert' || o.action === 'unchanged' || o.action === 'skip' ? o.action : undefined;
}

const tableName = (k: Pick<Kind, 'head' | 'pair' | 'tail'>): string => `${k.head}${k.pair ? '.' : ''}${k.tail}`;

export class OutcomeLog implements Iterable<RecordOutcome> {
  /** The kinds of packed outcomes: the log's codes 0-254. */
  private readonly kinds: Kind[] = [];
  private readonly kindOf = new Map<string, number>();
  private reasonKinds = 0;
  /** Per key shape (tableName): each packed key's last outcome, as its kind's code plus 1. */
  private readonly lastOf = new Map<string, IdTable>();
  private codes = new Uint8Array(1_024);
  private ids = new Float64Array(1_024);
  private count = 0;
  /** Outcomes in `codes` and `ids`; those before them are the spill's chunks. */
  private filled = 0;
  private readonly spill: ChunkSpill;
  /** Outcomes kept as given, in order. */
  private readonly given: RecordOutcome[] = [];
  /** The last outcome of each key whose last outcome was kept as given. */
  private readonly givenByKey = new Map<string, RecordOutcome | typeof UNCHANGED>();

  /** `chunk`: outcomes kept in memory before a chunk of them goes to disk (smaller in tests). */
  constructor(private readonly chunk = CHUNK) {
    this.spill = new ChunkSpill(chunk);
  }

  /** Outcomes listed (every one but "unchanged"). */
  get size(): number {
    return this.count;
  }

  add(outcome: RecordOutcome): void {
    const action = packedAction(outcome);
    const key = action === undefined ? undefined : packedKey(outcome.key);
    const code = action === undefined || key === undefined ? undefined : this.kind(outcome, action, key);
    if (key === undefined || code === undefined) {
      this.givenByKey.set(outcome.key, outcome.action === 'unchanged' ? UNCHANGED : outcome);
      if (outcome.action !== 'unchanged') {
        this.given.push(outcome);
        this.append(GIVEN, 0);
      }
      return;
    }
    if (this.givenByKey.size > 0) this.givenByKey.delete(outcome.key);
    const name = tableName(key);
    let table = this.lastOf.get(name);
    if (table === undefined) this.lastOf.set(name, (table = new IdTable()));
    table.set(key.id, code + 1);
    if (action !== 'unchanged') this.append(code, key.id);
  }

  /** The last outcome of a key: its action, and its reason or error when it has one. */
  outcomeOf(key: string): { action: OutcomeAction; reason?: string | undefined } | undefined {
    const o = this.givenByKey.get(key);
    if (o !== undefined) return 'key' in o ? { action: o.action, reason: o.reason ?? o.error?.message } : { action: o.action };
    const packed = packedKey(key);
    const value = packed === undefined ? 0 : (this.lastOf.get(tableName(packed))?.get(packed.id) ?? 0);
    if (value === 0) return undefined;
    const kind = this.kinds[value - 1] as Kind;
    return kind.reason === undefined ? { action: kind.action } : { action: kind.action, reason: kind.reason };
  }

  /** The changes of a key's last outcome, when it was an update that said them. */
  changesOf(key: string): Changes | undefined {
    const o = this.givenByKey.get(key);
    return o !== undefined && 'key' in o ? o.changes : undefined;
  }

  /** The failures, in order (never packed: each has its error). */
  failures(): RecordOutcome[] {
    return this.given.filter((o) => o.action === 'fail');
  }

  *[Symbol.iterator](): Iterator<RecordOutcome> {
    let next = 0;
    const chunks = this.spill.count;
    const into: Chunk | undefined = chunks === 0 ? undefined : { ids: new Float64Array(this.chunk), codes: new Uint8Array(this.chunk) };
    for (let c = 0; c <= chunks; c++) {
      const { ids, codes } = c < chunks ? this.spill.get(c, into as Chunk) : { ids: this.ids, codes: this.codes };
      const length = c < chunks ? this.chunk : this.filled;
      for (let i = 0; i < length; i++) {
        const code = codes[i] as number;
        if (code === GIVEN) {
          yield this.given[next++] as RecordOutcome;
          continue;
        }
        const kind = this.kinds[code] as Kind;
        const key = keyOf(kind, ids[i] as number);
        yield kind.reason === undefined ? { object: kind.object, key, action: kind.action } : { object: kind.object, key, action: kind.action, reason: kind.reason };
      }
    }
  }

  /** JSON.stringify lists them (the --json writer streams them instead). */
  toJSON(): RecordOutcome[] {
    return [...this];
  }

  /** The code of an outcome's kind; undefined once the codes (or those a reason may take) are taken: then kept as given. */
  private kind(o: RecordOutcome, action: PackedAction, key: PackedKey): number | undefined {
    const name = `${o.object} ${tableName(key)} ${action} ${o.reason === undefined ? '-' : `+${o.reason}`}`;
    let code = this.kindOf.get(name);
    if (code !== undefined || this.kinds.length >= GIVEN) return code;
    if (o.reason !== undefined) {
      if (this.reasonKinds >= REASON_KINDS) return undefined;
      this.reasonKinds++;
    }
    const { head, pair, tail } = key;
    code = this.kinds.push({ object: o.object, head, pair, tail, action, ...(o.reason === undefined ? {} : { reason: o.reason }) }) - 1;
    this.kindOf.set(name, code);
    return code;
  }

  private append(code: number, id: number): void {
    if (this.filled === this.chunk) {
      this.spill.put({ ids: this.ids, codes: this.codes });
      this.filled = 0;
    }
    if (this.filled === this.codes.length) {
      // Half again, not double, up to a chunk.
      const size = Math.min(this.chunk, Math.ceil(this.codes.length * 1.5));
      const codes = new Uint8Array(size);
      codes.set(this.codes);
      const ids = new Float64Array(size);
      ids.set(this.ids);
      [this.codes, this.ids] = [codes, ids];
    }
    this.codes[this.filled] = code;
    this.ids[this.filled++] = id;
    this.count++;
  }
}
