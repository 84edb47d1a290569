/**
 * A resumed `sync --all` lists no collection the stopped attempt finished: the records still to do
 * take their parents from Salesforce, and a parent the stopped attempt found absent from the
 * platform (kept in the state file) is not asked for again. The mirror ends as a whole run leaves it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { keysRead } from '../../src/mapping/keysRead.js';
import { SYNC_ORDER } from '../../src/model/objects.js';
import type { PlatformProfile } from '../../src/model/platformProfile.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { planIncremental, runIncremental } from '../../src/sync/mirror/incremental.js';
import { StateFile, type SyncState } from '../../src/sync/run/state.js';
import { startStack, type Stack } from '../../fixtures/stack.js';

const SITE = { seed: 21, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 3, donations: 900, newsletterSubscriptions: 10, danglingParents: 0.05 };
const FINISHED = ['segments', 'projects', 'teams', 'companies', 'actions'];

interface Attempt {
  stack: Stack;
  dir: string;
  profile: PlatformProfile;
}

/** `sync --all` as the CLI runs it, in-process; `stopAtDonations`: stopped once that many donations are written. */
async function syncAll(stack: Stack, dir: string, profile?: PlatformProfile, stopAtDonations?: number): Promise<{ engine: SyncEngine; profile: PlatformProfile; stopped: boolean }> {
  const settings = settingsOf(stack.env);
  const source = createPlatformSource(settings.platform, {}, undefined, { keysRead, ...(profile ? { profile } : {}) });
  const sink = await SalesforceSink.connect(settings.salesforce);
  const stop = new AbortController();
  const engine = new SyncEngine(source, sink, {
    dryRun: false,
    force: false,
    strictParents: false,
    batchSize: 50,
    stop: stop.signal,
    onProgress: (p) => {
      if (stopAtDonations !== undefined && p.type === 'donation' && p.phase === 'write' && p.done >= stopAtDonations) stop.abort(new Error('stopped'));
    },
  });
  const plan = planIncremental(new StateFile(path.join(dir, 'state.json')), { kind: 'all' }, [...SYNC_ORDER], false);
  try {
    await runIncremental(engine, plan, sink);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    return { engine, profile: source.profile(), stopped: true };
  }
  return { engine, profile: source.profile(), stopped: false };
}

async function stoppedAttempt(): Promise<Attempt> {
  const stack = await startStack({ site: SITE });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-resume-parents-'));
  const first = await syncAll(stack, dir, undefined, 300);
  expect(first.stopped).toBe(true);
  return { stack, dir, profile: first.profile };
}

const readState = (a: Attempt): SyncState => new StateFile(path.join(a.dir, 'state.json')).read();

/** Platform requests of the resumed attempt to the collections the stopped one finished. */
const finishedRequests = (a: Attempt): string[] => a.stack.platform.requests.log.filter((e) => FINISHED.includes(String(e.collection))).map((e) => e.url);

let kept: Attempt;
let forgotten: Attempt;

beforeAll(async () => {
  kept = await stoppedAttempt();
  forgotten = await stoppedAttempt();
});

afterAll(async () => {
  for (const a of [kept, forgotten]) {
    await a.stack.close();
    fs.rmSync(a.dir, { recursive: true, force: true });
  }
});

describe('a resumed sync --all', () => {
  it('asks the platform again for no parent the stopped attempt found absent, and ends with the mirror exact', async () => {
    const state = readState(kept);
    expect(state.run?.completed).toEqual(expect.arrayContaining(['segment', 'project', 'team', 'company', 'action']));
    const absent = state.run?.absent ?? [];
    expect(absent.length).toBeGreaterThan(0);

    // The same stopped run, with the absent parents forgotten (as before they were kept).
    const other = readState(forgotten);
    expect(other.run?.absent).toEqual(absent);
    new StateFile(path.join(forgotten.dir, 'state.json')).write({ ...other, run: { ...other.run!, absent: [] } });

    kept.stack.platform.resetCounts();
    forgotten.stack.platform.resetCounts();
    const resumed = await syncAll(kept.stack, kept.dir, kept.profile);
    const without = await syncAll(forgotten.stack, forgotten.dir, forgotten.profile);
    expect(resumed.stopped).toBe(false);

    // None of the absent parents is asked for by id again; fewer requests to finished collections than without the list.
    const askedById = kept.stack.platform.requests.log.filter((e) => e.kind === 'byId').map((e) => e.url);
    for (const { key } of absent) {
      const id = key.split('_').pop();
      expect(askedById.filter((u) => u.endsWith(`/${id}`))).toEqual([]);
    }
    expect(finishedRequests(kept).length).toBeLessThan(finishedRequests(forgotten).length);
    // The same outcome either way: the same children written unlinked, each naming its absent parent.
    const unlinked = (e: SyncEngine): string[] => e.report.missingParents.map((m) => `${m.key} -> ${m.parent}`).sort();
    expect(unlinked(resumed.engine)).toEqual(unlinked(without.engine));
    expect(resumed.engine.report.missingParents.every((m) => m.reason.startsWith('not found on the platform'))).toBe(true);
    expect(readState(kept).run).toBeUndefined();

    // The mirror is what a full sync makes of the site: a dry run would write nothing.
    const check = new SyncEngine(createPlatformSource(settingsOf(kept.stack.env).platform), await SalesforceSink.connect(settingsOf(kept.stack.env).salesforce), {
      dryRun: true,
      force: false,
      strictParents: false,
      batchSize: 500,
    });
    await check.syncScan(SYNC_ORDER, {});
    const drift = [...check.report.summary].filter(([, c]) => c.inserted + c.updated + c.failed > 0);
    expect(drift).toEqual([]);
  });
});
