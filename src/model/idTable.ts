/**
 * Whole ids (platform record ids) with a small number each (0 = absent), kept in typed arrays
 * rather than as entries of a Map or Set on the JavaScript heap: a run's per-record facts (ids a
 * list scan returned, what became of each record) grow with the site, and a million of them in a
 * Map hold 30-60 MB of heap that the garbage collector walks again and again; here they are 9
 * bytes each outside it (plus up to a quarter again of room to grow). Recent ids wait in a small Map
 * and are merged, sorted, into the arrays when it fills: from the back, in place, so ids that
 * come in ascending order (a list scan's) are written once and never moved.
 */

/**
 * Ids taken in the small Map before a merge: bounds the Map, and the merges' cost. A Map entry
 * costs 60-110 bytes of heap against the arrays' 9, so 65,536 of them held 4-7 MiB per table at
 * the peak (bench/memory-per-record at 65,000 records); 16,384 hold a quarter of that.
 */
const RECENT = 16_384;

export class IdTable {
  private ids = new Float64Array(0);
  private values = new Uint8Array(0);
  /** Ids in the arrays (ascending); past it, room to grow. */
  private length = 0;
  private readonly recent = new Map<number, number>();
  private counted = 0;

  /** Ids with a value other than 0. */
  get size(): number {
    return this.counted;
  }

  get(id: number): number {
    const recent = this.recent.get(id);
    if (recent !== undefined) return recent;
    const at = this.find(id);
    return at < 0 ? 0 : (this.values[at] as number);
  }

  has(id: number): boolean {
    return this.get(id) !== 0;
  }

  /** Sets an id's value (1-255; 0 removes it). */
  set(id: number, value = 1): void {
    const before = this.get(id);
    if (before === value) return;
    this.counted += (value !== 0 ? 1 : 0) - (before !== 0 ? 1 : 0);
    const at = this.recent.has(id) ? -1 : this.find(id);
    if (at >= 0) {
      // A removed id keeps its place with 0 (dropped at the next growth).
      this.values[at] = value;
      return;
    }
    this.recent.set(id, value);
    if (this.recent.size >= RECENT) this.merge();
  }

  add(id: number): void {
    this.set(id, 1);
  }

  /** The ids with a value other than 0, in ascending order. */
  *[Symbol.iterator](): IterableIterator<number> {
    this.merge();
    for (let i = 0; i < this.length; i++) if (this.values[i] !== 0) yield this.ids[i] as number;
  }

  /** Binary search of the merged arrays: the index of `id`, or -1. */
  private find(id: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid] as number;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The recent ids (none of them in the arrays) into the sorted arrays, those with 0 left out. */
  private merge(): void {
    let f = 0;
    const fresh = new Float64Array(this.recent.size);
    for (const [id, value] of this.recent) if (value !== 0) fresh[f++] = id;
    const sorted = fresh.subarray(0, f).sort();
    if (this.length + f > this.ids.length) this.grow(f);
    const ids = this.ids;
    const values = this.values;
    let i = this.length - 1;
    let k = this.length + f - 1;
    for (let j = f - 1; j >= 0; k--) {
      const next = sorted[j] as number;
      if (i >= 0 && (ids[i] as number) > next) {
        ids[k] = ids[i] as number;
        values[k] = values[i] as number;
        i--;
      } else {
        ids[k] = next;
        values[k] = this.recent.get(next) as number;
        j--;
      }
    }
    this.length += f;
    this.recent.clear();
  }

  /** New arrays with room for `more` ids and a quarter again (each id copied about 4 times in all), the removed ids dropped. */
  private grow(more: number): void {
    let n = 0;
    for (let i = 0; i < this.length; i++) if (this.values[i] !== 0) n++;
    const capacity = Math.max(1024, Math.ceil((n + more) * 1.25));
    const ids = new Float64Array(capacity);
    const values = new Uint8Array(capacity);
    n = 0;
    for (let i = 0; i < this.length; i++) {
      if (this.values[i] === 0) continue;
      ids[n] = this.ids[i] as number;
      values[n++] = this.values[i] as number;
    }
    this.ids = ids;
    this.values = values;
    this.length = n;
  }
}
