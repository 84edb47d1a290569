/**
 * Requests per record for the platform client's plans on a generated 5,000-donation site,
 * against the fake API (rate limit off so it runs in seconds). Figures, not assertions.
 *
 *   npm run build && node dist/bench/platform-requests.js
 */
import { createPlatformSource } from '../src/platform/source.js';
import type { PlatformSettings } from '../src/config/settings.js';
import { startFakePlatform } from '../fixtures/platform/server.js';
import { generateSite } from '../fixtures/platform/site.js';
import { defaultSite } from './sites.js';

const API_KEY = 'bench-key';

interface Row {
  plan: string;
  records: number;
  requests: number;
  list: number;
  byId: number;
  ms: number;
}

async function main(): Promise<void> {
  const site = generateSite(defaultSite(5_000));
  const fake = await startFakePlatform({ site, apiKey: API_KEY });
  const settings = (listIdsOnly: boolean): PlatformSettings => ({ apiUrl: fake.url, apiKey: API_KEY, concurrency: 4, timeoutMs: 10_000, listIdsOnly });
  const rows: Row[] = [];
  const allIds = site.donation.map((d) => d.id);

  const run = async (plan: string, listIdsOnly: boolean, work: (source: ReturnType<typeof createPlatformSource>) => Promise<number>): Promise<void> => {
    fake.resetCounts();
    const source = createPlatformSource(settings(listIdsOnly));
    const started = performance.now();
    const records = await work(source);
    const counts = source.requests();
    rows.push({ plan, records, requests: counts.total, list: counts.list, byId: counts.byId, ms: Math.round(performance.now() - started) });
  };

  // Naive baseline: one request per donation.
  await run('by id, every donation (listIdsOnly)', true, async (s) => (await s.fetch('donation', allIds)).records.size);
  await run('planner, all 5,000 donations', false, async (s) => (await s.fetch('donation', allIds)).records.size);
  await run('planner, 3,000 of 5,000', false, async (s) => (await s.fetch('donation', allIds.filter((_, i) => i % 5 !== 0).slice(0, 3_000))).records.size);
  await run('planner, 40 of 5,000', false, async (s) => (await s.fetch('donation', allIds.slice(-40))).records.size);
  await run('scan, all donations', false, async (s) => {
    let n = 0;
    for await (const page of s.scan('donation', {})) n += page.records.length;
    return n;
  });
  await run('donations + parents + owners', false, async (s) => {
    const donations = await s.fetch('donation', allIds);
    const records = [...donations.records.values()];
    const pick = (key: 'action_id' | 'team_id' | 'company_id' | 'project_id' | 'segment_id'): number[] => records.map((d) => d[key]).filter((id): id is number => typeof id === 'number');
    let n = donations.records.size;
    const actions = await s.fetch('action', pick('action_id'));
    n += actions.records.size;
    n += (await s.fetch('team', pick('team_id'))).records.size;
    n += (await s.fetch('company', pick('company_id'))).records.size;
    n += (await s.fetch('project', pick('project_id'))).records.size;
    n += (await s.fetch('segment', pick('segment_id'))).records.size;
    const owners = [...actions.records.values()].map((a) => a.owner?.id).filter((id): id is number => typeof id === 'number');
    n += (await s.fetch('user', owners)).records.size;
    return n;
  });
  await fake.close();

  const header = ['plan', 'records', 'requests', 'list', 'by id', 'req/record', 'ms'];
  const lines = rows.map((r) => [r.plan, String(r.records), String(r.requests), String(r.list), String(r.byId), (r.requests / Math.max(1, r.records)).toFixed(4), String(r.ms)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`platform requests per record: ${site.donation.length} donations, ${site.action.length} actions, ${site.user.length} users, fake API on 127.0.0.1`);
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
