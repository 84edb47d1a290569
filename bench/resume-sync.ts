/**
 * A resumed `sync --all`: platform requests to finish a run stopped part-way, against the rest of
 * its work. A seed-21 site (2 segments, 4 projects, 8 teams, 4 companies, 48 actions, 3,500
 * donations) with ~2 % of its records pointing at a parent deleted from the platform (the
 * records a resumed run still to do may need a parent the mirror lacks). The engine runs
 * in-process as `sync` runs it (runIncremental over a state file, the platform profile kept from
 * one run to the next, as the profile file beside the state does): once whole, then stopped once
 * it has spent `--kill-at` requests, then resumed. Prints the resumed run's requests by
 * collection beside the rest of the work (whole run minus what the stopped run spent), the
 * figure before this change and the naive approach (start over). Figures are printed, never
 * asserted.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/resume-sync.js [--kill-at 42] [--batch-size 500] [--dangling 0.02]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settingsOf } from '../src/config/load.js';
import { SalesforceSink } from '../src/crm/sink.js';
import { keysRead } from '../src/mapping/keysRead.js';
import { SYNC_ORDER } from '../src/model/objects.js';
import type { PlatformProfile } from '../src/model/platformProfile.js';
import { createPlatformSource } from '../src/platform/source.js';
import { SyncEngine } from '../src/sync/mirror/engine.js';
import { planIncremental, runIncremental } from '../src/sync/mirror/incremental.js';
import { StateFile } from '../src/sync/run/state.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { settled } from './live.js';

/** The resumed run's requests at the defaults, before this change (commit 5565273, the profile kept). */
const BEFORE = 21;

function argOf(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const n = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a number`);
  return n;
}
const killAt = argOf('--kill-at', 42);
const batchSize = argOf('--batch-size', 500);
const dangling = argOf('--dangling', 0.02);
const SITE = {
  seed: 21,
  segments: 2,
  projectsPerSegment: 2,
  teamsPerProject: 2,
  companiesPerProject: 1,
  actionsPerParent: 3,
  donations: 3_500,
  newsletterSubscriptions: 20,
  danglingParents: dangling,
};

interface Run {
  requests: number;
  stopped: boolean;
  profile: PlatformProfile;
}

/** One `sync --all` over the state file in `dir`; stopped once it has spent `stopAfter` requests. */
async function run(stack: Stack, dir: string, profile: PlatformProfile | undefined, stopAfter?: number): Promise<Run> {
  const settings = settingsOf(stack.env);
  const source = createPlatformSource(settings.platform, {}, undefined, { keysRead, ...(profile ? { profile } : {}) });
  const sink = await SalesforceSink.connect(settings.salesforce);
  const stop = new AbortController();
  const onProgress = (): void => {
    if (stopAfter !== undefined && source.requests().total >= stopAfter) stop.abort(new Error('stopped'));
  };
  const engine = new SyncEngine(source, sink, { dryRun: false, force: false, strictParents: false, batchSize, stop: stop.signal, onProgress });
  const plan = planIncremental(new StateFile(path.join(dir, 'state.json')), { kind: 'all' }, [...SYNC_ORDER], false);
  let stopped = false;
  try {
    await runIncremental(engine, plan, sink);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    stopped = true;
  }
  return { requests: source.requests().total, stopped, profile: source.profile() };
}

async function main(): Promise<void> {
  const whole = await (async () => {
    const stack = await startStack({ site: SITE });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-resume-'));
    try {
      return await run(stack, dir, undefined);
    } finally {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  })();

  const stack = await startStack({ site: SITE });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-resume-'));
  try {
    const first = await run(stack, dir, undefined, killAt);
    // The stopped run's read-ahead pages were on the wire when it stopped: they reach the server
    // after it returns and are its requests (the platform counts them), not the resumed run's.
    const spent = await settled(stack);
    const state = new StateFile(path.join(dir, 'state.json')).read();
    stack.platform.resetCounts();
    const resumed = await run(stack, dir, first.profile);
    const byCollection = new Map<string, number>();
    for (const e of stack.platform.requests.log) byCollection.set(`${e.kind} ${e.collection ?? '?'}`, (byCollection.get(`${e.kind} ${e.collection ?? '?'}`) ?? 0) + 1);
    const rest = Math.max(0, whole.requests - spent);
    console.log(`resumed sync --all: seed-21 site, ${stack.platform.site.donation.length} donations, ${Math.round(dangling * 100)} % of records on a deleted parent, --batch-size ${batchSize}`);
    console.log(`  whole run:                  ${whole.requests} platform requests`);
    console.log(
      `  stopped run:                ${spent} requests${first.stopped ? '' : ' (finished before the stop)'}; done: ${state.run?.completed.join(', ') || 'nothing'}; pages done: ${JSON.stringify(state.run?.pagesDone ?? {})}`,
    );
    console.log(`  rest of the work:           ${rest} (whole run minus the stopped run; it had read pages it had not written yet)`);
    console.log(`  resumed run (ours):         ${resumed.requests} requests`);
    console.log(`    by collection:            ${[...byCollection].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    console.log(`  before (5565273):           ${BEFORE} requests (at the defaults)`);
    console.log(`  naive (start over):         ${whole.requests} requests`);
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
