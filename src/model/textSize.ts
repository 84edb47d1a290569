/** The characters of a value's strings, nested ones included: what a batch or a page read ahead holds of it. */
export function textSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  let n = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) n += textSize(v);
  return n;
}
