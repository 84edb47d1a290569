/**
 * The gift projection's cost (issue 42, PROJECTION.md §6.2): the built CLI's first `sync --all`
 * of the medium site of bench/sites.ts into a Nonprofit Cloud org, once with SVC_PROJECTION off
 * (the mirror alone) and once with npc, each into its own empty emulator, then a second run of
 * each. The projection's Salesforce calls are the difference between the two; they are printed
 * per 200 gifts written, beside the naive figure (one call per record the projection writes),
 * with the time the projection adds and the platform requests it adds (the fundraisers' user
 * records may be read; nothing else). Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/projection.js [size=5000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../fixtures/cli.js';
import type { EmulatorCalls } from '../fixtures/salesforce/emulator.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { siteFor } from './sites.js';

interface RunFigures {
  code: number;
  wallMs: number;
  salesforce: EmulatorCalls;
  platform: number;
}

const NPC_OBJECTS = ['Account', 'Campaign', 'GiftTransaction', 'GiftSoftCredit', 'GiftRefund'] as const;

async function syncAll(stack: Stack, cwd: string, projection: 'off' | 'npc'): Promise<RunFigures> {
  stack.salesforce.resetCalls();
  stack.platform.resetCounts();
  const started = process.hrtime.bigint();
  const res = await runCli(['sync', '--all'], { cwd, env: { HOME: cwd, ...stack.env, SVC_SITE_ID: '6', SVC_PROJECTION: projection } });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.code > 1) throw new Error(`sync --all (SVC_PROJECTION=${projection}) exited ${res.code}: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { code: res.code, wallMs, salesforce: stack.salesforce.calls(), platform: stack.platform.requests.total };
}

const diff = (on: EmulatorCalls, off: EmulatorCalls): Record<string, number> =>
  Object.fromEntries((['total', 'query', 'collections', 'bulk', 'describe', 'auth', 'other'] as const).map((k) => [k, on[k] - off[k]]));

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

async function main(size: number): Promise<void> {
  const site = siteFor(size, 0);
  const [off, on] = await Promise.all([startStack({ site, salesforce: { npc: true } }), startStack({ site, salesforce: { npc: true } })]);
  const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'svc-sync-projection-bench-')));
  const [offDir, onDir] = dirs as [string, string];
  try {
    const records = Object.values(on.platform.site).reduce((n, list) => n + list.length, 0);
    console.log(`projection: the medium site of bench/sites.ts (${records} platform records, ${site.donations ?? 0} donations), the built CLI; ${os.cpus().length} cores`);
    const first = { off: await syncAll(off, offDir, 'off'), on: await syncAll(on, onDir, 'npc') };
    const second = { off: await syncAll(off, offDir, 'off'), on: await syncAll(on, onDir, 'npc') };
    const npc = on.salesforce.npc;
    if (!npc) throw new Error('no NPC org');
    const written = Object.fromEntries(NPC_OBJECTS.map((o) => [o, npc.records(o).length])) as Record<(typeof NPC_OBJECTS)[number], number>;
    const gifts = written.GiftTransaction;
    const recordsWritten = NPC_OBJECTS.reduce((n, o) => n + written[o], 0);
    const added = diff(first.on.salesforce, first.off.salesforce);
    const per200 = (n: number): string => (gifts === 0 ? 'n/a' : fmt((n / gifts) * 200));
    console.log(`exit codes: off ${first.off.code}/${second.off.code}, npc ${first.on.code}/${second.on.code} (first/second run; 1 = some records failed)`);
    console.log(`written by the projection: ${NPC_OBJECTS.map((o) => `${o} ${written[o]}`).join(', ')} (${recordsWritten} records)`);
    console.table({
      'first run, mirror alone': { salesforceCalls: first.off.salesforce.total, platformRequests: first.off.platform, wallSeconds: fmt(first.off.wallMs / 1000, 2) },
      'first run, with npc': { salesforceCalls: first.on.salesforce.total, platformRequests: first.on.platform, wallSeconds: fmt(first.on.wallMs / 1000, 2) },
      'second run, mirror alone': { salesforceCalls: second.off.salesforce.total, platformRequests: second.off.platform, wallSeconds: fmt(second.off.wallMs / 1000, 2) },
      'second run, with npc': { salesforceCalls: second.on.salesforce.total, platformRequests: second.on.platform, wallSeconds: fmt(second.on.wallMs / 1000, 2) },
    });
    console.log(
      `projection's Salesforce calls, first run: ${added.total} (${Object.entries(added)
        .filter(([k, v]) => k !== 'total' && v !== 0)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
    );
    console.log(`  per 200 gifts: ${per200(added.total ?? 0)} (target <= 10; naive, one call per record written: ${per200(recordsWritten)})`);
    console.log(
      `  second run: ${second.on.salesforce.total - second.off.salesforce.total} calls beyond the mirror's, collections (writes) ${second.on.salesforce.collections - second.off.salesforce.collections}`,
    );
    console.log(`  platform requests added: first run ${first.on.platform - first.off.platform}, second run ${second.on.platform - second.off.platform}`);
    console.log(
      `time the projection adds to the first sync: ${fmt((first.on.wallMs - first.off.wallMs) / 1000, 2)} s (${fmt(first.off.wallMs / 1000, 2)} s -> ${fmt(first.on.wallMs / 1000, 2)} s; loopback, noisy)`,
    );
  } finally {
    await Promise.all([off.close(), on.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main(Number(process.argv[2] ?? 5000)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
