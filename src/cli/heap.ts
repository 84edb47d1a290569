/**
 * How far V8 lets the heap grow past what survived its last full collection. With a heap limit of
 * 2 GiB or more (any machine with 8 GiB of memory) V8 allows up to 4 times the survivors, so a run
 * whose working set is one batch of records (~50 MB at 5,000) sat at 300 to 600 MB of RSS, most of
 * it garbage waiting for a collection that the growth rule kept putting off. Bounding the growth
 * keeps peak RSS near the live size; the price is more frequent full collections, which
 * bench/backfill shows costs no measurable wall time (a collection of a heap this size takes
 * milliseconds).
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

/** Node flags by which the user chose the heap's growth or limit: their choice is kept. */
const CHOSEN = /^--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)(=|$)/;

/**
 * Sets V8's heap growing percent (read at every full collection, so it applies from the next one
 * on) unless node was started with a heap growth or size flag. Returns whether it was set.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env.NODE_OPTIONS ?? ''): boolean {
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some((a) => CHOSEN.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
