/**
 * A full sync of a generated 5,000-donation site, side by side with a naive baseline (one fetch
 * and one upsert per record, sequentially), plus an idle re-run of the engine. Each run is a child
 * process of this script, so its peak memory (maxRSS) is its own; the fake platform and the
 * Salesforce emulator run in this parent process and count the requests they serve. The fake's
 * rate limit is off, so the figures are request counts and client-side work, not sleeping.
 * Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/sync-full.js [donations=5000]
 *   npm run build && node dist/bench/sync-full.js --latency 20 [--vendor-shape] [donations=300]
 *   npm run build && node dist/bench/sync-full.js --vendor-shape [size=5000]
 *
 * --latency MS: a small site with MS of latency on every request to either server (the fakes'
 * latencyMs: the round trip of a real network), and the figure is wall time: the built CLI's
 * `sync --all` and the engine beside the naive baseline, and the fixed cost of a run (the floor:
 * start-up and connect; the CLI's time to its first platform and first Salesforce request).
 *
 * The runs:
 *   floor   a child that loads the same modules and connects, and does nothing (the RSS floor)
 *   engine  SyncEngine.syncScan of every type into an empty emulator (CLI defaults:
 *           batch size 5,000, bulk threshold 2,000, Bulk API polls every 1 s)
 *   re-run  the same engine run again over the same data: everything unchanged
 *   naive   for every record, in hierarchy order: getById, (actions) getById of the owner,
 *           readByKeys of its parent, mapRecord + linkRecords, upsert of that one record
 *           (questions: one upsert each). Ids come from a file, like a replay of all ids.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlatformSettings, SalesforceSettings } from '../src/config/settings.js';
import { linkRecords, parentFieldsToRead } from '../src/mapping/link.js';
import { SalesforceSink } from '../src/crm/sink.js';
import type { CrmCallCounts, StoredRecord, UpsertOutcome } from '../src/model/crmRecords.js';
import { mapQuestions, mapRecord } from '../src/mapping/map.js';
import type { SObjectName, SyncableType } from '../src/model/objects.js';
import type { MappedRecord, MapResult } from '../src/mapping/types.js';
import { SCHEMAS } from '../src/mapping/schema.js';
import { PlatformClient } from '../src/platform/client.js';
import { PlatformError } from '../src/model/errors.js';
import type { ApiAction, ApiRecordOf, ApiUser } from '../src/model/apiRecords.js';
import { createPlatformSource } from '../src/platform/source.js';
import { SYNC_ORDER } from '../src/model/objects.js';
import { SyncEngine } from '../src/sync/mirror/engine.js';
import type { PlatformRequestCounts } from '../src/model/ports.js';
import { runCli } from '../fixtures/cli.js';
import { defaultSite, siteFor } from './sites.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { generateSite, type Site, type SiteOptions } from '../fixtures/platform/site.js';

type Mode = 'floor' | 'engine' | 'rerun' | 'naive';

/** What the parent hands a child (as JSON in argv). */
interface Target {
  platform: PlatformSettings;
  salesforce: SalesforceSettings;
  /** naive only: a JSON file of ids per type. */
  idsFile?: string;
  /** engine only: records of one type per pipeline batch (the CLI's --batch-size; default 5,000). */
  batchSize?: number;
}

/** What a child prints as its last stdout line. */
interface ChildReport {
  mode: Mode;
  wallMs: number;
  /** CPU time of the child (user + system): the client's own work, without the servers'. */
  cpuMs: number;
  platform: PlatformRequestCounts;
  salesforce: CrmCallCounts;
  written: number;
  unchanged: number;
  skipped: number;
  failed: number;
  maxRssBytes: number;
  peakHeapBytes: number;
  endRssBytes: number;
}

/** What a run itself returns; the child adds time and memory. */
type RunFigures = Pick<ChildReport, 'platform' | 'salesforce' | 'written' | 'unchanged' | 'skipped' | 'failed'>;

/** Server-side counts, read by the parent around each child. */
interface ServerCounts {
  platform: number;
  platformById: number;
  platformList: number;
  salesforce: number;
  sfQuery: number;
  sfCollections: number;
  sfBulk: number;
}

const SITE = defaultSite;

const OBJECTS: SObjectName[] = SCHEMAS.map((schema) => schema.apiName);

// ---------------------------------------------------------------------------------------------
// Child side

/** Samples heapUsed while the work runs: maxRSS covers the process, this the JS heap. */
function heapSampler(): { stop(): number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 25);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}

async function runEngine(target: Target): Promise<RunFigures> {
  const source = createPlatformSource(target.platform);
  const sink = await SalesforceSink.connect(target.salesforce);
  const engine = new SyncEngine(source, sink, { dryRun: false, force: false, strictParents: false, batchSize: target.batchSize ?? 5_000 });
  await engine.syncScan(SYNC_ORDER, {});
  let unchanged = 0;
  let skipped = 0;
  for (const c of engine.report.summary.values()) {
    unchanged += c.unchanged;
    skipped += c.skipped;
  }
  return { platform: source.requests(), salesforce: sink.calls(), written: engine.report.written, unchanged, skipped, failed: engine.report.failed };
}

type Ids = Record<SyncableType, number[]>;

/** The naive parent read: one readByKeys per parent object of the given records, linking fields only. */
async function readParents(sink: SalesforceSink, records: MappedRecord[]): Promise<Map<string, StoredRecord>> {
  const byObject = new Map<SObjectName, Set<string>>();
  for (const r of records) if (r.parent) byObject.set(r.parent.object, (byObject.get(r.parent.object) ?? new Set<string>()).add(r.parent.key));
  const parents = new Map<string, StoredRecord>();
  for (const [object, keys] of byObject) for (const [k, v] of await sink.readByKeys(object, [...keys], parentFieldsToRead(object))) parents.set(k, v);
  return parents;
}

async function runNaive(target: Target): Promise<RunFigures> {
  const ids = JSON.parse(readFileSync(target.idsFile as string, 'utf8')) as Ids;
  const client = new PlatformClient(target.platform);
  const sink = await SalesforceSink.connect(target.salesforce);
  let written = 0;
  let skipped = 0;
  let failed = 0;

  const count = (outcomes: UpsertOutcome[]): void => {
    for (const o of outcomes) {
      if (o.status === 'failed') failed++;
      else written++;
    }
  };
  /** Link (one parent read from Salesforce) and upsert this one record. */
  const writeOne = async (result: MapResult): Promise<void> => {
    if (result.kind !== 'record') {
      if (result.kind === 'skip') skipped++;
      else failed++;
      return;
    }
    const linked = linkRecords([result], await readParents(sink, [result]));
    count(await sink.upsert(result.object, linked.records));
  };
  /** One record: fetch by id, map, link (parent read from Salesforce), upsert alone. */
  const syncOne = async <T extends SyncableType>(type: T, id: number): Promise<void> => {
    let record: ApiRecordOf[T];
    try {
      record = await client.getById(type, id);
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'not_found') {
        skipped++;
        return;
      }
      throw error;
    }
    if (type === 'action') {
      const action = record as ApiAction;
      const ownerId = action.owner?.id;
      const user: ApiUser | null = typeof ownerId === 'number' ? await client.getById('user', ownerId).catch(() => null) : null;
      await writeOne(mapRecord('action', action, { user }));
      for (const q of mapQuestions(action)) await writeOne(q);
    } else if (type === 'donation' || type === 'newsletter_subscription') {
      // Map once to learn the parent, read it (one query, with the fields linking needs and its
      // ExternalReference__c), map again with that reference, link and upsert.
      const first = mapRecord(type, record);
      if (first.kind !== 'record') return writeOne(first);
      const parents = await readParents(sink, [first]);
      const ref = first.parent ? parents.get(first.parent.key)?.ExternalReference__c : undefined;
      const second = mapRecord(type, record, { targetExternalReference: typeof ref === 'string' ? ref : null });
      if (second.kind !== 'record') return writeOne(second);
      count(await sink.upsert(second.object, linkRecords([second], parents).records));
    } else {
      await writeOne(mapRecord(type, record));
    }
  };

  for (const type of SYNC_ORDER) for (const id of ids[type]) await syncOne(type, id);
  return { platform: client.counts(), salesforce: sink.calls(), written, unchanged: 0, skipped, failed };
}

async function child(mode: Mode, target: Target): Promise<void> {
  const heap = heapSampler();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let work: RunFigures;
  if (mode === 'naive') work = await runNaive(target);
  else if (mode === 'floor') {
    const sink = await SalesforceSink.connect(target.salesforce);
    const client = new PlatformClient(target.platform);
    await client.listPage('segment', 1, 1);
    work = { platform: client.counts(), salesforce: sink.calls(), written: 0, unchanged: 0, skipped: 0, failed: 0 };
  } else work = await runEngine(target);
  const wallMs = performance.now() - started;
  const peakHeapBytes = heap.stop();
  const used = process.cpuUsage(cpu);
  const report: ChildReport = {
    mode,
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    ...work,
    // resourceUsage().maxRSS is in kilobytes.
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    peakHeapBytes,
    endRssBytes: process.memoryUsage().rss,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Parent side

function spawnChild(mode: Mode, target: Target): Promise<ChildReport> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [self, '--child', mode, JSON.stringify(target)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || last === '') return reject(new Error(`${mode} child exited with ${code}`));
      resolve(JSON.parse(last) as ChildReport);
    });
  });
}

function targetOf(stack: Stack, extra: Pick<Target, 'idsFile' | 'batchSize'> = {}): Target {
  return {
    platform: { apiUrl: stack.platform.url, apiKey: stack.env.SVC_API_KEY as string, concurrency: 4, timeoutMs: 30_000, listIdsOnly: false },
    salesforce: {
      login: { method: 'access_token', session: { instanceUrl: stack.salesforce.url, accessToken: stack.salesforce.accessToken } },
      apiVersion: stack.salesforce.apiVersion,
      bulkThreshold: 2_000,
      maxApiUsage: 0.95,
    },
    ...extra,
  };
}

function serverCounts(stack: Stack): ServerCounts {
  const p = stack.platform.requests;
  const s = stack.salesforce.calls();
  return { platform: p.total, platformById: p.byIdTotal, platformList: p.listTotal, salesforce: s.total, sfQuery: s.query, sfCollections: s.collections, sfBulk: s.bulk };
}

async function measure(stack: Stack, mode: Mode, extra: Pick<Target, 'idsFile' | 'batchSize'> = {}): Promise<{ child: ChildReport; server: ServerCounts }> {
  stack.platform.resetCounts();
  stack.salesforce.resetCalls();
  const report = await spawnChild(mode, targetOf(stack, extra));
  return { child: report, server: serverCounts(stack) };
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const ratio = (a: number, b: number): string => (b === 0 ? '-' : `${(a / b).toFixed(a / b >= 10 ? 0 : 1)}x`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Every id of the site by type, in a file: what the naive baseline fetches one by one. */
function writeIds(site: Site, dir: string): string {
  const idsFile = path.join(dir, 'ids.json');
  const ids: Ids = {
    segment: site.segment.map((r) => r.id),
    project: site.project.map((r) => r.id),
    team: site.team.map((r) => r.id),
    company: site.company.map((r) => r.id),
    action: site.action.map((r) => r.id),
    donation: site.donation.map((r) => r.id),
    newsletter_subscription: site.newsletter_subscription.map((r) => r.id),
  };
  writeFileSync(idsFile, JSON.stringify(ids));
  return idsFile;
}

async function parent(donations: number): Promise<void> {
  const options = SITE(donations);
  const site = generateSite(options);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-'));
  const idsFile = writeIds(site, dir);
  const questions = site.action.reduce((n, a) => n + (Array.isArray(a.questions) ? a.questions.length : 0), 0);

  // One stack for the engine (full run, then the idle re-run), one for the naive baseline.
  const engineStack = await startStack({ site: options });
  const naiveStack = await startStack({ site: options });
  const smallStack = await startStack({ site: options });
  try {
    console.log(
      `sync-full: ${site.donation.length} donations, ${site.segment.length} segments, ${site.project.length} projects, ${site.team.length} teams, ` +
        `${site.company.length} companies, ${site.action.length} actions (${questions} questions), ${site.user.length} users, ` +
        `${site.newsletter_subscription.length} subscriptions; fake API (rate limit off) + Salesforce emulator on 127.0.0.1, ${os.cpus().length} cores`,
    );
    const floor = await measure(engineStack, 'floor');
    process.stderr.write('engine full sync...\n');
    const engine = await measure(engineStack, 'engine');
    process.stderr.write('engine idle re-run...\n');
    const rerun = await measure(engineStack, 'rerun');
    process.stderr.write('naive baseline (sequential, one request at a time)...\n');
    const naive = await measure(naiveStack, 'naive', { idsFile });
    process.stderr.write('engine full sync, batch size 500...\n');
    const small = await measure(smallStack, 'engine', { batchSize: 500 });

    const runs = [
      { label: '(a) engine: full sync', ...engine },
      { label: '(b) naive: 1 fetch + 1 upsert/record', ...naive },
      { label: '(c) engine: idle re-run', ...rerun },
      { label: '(d) engine: full sync, batch 500', ...small },
      { label: 'floor: load + connect only', ...floor },
    ];
    const header = ['run', 'wall s', 'client CPU s', 'platform req', '(list/byId)', 'SF calls', '(query/coll/bulk)', 'peak RSS MiB', 'peak heap MiB', 'written', 'unchanged', 'skipped', 'failed'];
    const rows = runs.map(({ label, child: c, server: s }) => [
      label,
      (c.wallMs / 1000).toFixed(2),
      (c.cpuMs / 1000).toFixed(2),
      String(s.platform),
      `${s.platformList}/${s.platformById}`,
      String(s.salesforce),
      `${s.sfQuery}/${s.sfCollections}/${s.sfBulk}`,
      mib(c.maxRssBytes),
      mib(c.peakHeapBytes),
      String(c.written),
      String(c.unchanged),
      String(c.skipped),
      String(c.failed),
    ]);
    console.log(table(header, rows));

    const e = engine;
    const n = naive;
    console.log('\nnaive / engine (how many times more the baseline costs)');
    console.log(
      table(
        ['', 'wall time', 'platform requests', 'Salesforce calls', 'peak RSS', 'peak RSS above floor'],
        [
          [
            'naive / engine',
            ratio(n.child.wallMs, e.child.wallMs),
            ratio(n.server.platform, e.server.platform),
            ratio(n.server.salesforce, e.server.salesforce),
            ratio(n.child.maxRssBytes, e.child.maxRssBytes),
            ratio(n.child.maxRssBytes - floor.child.maxRssBytes, e.child.maxRssBytes - floor.child.maxRssBytes),
          ],
        ],
      ),
    );
    const perK = (x: number, records: number): string => ((x / Math.max(1, records)) * 1000).toFixed(1);
    console.log(
      `\nper 1,000 records written: engine ${perK(e.server.platform, e.child.written)} platform requests, ${perK(e.server.salesforce, e.child.written)} Salesforce calls; ` +
        `naive ${perK(n.server.platform, n.child.written)} and ${perK(n.server.salesforce, n.child.written)}`,
    );
    // Loopback round trips cost well under a millisecond; over the internet each one costs more.
    const LP = 150;
    const LS = 100;
    const roundTrips = (r: { server: ServerCounts }): string => {
      const seconds = (r.server.platform * LP + r.server.salesforce * LS) / 1000;
      return seconds >= 120 ? `${(seconds / 60).toFixed(0)} min` : `${seconds.toFixed(1)} s`;
    };
    console.log(
      `round trips alone at ${LP} ms per platform request and ${LS} ms per Salesforce call, one at a time (arithmetic, not measured): ` +
        `naive ${roundTrips(n)}, engine at most ${roundTrips(e)} (plus the org's Bulk API processing time)`,
    );
    const jobs = engineStack.salesforce.bulkJobs();
    console.log(`engine full sync: ${jobs.length} Bulk API 2.0 job(s) (${jobs.map((j) => `${j.object} ${j.rows} rows`).join(', ')}), polled every 1 s: its wall time includes that wait`);
    console.log(`idle re-run: ${rerun.server.platform} platform requests, ${rerun.server.salesforce} Salesforce calls, 0 writes expected (got ${rerun.child.written})`);

    // Client-side counters against what the servers saw (they should agree).
    for (const { label, child: c, server: s } of runs) {
      if (c.platform.total !== s.platform || c.salesforce.total !== s.salesforce) {
        console.log(`note: ${label}: the client counted ${c.platform.total} platform / ${c.salesforce.total} Salesforce, the servers saw ${s.platform} / ${s.salesforce}`);
      }
    }

    // Both orgs hold the same records: the comparison is between equal results.
    const same = OBJECTS.map((o) => [o, String(engineStack.salesforce.records(o).length), String(naiveStack.salesforce.records(o).length)]);
    console.log(`\nrecords in the org after the run\n${table(['object', 'engine', 'naive'], same)}`);
  } finally {
    await Promise.all([engineStack.close(), naiveStack.close(), smallStack.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The built CLI's `sync --all` against a stack: wall time, and when the first request reached each server. */
async function cliRun(stack: Stack): Promise<{ wallMs: number; firstPlatformMs: number; firstSalesforceMs: number; code: number }> {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-latency-'));
  stack.platform.resetCounts();
  stack.salesforce.resetCalls();
  const started = performance.now();
  let firstPlatformMs = -1;
  let firstSalesforceMs = -1;
  const poll = setInterval(() => {
    const at = performance.now() - started;
    if (firstPlatformMs < 0 && stack.platform.requests.total > 0) firstPlatformMs = at;
    if (firstSalesforceMs < 0 && stack.salesforce.calls().total > 0) firstSalesforceMs = at;
  }, 2);
  const { code, stderr } = await runCli(['sync', '--all'], { cwd, env: { HOME: cwd, ...stack.env } });
  clearInterval(poll);
  rmSync(cwd, { recursive: true, force: true });
  if (code !== 0) process.stderr.write(`cli exit ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}\n`);
  return { wallMs: performance.now() - started, firstPlatformMs, firstSalesforceMs, code };
}

/** A small site over a network of `latencyMs` per request on both sides: what a user waits for. */
async function latencyParent(donations: number, latencyMs: number, vendorShape = false): Promise<void> {
  const options = { ...SITE(donations), newsletterSubscriptions: 20, vendorShape };
  const site = generateSite(options);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-bench-'));
  const idsFile = writeIds(site, dir);
  const records = Object.values(site).reduce((n, list) => n + list.length, 0);
  const stacks = await Promise.all([0, 1, 2].map(() => startStack({ site: options, latencyMs })));
  const [cliStack, engineStack, naiveStack] = stacks as [Stack, Stack, Stack];
  try {
    console.log(`sync-full --latency: ${records} records${vendorShape ? ' (vendor shape)' : ''}, ${latencyMs} ms per request to the platform and to Salesforce; ${os.cpus().length} cores`);
    const floor = await measure(engineStack, 'floor');
    process.stderr.write('CLI sync --all...\n');
    const cli = await cliRun(cliStack);
    const cliServer = serverCounts(cliStack);
    process.stderr.write('engine...\n');
    const engine = await measure(engineStack, 'engine');
    process.stderr.write('naive...\n');
    const naive = await measure(naiveStack, 'naive', { idsFile });
    const s = (ms: number): string => (ms / 1000).toFixed(2);
    console.log(
      table(
        ['run', 'wall s', 'platform req', 'SF calls', 'written'],
        [
          ['CLI: svc-sync sync --all', s(cli.wallMs), String(cliServer.platform), String(cliServer.salesforce), '-'],
          ['engine: full sync (in-process)', s(engine.child.wallMs), String(engine.server.platform), String(engine.server.salesforce), String(engine.child.written)],
          ['naive: 1 fetch + 1 upsert/record', s(naive.child.wallMs), String(naive.server.platform), String(naive.server.salesforce), String(naive.child.written)],
          ['floor: load + connect only', s(floor.child.wallMs), String(floor.server.platform), String(floor.server.salesforce), '-'],
        ],
      ),
    );
    console.log(`naive / CLI wall time: ${ratio(naive.child.wallMs, cli.wallMs)}; naive / engine: ${ratio(naive.child.wallMs, engine.child.wallMs)}`);
    console.log(`CLI fixed cost: first platform request after ${s(cli.firstPlatformMs)} s, first Salesforce request after ${s(cli.firstSalesforceMs)} s from spawn (start-up, settings, auth)`);
  } finally {
    await Promise.all(stacks.map((st) => st.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--vendor-shape` on this site, measured on the tree before issue 38 (d80003d): every collection where no list record carries a key read was sampled by id. */
const VENDOR_BEFORE = { first: 102, second: 57 };
/** The figures issue 38 reported for its medium site (140 then 54; 54 before the list-shape check). */
const VENDOR_ISSUE = { first: 140, second: 54 };

/**
 * `--vendor-shape`: the built CLI's `sync --all`, twice from one state folder, on the site's
 * vendor shape (segments without end_date, subscriptions linked by project_id / segment_id):
 * what the list-shape check costs a real site, per platform record, beside the naive approach.
 */
async function vendorParent(size: number): Promise<void> {
  // The medium site of bench/sites.ts (backfill's 5,000), no dangling parents.
  const options: SiteOptions = { ...siteFor(size, 0), vendorShape: true };
  const stack = await startStack({ site: options });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-vendor-'));
  try {
    const site = stack.platform.site;
    const records = Object.values(site).reduce((n, list) => n + list.length, 0);
    console.log(`sync-full --vendor-shape: a ${records}-record site (bench/sites.ts), segments without end_date, subscriptions linked by project_id / segment_id`);
    const per = (n: number): string => (n / records).toFixed(4);
    for (let i = 0; i < 2; i++) {
      stack.platform.resetCounts();
      const { code, stderr } = await runCli(['sync', '--all'], { cwd, env: { HOME: cwd, ...stack.env } });
      const p = stack.platform.requests;
      const byIdBy =
        Object.entries(p.byId)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none';
      const [before, issue, target] = i === 0 ? [VENDOR_BEFORE.first, VENDOR_ISSUE.first, 0.013] : [VENDOR_BEFORE.second, VENDOR_ISSUE.second, 0.011];
      console.log(
        `  ${i === 0 ? 'first' : 'second'} sync --all (exit ${code}): ${p.total} platform requests (list ${p.listTotal}, by id ${p.byIdTotal}: ${byIdBy}) = ${per(p.total)} a record (target <= ${target}); ` +
          `before issue 38 ${before} (${per(before)}); the issue's figure ${issue}`,
      );
      for (const line of stderr.split('\n').filter((l) => l.includes('platform:'))) console.log(`    ${line.trim()}`);
    }
    const naive = records - site.user.length + site.action.length;
    console.log(`  naive (1 fetch per record, one per action owner): ${naive} platform requests = ${per(naive)} a record`);
  } finally {
    await stack.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const latencyAt = args.indexOf('--latency');
if (latencyAt >= 0) {
  const latencyMs = Number(args[latencyAt + 1]);
  if (!(latencyMs >= 0)) throw new Error('--latency: milliseconds per request, e.g. 20');
  const rest = args.filter((_, i) => i !== latencyAt && i !== latencyAt + 1 && args[i] !== '--vendor-shape');
  latencyParent(Number(rest[0] ?? 300), latencyMs, args.includes('--vendor-shape')).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
} else if (args[0] === '--vendor-shape') {
  vendorParent(Number(args[1] ?? 5_000)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
} else if (args[0] === '--child') {
  child(args[1] as Mode, JSON.parse(args[2] as string) as Target).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
} else {
  parent(Number(args[0] ?? 5_000)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
