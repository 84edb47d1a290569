/**
 * Whole ids (platform record ids) with a small number each (0 = absent), kept in typed arrays
 * rather than as entries of a Map or Set on the JavaScript heap: a run's per-record facts (ids a
 * list scan returned, what became of each record) grow with the site, and a million of them in a
 * Map hold 30-60 MB of heap that the garbage collector walks again and again; here they are 9
 * bytes each outside it. Recent ids wait in a small Map and are merged, sorted, into the arrays
 * when it fills (amortised: each id is copied a few times over the run).
 */

/** Ids taken in the small Map before a merge: bounds the Map, and the merges' cost. */
const RECENT = 65_536;

export class IdTable {
  private ids = new Float64Array(0);
  private values = new Uint8Array(0);
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
    for (let i = 0; i < this.ids.length; i++) if (this.values[i] !== 0) yield this.ids[i] as number;
  }

  /** Binary search of the merged arrays: the index of `id`, or -1. */
  private find(id: number): number {
    let lo = 0;
    let hi = this.ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid] as number;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The recent ids into the sorted arrays (ids with 0 dropped). */
  private merge(): void {
    const fresh = [...this.recent].filter(([, v]) => v !== 0).sort((a, b) => a[0] - b[0]);
    this.recent.clear();
    const ids = new Float64Array(this.ids.length + fresh.length);
    const values = new Uint8Array(ids.length);
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < this.ids.length || j < fresh.length) {
      const old = i < this.ids.length ? (this.ids[i] as number) : Infinity;
      const next = j < fresh.length ? (fresh[j] as [number, number])[0] : Infinity;
      if (old <= next) {
        if (this.values[i] !== 0) [ids[n], values[n++]] = [old, this.values[i] as number];
        i++;
      } else {
        [ids[n], values[n++]] = [next, (fresh[j] as [number, number])[1]];
        j++;
      }
    }
    this.ids = ids.slice(0, n);
    this.values = values.slice(0, n);
  }
}
