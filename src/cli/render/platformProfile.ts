/** `doctor`'s account of the platform's lists: one row per collection, then what it costs in requests. */
import { shownIn, type CollectionProfile, type PlatformProfile } from '../../model/platformProfile.js';
import { fit, formatCount, wrap } from './text.js';

const n = formatCount;
const requests = (v: number): string => `${n(v)} request${v === 1 ? '' : 's'}`;
const filter = (f: CollectionProfile['updatedAfter']): string => (f === 'honoured' ? 'ok' : f === 'ignored' ? 'IGNORED' : '?');
const list = (c: CollectionProfile): string => (c.list === 'partial' ? 'PARTIAL' : c.list === 'complete' ? 'complete' : '?');

/** What each collection costs beyond the plan svc-sync assumes, one line each. */
function meaningOf(collection: string, c: CollectionProfile): string[] {
  const size = c.pageSize ?? 100;
  const records = c.records ?? 0;
  const scan = Math.ceil(records / size);
  const out: string[] = [];
  if (c.updatedAfter === 'ignored') {
    out.push(`${collection}: each incremental run reads all ${n(records)}: ~${requests(scan)}${c.createdAfter === 'honoured' ? ' (created_after works)' : ''}`);
  }
  if (c.list === 'partial') out.push(`${collection}: by id (lists lack ${(c.missing ?? []).join(', ')}): ~${requests(records)} a full sync, not ${n(scan)}`);
  if (c.list === undefined && c.unseen !== undefined) {
    // The residual risk of records taken from lists not yet proven complete.
    const read = c.sampled?.length ?? 0;
    const keys = c.unseen.map((k) => k.split('|').join(' or ')).join(', ');
    out.push(`${collection}: not settled: no ${keys} in its lists nor in ${n(read)} read by id; a key on 1 record in 10 would have shown ${shownIn(read)} times in 100 (more each run)`);
  }
  if (size < 100 && scan > Math.ceil(records / 100)) out.push(`${collection}: ${size} a page: a full scan ~${requests(scan)}, not ${n(Math.ceil(records / 100))}`);
  return out;
}

export function profileLines(profile: PlatformProfile, columns: number): string[] {
  const entries = Object.entries(profile.collections);
  const width = Math.max(14, ...entries.map(([c]) => c.length));
  const row = (a: string, b: string, c: string, d: string, e: string): string => fit(`  ${a.padEnd(width)}  ${b.padEnd(13)}  ${c.padEnd(13)}  ${d.padStart(4)}  ${e}`, columns);
  const out = ['platform lists (what svc-sync plans with; ? = not seen yet):', row('collection', 'updated_after', 'created_after', 'page', 'list pages')];
  for (const [collection, c] of entries) out.push(row(collection, filter(c.updatedAfter), filter(c.createdAfter), String(c.pageSize ?? 100), list(c)));
  const meaning = entries.flatMap(([collection, c]) => meaningOf(collection, c));
  if (profile.rateLimitHeaders === false) meaning.push('no rate-limit headers: paced at the documented 100 requests a minute, 500 an hour');
  // The way out when whole-list incremental runs cost too much: new records by created_after.
  if (entries.some(([, c]) => c.updatedAfter === 'ignored' && c.createdAfter === 'honoured')) {
    meaning.push('SVC_INCREMENTAL=new-records: incremental runs read new records only there');
  }
  // Read whole: a long meaning wraps (the risk left on an unsettled list is a sentence).
  if (meaning.length > 0)
    out.push(
      'what this means:',
      ...meaning.flatMap((m) =>
        wrap(m, columns - 2, '  ')
          .split('\n')
          .map((l) => `  ${l}`),
      ),
    );
  return out;
}
