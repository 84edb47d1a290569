/**
 * The platform as it may really be, on a 5,000-donation site: in each mode (list filters honoured
 * as assumed, `updated_after` ignored, pages of 25, partial list pages, no rate-limit headers, and
 * all four at once) a `sync --all`, then 5 % of the donations changed and 1 % added, then an
 * incremental `sync`, each through the built CLI. Per run it prints the platform requests made,
 * the cheapest plan that mode allows for an exact mirror, a naive client's cost (every record by
 * id, after one list page per 100 ids), and whether the mirror is exact (an audit of the same site
 * served the way svc-sync assumes finds no drift).
 *
 *   npm run build && node dist/bench/platform-modes.js [--before DIR]
 *
 * --before DIR: also runs the CLI built in DIR (a checkout of an earlier commit, after `npm run
 * build` there) through the same modes and prints its figures beside ours ("before").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakePlatformBehaviour } from '../fixtures/platform/server.js';
import type { SiteOptions } from '../fixtures/platform/site.js';
import { runCli, type CliResult } from '../fixtures/cli.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { cheapestPlan, COLLECTIONS, learningRequests } from '../fixtures/platform/cheapestPlan.js';
import { defaultSite } from './sites.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(HERE, '..', '..', 'bin', 'svc-sync.js');
const SITE: SiteOptions = defaultSite(5_000);
interface Mode {
  name: string;
  behaviour: FakePlatformBehaviour;
  env?: Record<string, string>;
}

const MODES: Mode[] = [
  { name: 'as assumed', behaviour: {} },
  { name: 'updated_after ignored', behaviour: { ignoreFilters: ['updated_after'] } },
  { name: 'updated_after ignored, SVC_INCREMENTAL=new-records', behaviour: { ignoreFilters: ['updated_after'] }, env: { SVC_INCREMENTAL: 'new-records' } },
  { name: 'page size 25', behaviour: { maxPerPage: 25 } },
  { name: 'partial list pages (donations, projects)', behaviour: { listOmit: { donations: ['consents', 'donation_amount', 'payment_status'], projects: ['segment_id'] } } },
  { name: 'no rate-limit headers', behaviour: { noRateLimitHeaders: true } },
  // Partial donations without headers would be 5,000 by-id requests at the documented 500 an hour:
  // ten hours. All four at once keeps partial pages to the projects.
  { name: 'all four (partial: projects)', behaviour: { ignoreFilters: ['updated_after'], maxPerPage: 25, listOmit: { projects: ['segment_id'] }, noRateLimitHeaders: true } },
];

/** The CLI in a working directory of its own, with the stack's settings (and the mode's). */
const cli = (bin: string, stack: Stack, cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { bin, cwd, env: { HOME: cwd, ...stack.env, ...env } });

/** A naive client: one list page per 100 ids of the records it reads, then each record by id. */
function naive(stack: Stack, since?: string): number {
  let requests = 0;
  for (const type of Object.values(COLLECTIONS)) {
    const all = stack.platform.site[type] as Array<{ updated_at: string }>;
    const read = since === undefined ? all : all.filter((r) => r.updated_at > since);
    requests += Math.max(1, Math.ceil(all.length / 100)) + read.length;
  }
  return requests;
}

interface Figures {
  requests: number;
  exact: boolean;
  code: number;
}

/** Full run, 5 % changed and 1 % added, incremental run; the mirror audited after each. */
async function runMode(bin: string, mode: Mode): Promise<{ full: Figures; incremental: Figures; cheapest: [number, number]; learning: number; naive: [number, number] }> {
  const stack = await startStack({ site: SITE, behaviour: { ...mode.behaviour } });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-modes-'));
  try {
    const exact = async (): Promise<boolean> => {
      // Audited against the same site served as svc-sync assumes (the audit's own requests are not counted).
      const saved = { ...stack.platform.behaviour };
      for (const k of Object.keys(stack.platform.behaviour) as Array<keyof FakePlatformBehaviour>) delete stack.platform.behaviour[k];
      const audit = await cli(BIN, stack, mkdtempSync(path.join(os.tmpdir(), 'svc-sync-audit-')), ['audit', '--json', '--quiet']);
      Object.assign(stack.platform.behaviour, saved);
      return audit.code === 0;
    };
    stack.platform.resetCounts();
    const full = await cli(bin, stack, cwd, ['sync', '--all', '--json', '--quiet'], mode.env);
    const fullFigures: Figures = { requests: stack.platform.requests.total, code: full.code, exact: await exact() };
    const cheapestFull = cheapestPlan(stack.platform.site, mode.behaviour);
    const naiveFull = naive(stack);
    const learnedCost = learningRequests(stack.platform.site, mode.behaviour);
    // A second incremental run first, so the one measured plans with what the first learned.
    await new Promise((r) => setTimeout(r, 1_100));
    await cli(bin, stack, cwd, ['sync', '--json', '--quiet'], mode.env);
    await new Promise((r) => setTimeout(r, 1_100));
    const since = new Date(Date.now() - 500).toISOString();
    const donations = stack.platform.site.donation;
    const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    for (let i = 0; i < donations.length; i += 20) stack.platform.update('donation', donations[i]!.id, { message: `changed ${i}` });
    const added = Math.round(donations.length / 100);
    const template = donations[1]!;
    for (let i = 0; i < added; i++) stack.platform.add('donation', { ...template, id: 900_000 + i, created_at: now(), updated_at: now() });
    stack.platform.resetCounts();
    const incremental = await cli(bin, stack, cwd, ['sync', '--json', '--quiet'], mode.env);
    const newOnly = mode.env?.SVC_INCREMENTAL === 'new-records';
    const incrementalFigures: Figures = { requests: stack.platform.requests.total, code: incremental.code, exact: await exact() };
    return {
      full: fullFigures,
      incremental: incrementalFigures,
      cheapest: [cheapestFull, cheapestPlan(stack.platform.site, mode.behaviour, since, newOnly)],
      learning: learnedCost,
      naive: [naiveFull, naive(stack, since)],
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    await stack.close();
  }
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--before');
  const beforeDir = at > 0 ? process.argv[at + 1] : undefined;
  const before = beforeDir ? path.resolve(beforeDir, 'bin', 'svc-sync.js') : undefined;
  console.log(`platform modes: ${SITE.donations} donations (5 % changed and 1 % added between the runs); every run through the built CLI; ${os.cpus().length} cores`);
  const rows: string[][] = [];
  for (const mode of MODES) {
    process.stderr.write(`${mode.name}...\n`);
    const ours = await runMode(BIN, mode);
    const old = before ? await runMode(before, mode) : undefined;
    const pct = (n: number, of: number): string => `${(((n - of) / of) * 100).toFixed(0)} %`;
    const newOnly = mode.env?.SVC_INCREMENTAL === 'new-records';
    const exact = (f: Figures, incremental = false): string => (f.code > 1 ? `exit ${f.code}` : f.exact ? 'yes' : incremental && newOnly ? 'no: changes left to serve/audit (by design)' : 'NO');
    for (const [i, run] of (['sync --all', 'sync (incremental)'] as const).entries()) {
      const f = i === 0 ? ours.full : ours.incremental;
      const o = old ? (i === 0 ? old.full : old.incremental) : undefined;
      const cheapest = ours.cheapest[i]!;
      rows.push([
        i === 0 ? mode.name : '',
        run,
        String(f.requests),
        String(cheapest),
        pct(f.requests, cheapest),
        i === 0 ? String(ours.learning) : '0',
        exact(f, i === 1),
        o ? String(o.requests) : '-',
        o ? exact(o) : '-',
        String(ours.naive[i]),
      ]);
    }
  }
  console.log(`\n${table(['mode', 'run', 'requests', 'cheapest', 'over', 'of it learning', 'exact', 'before', 'before exact', 'naive by id'], rows)}`);
  console.log(
    '\ncheapest: list pages at the page size served (changed records only where updated_after is honoured, new ones with new-records), the owners\' users, each record by id where lists are partial. "of it learning": the by-id requests a first run spends to tell partial lists from sparse values (at most one a collection).',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
