/**
 * What a run proves, it keeps (issue 48): a parent a complete scan proved absent costs the next
 * runs no request; a later change naming it drops the proof, and the record is read and linked.
 * A stop inside any collection saves the pages read, and the resume ends with the mirror exact.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { keysRead } from '../../src/mapping/keysRead.js';
import type { ApiRecordOf } from '../../src/model/apiRecords.js';
import { SYNC_ORDER, type SyncableType } from '../../src/model/objects.js';
import type { Progress } from '../../src/model/outcomes.js';
import { refOfKey } from '../../src/model/refs.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { planIncremental, runIncremental } from '../../src/sync/mirror/incremental.js';
import { AbsenceFile, absenceFileBeside } from '../../src/sync/run/absenceFile.js';
import { StateFile } from '../../src/sync/run/state.js';
import { startStack, type Stack } from '../../fixtures/stack.js';

const SITE = { seed: 21, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 3, donations: 450, newsletterSubscriptions: 120, danglingParents: 0.05 };

let stack: Stack | undefined;
let dir = '';

afterEach(async () => {
  await stack?.close();
  stack = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function setUp(): Promise<Stack> {
  stack = await startStack({ site: SITE });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-kept-proofs-'));
  return stack;
}

const stateFile = (): string => path.join(dir, 'state.json');
const proofsOf = (s: Stack): AbsenceFile => new AbsenceFile(absenceFileBeside(stateFile()), settingsOf(s.env).platform.apiUrl);

/** An engine as `sync` and `serve` build one: the state folder's proofs; `stopWhen`: aborts the run when a progress report matches. */
async function engineOf(s: Stack, stopWhen?: (type: SyncableType, done: number) => boolean, batchSize = 50): Promise<{ engine: SyncEngine; stop: AbortController }> {
  const settings = settingsOf(s.env);
  const stop = new AbortController();
  const source = createPlatformSource(settings.platform, { stop: stop.signal }, undefined, { keysRead, proofs: proofsOf(s) });
  const sink = await SalesforceSink.connect(settings.salesforce, {}, stop.signal);
  const onProgress = (p: Progress): void => {
    if (stopWhen !== undefined && p.phase === 'scan' && stopWhen(p.type as SyncableType, p.done)) stop.abort(new Error('stopped'));
  };
  return { engine: new SyncEngine(source, sink, { dryRun: false, force: false, strictParents: false, batchSize, stop: stop.signal, onProgress }), stop };
}

/** `sync --all` from the state folder: whether it was stopped, and its engine. */
async function syncAll(s: Stack, stopWhen?: (type: SyncableType, done: number) => boolean, batchSize?: number): Promise<{ stopped: boolean; engine: SyncEngine }> {
  const { engine, stop } = await engineOf(s, stopWhen, batchSize);
  try {
    await runIncremental(engine, planIncremental(new StateFile(stateFile()), { kind: 'all' }, [...SYNC_ORDER], false));
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    return { stopped: true, engine };
  }
  return { stopped: false, engine };
}

/** Records a full sync would still write: none when the mirror is exact. */
async function drift(s: Stack): Promise<string[]> {
  const settings = settingsOf(s.env);
  const check = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), { dryRun: true, force: false, strictParents: false, batchSize: 500 });
  await check.syncScan(SYNC_ORDER, {});
  return [...check.report.summary].filter(([, c]) => c.inserted + c.updated + c.failed > 0).map(([o, c]) => `${o}: ${JSON.stringify(c)}`);
}

describe('a parent a complete scan proved absent', () => {
  it('costs a later run no request, until a change names it: then it is read and linked', async () => {
    const s = await setUp();
    const first = await syncAll(s);
    expect(first.stopped).toBe(false);
    // A donation the sync wrote without its action: the platform no longer has that page.
    const missing = first.engine.report.missingParents.find((m) => m.object === 'Svc_Donation__c' && m.parent !== null && refOfKey(m.parent)?.type === 'action');
    expect(missing).toBeDefined();
    const id = refOfKey(missing?.key ?? '')?.id ?? 0;
    const actionId = refOfKey(missing?.parent ?? '')?.id ?? 0;
    expect(proofsOf(s).has('action', actionId)).toBeDefined();

    // A webhook for the donation, in a later process: its action is taken as absent, at no request.
    s.platform.update('donation', id, { last_name: 'Changed once' });
    s.platform.resetCounts();
    const later = await engineOf(s);
    await later.engine.syncRefs([{ type: 'donation', id }]);
    expect(s.platform.requests.log.filter((e) => e.collection === 'actions')).toEqual([]);
    expect(later.engine.report.missingParents.map((m) => m.parent)).toEqual([missing?.parent]);

    // The page comes back (restored), and a webhook names it: the proof is dropped, the donation linked.
    const page = { ...structuredClone(s.platform.site.action[0] as ApiRecordOf['action']), id: actionId };
    s.platform.add('action', page);
    s.platform.update('donation', id, { last_name: 'Changed twice' });
    const after = await engineOf(s);
    await after.engine.syncRefs([
      { type: 'action', id: actionId },
      { type: 'donation', id },
    ]);
    expect(proofsOf(s).has('action', actionId)).toBeUndefined();
    expect(after.engine.report.missingParents).toEqual([]);
    expect(after.engine.report.outcomeOf(missing?.parent ?? '')?.action).toBe('insert');
    expect(await drift(s)).toEqual([]);
  }, 120_000);
});

describe('a stop inside a collection', () => {
  it.each(SYNC_ORDER.map((t) => [t]))(
    'inside %s: the pages read are saved, and the resume ends exact',
    async (type) => {
      const s = await setUp();
      // Stopped once the collection's first page is in (its second, for one of several pages).
      const pages = Math.ceil(s.platform.site[type].length / 100);
      // One batch holds the whole collection: what was read is written at the stop all the same.
      const { stopped } = await syncAll(s, (t, done) => t === type && done >= Math.min(pages, 2) * 100 - 100 + 1, 1_000);
      expect(stopped).toBe(true);
      const state = new StateFile(stateFile()).read();
      expect(state.run).toBeDefined();
      // The donation pages read before the stop are written and saved: the resume starts at the last of them.
      // Those asked for ahead come in during the stop's grace: here that is the rest of the list, so it is done.
      if (type === 'donation') expect(state.run?.completed.includes('donation') === true || (state.run?.pagesDone.donation ?? 0) >= 2).toBe(true);
      expect((await syncAll(s)).stopped).toBe(false);
      expect(new StateFile(stateFile()).read().run).toBeUndefined();
      expect(await drift(s)).toEqual([]);
    },
    120_000,
  );
});
