/**
 * The absence proofs (model/absenceProofs.ts) kept in the state folder, shared by `sync`, its
 * resume and `serve`: one small JSON file of id ranges per type, each with the time it held.
 * Ranges keep it compact (a complete scan's gaps are the deleted records, a few ranges). Every
 * change is applied to the file as it is now (read again when another process wrote it), so a
 * drop by `serve` is not undone by a `sync` running beside it. A file that is damaged, foreign or
 * for another base URL proves nothing: the records are read again (never a wrong record).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AbsenceProofs } from '../../model/absenceProofs.js';
import { RESOURCES, type ResourceType } from '../../model/apiRecords.js';
import { withoutCredentials } from '../../model/platformProfile.js';
import { writePrivateFile } from '../../model/privateFile.js';

const ABSENCE_FILE = 'absent.json';
/** Past this many ranges a type's proofs are not kept (the file would grow with the site; reading costs less). */
const MAX_RANGES = 100_000;
/** How often a lookup looks whether another process changed the file. */
const RECHECK_MS = 1_000;

/** Ids from..to (inclusive) proven absent at `at` (ISO 8601). */
type Range = [from: number, to: number, at: string];

interface Kept {
  version: 1;
  baseUrl: string;
  types: Partial<Record<ResourceType, Range[]>>;
  /** Per type, the highest id its last complete scan listed. */
  tops: Partial<Record<ResourceType, number>>;
}

/** The proofs file beside a state file (`.svc-sync/state.json` -> `.svc-sync/absent.json`). */
export const absenceFileBeside = (stateFile: string): string => path.join(path.dirname(stateFile), ABSENCE_FILE);

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isRange = (v: unknown): v is Range => Array.isArray(v) && v.length === 3 && isId(v[0]) && isId(v[1]) && v[0] <= v[1] && typeof v[2] === 'string' && !Number.isNaN(Date.parse(v[2]));

type Proofs = Pick<Kept, 'types' | 'tops'>;
const NONE = (): Proofs => ({ types: {}, tops: {} });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The file's proofs for this base URL, or none (missing, damaged, another site's: read again). */
function parse(text: string, baseUrl: string): Proofs {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return NONE();
  }
  if (!isObject(data) || data.version !== 1 || data.baseUrl !== baseUrl || !isObject(data.types) || !isObject(data.tops)) return NONE();
  const out = NONE();
  for (const [type, ranges] of Object.entries(data.types)) {
    if (!Object.hasOwn(RESOURCES, type) || !Array.isArray(ranges) || !ranges.every(isRange)) return NONE();
    // Sorted and disjoint, as written; a file that is not proves nothing.
    if (ranges.some((r, i) => i > 0 && (ranges[i - 1] as Range)[1] >= r[0])) return NONE();
    out.types[type as ResourceType] = ranges;
  }
  for (const [type, top] of Object.entries(data.tops)) {
    if (!Object.hasOwn(RESOURCES, type) || !isId(top)) return NONE();
    out.tops[type as ResourceType] = top;
  }
  return out;
}

/** The index of the range holding `id`, or -1. */
function find(ranges: readonly Range[], id: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid] as Range;
    if (id < r[0]) hi = mid - 1;
    else if (id > r[1]) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** The gaps of ids in ascending order; undefined at the first id out of order. */
function ascendingGaps(ids: Iterable<number>, at: string): { gaps: Range[]; top: number } | undefined {
  const gaps: Range[] = [];
  let next = 1;
  for (const id of ids) {
    if (id < next - 1) return undefined;
    if (id > next) gaps.push([next, id - 1, at]);
    next = Math.max(next, id + 1);
  }
  gaps.push([next, Number.MAX_SAFE_INTEGER, at]);
  return { gaps, top: next - 1 };
}

/**
 * The ids the scan did not list, as ranges: from 1 to the highest listed, and every id above it
 * (a range to the largest safe id); and that highest id. Ids in ascending order (a list scan's
 * IdTable) are walked as they come; copying a million of them into a sorted array first made a
 * 38 MiB spike at the end of a million-donation scan. Any other order is sorted first.
 */
function gapsOf(listed: Iterable<number>, at: string): { gaps: Range[]; top: number } {
  // A one-shot iterator (a generator) walked once could not be walked again: it is sorted first.
  const walkedTwice = (listed[Symbol.iterator]() as unknown) !== listed;
  return (walkedTwice ? ascendingGaps(listed, at) : undefined) ?? (ascendingGaps(Float64Array.from(listed).sort(), at) as { gaps: Range[]; top: number });
}

/** The ranges less one id (the range holding it split in two). */
function without(ranges: readonly Range[], id: number): Range[] {
  const i = find(ranges, id);
  if (i < 0) return [...ranges];
  const [from, to, at] = ranges[i] as Range;
  const parts: Range[] = [];
  if (from < id) parts.push([from, id - 1, at]);
  if (id < to) parts.push([id + 1, to, at]);
  return [...ranges.slice(0, i), ...parts, ...ranges.slice(i + 1)];
}

export class AbsenceFile implements AbsenceProofs {
  private kept = NONE();
  /** The file's mtime and size when last read or written (another process's write changes them). */
  private seen = '';
  private checkedAt = 0;

  /** The API URL the proofs are of, without credentials (a user:password in it is never written). */
  private readonly baseUrl: string;

  constructor(
    readonly file: string,
    baseUrl: string,
    /** A dry run reads the proofs but keeps nothing. */
    private readonly save = true,
  ) {
    this.baseUrl = withoutCredentials(baseUrl);
    this.reload();
  }

  has(type: ResourceType, id: number): string | undefined {
    if (Date.now() - this.checkedAt >= RECHECK_MS) this.reload();
    const ranges = this.kept.types[type];
    const at = ranges === undefined ? -1 : find(ranges, id);
    return at < 0 ? undefined : (ranges as Range[])[at]?.[2];
  }

  top(type: ResourceType): number | undefined {
    return this.kept.tops[type];
  }

  add(type: ResourceType, id: number, at: string): void {
    const held = this.has(type, id);
    // A later proof holds for more children (those made before it): it replaces an earlier one.
    if (held !== undefined && Date.parse(held) >= Date.parse(at)) return;
    this.change(type, (ranges) => {
      const out = without(ranges, id);
      const after = out.findIndex((r) => r[0] > id);
      out.splice(after < 0 ? out.length : after, 0, [id, id, at]);
      return out;
    });
  }

  drop(type: ResourceType, id: number): void {
    this.dropAll(type, [id]);
  }

  dropAll(type: ResourceType, ids: readonly number[]): void {
    const held = ids.filter((id) => this.has(type, id) !== undefined);
    if (held.length > 0) this.change(type, (ranges) => held.reduce<Range[]>((out, id) => without(out, id), [...ranges]));
  }

  proveScan(type: ResourceType, listed: Iterable<number>, at: string): void {
    const { gaps, top } = gapsOf(listed, at);
    this.change(type, () => gaps, top);
  }

  /** `force`: read even when the file looks unchanged (a write within the same millisecond and size). */
  private reload(force = false): void {
    this.checkedAt = Date.now();
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.file);
    } catch {
      this.kept = NONE();
      this.seen = '';
      return;
    }
    const seen = `${stat.mtimeMs}:${stat.size}`;
    if (seen === this.seen && !force) return;
    this.seen = seen;
    try {
      this.kept = parse(fs.readFileSync(this.file, 'utf8'), this.baseUrl);
    } catch {
      this.kept = NONE();
    }
  }

  /** Applies one change (and a new top, from a complete scan) to the file as it is now, and writes it. */
  private change(type: ResourceType, apply: (ranges: readonly Range[]) => readonly Range[], top?: number): void {
    this.reload(true);
    const next = apply(this.kept.types[type] ?? []);
    if (next.length > MAX_RANGES || next.length === 0) delete this.kept.types[type];
    else this.kept.types[type] = [...next];
    if (top !== undefined && top > 0 && next.length <= MAX_RANGES) this.kept.tops[type] = top;
    else if (top !== undefined) delete this.kept.tops[type];
    if (!this.save) return;
    try {
      writePrivateFile(this.file, `${JSON.stringify({ version: 1, baseUrl: this.baseUrl, ...this.kept } satisfies Kept)}\n`);
      const stat = fs.statSync(this.file);
      this.seen = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      // Not worth failing a run for: what is not kept is read again.
    }
  }
}
