/** Why a batch's events failed, for its log line: reasons grouped so a refused platform reads once, not per record. */
import type { EventOutcome } from '../queue/store.js';

/** "; 2 failed: network error (ECONNREFUSED) x2": a batch's failures grouped by reason, most frequent first, in events. */
export function failureReasons(outcomes: readonly EventOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    if (o.status !== 'failed') continue;
    // The request line ("GET /v1/donations/1: ") differs per record; the reason after it is what groups.
    const reason = (o.error || 'no reason given')
      .replace(/\s+/g, ' ')
      .replace(/^[A-Z]+ \/\S*: /, '')
      .trim();
    counts.set(reason, (counts.get(reason) ?? 0) + o.eventIds.length);
  }
  if (counts.size === 0) return '';
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const groups = [...counts].sort((a, b) => b[1] - a[1]).map(([reason, k]) => `${reason} x${k}`);
  return `; ${total} failed: ${groups.join(', ')}`;
}
