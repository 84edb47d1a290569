/**
 * `audit` of a ~5,000- and a ~100,000-record site that a full sync has mirrored, with a little
 * drift planted (0.2% of donations deleted on the platform, 0.2% edited in Salesforce): requests
 * per record on each side, wall time and peak RSS, next to a naive audit that holds each side
 * whole in memory (the same requests, batch = everything). Each run is a child process, so its
 * peak RSS is its own; the servers run in this process and count what they serve. Figures are
 * printed, never asserted.
 *
 *   npm run build && node dist/bench/audit.js [records=5000,100000]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { PlatformSettings, SalesforceSettings } from '../src/config/settings.js';
import { SalesforceSink } from '../src/crm/sink.js';
import { createPlatformSource } from '../src/platform/source.js';
import { runAudit } from '../src/sync/audit/auditRun.js';
import { SYNC_ORDER } from '../src/model/objects.js';
import { SyncEngine } from '../src/sync/mirror/engine.js';
import type { SiteOptions } from '../fixtures/platform/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';

type Mode = 'seed' | 'audit' | 'naive' | 'floor';

interface Target {
  platform: PlatformSettings;
  salesforce: SalesforceSettings;
}

interface ChildReport {
  mode: Mode;
  wallMs: number;
  maxRssBytes: number;
  drift: number;
  missing: number;
  stale: number;
  orphan: number;
  inSync: number;
}

/** A site of about `records` platform records, mostly donations, as real sites are. */
function siteFor(records: number): SiteOptions {
  const small = records <= 10_000;
  return {
    seed: 42,
    segments: small ? 3 : 6,
    projectsPerSegment: 4,
    teamsPerProject: small ? 3 : 6,
    companiesPerProject: 2,
    actionsPerParent: small ? 4 : 12,
    donations: Math.round(records * (small ? 0.8 : 0.9)),
    newsletterSubscriptions: Math.round(records * 0.04),
  };
}

// ---------------------------------------------------------------------------------------------
// Child side

async function child(mode: Mode, target: Target): Promise<void> {
  const started = performance.now();
  const source = createPlatformSource(target.platform);
  const sink = await SalesforceSink.connect(target.salesforce);
  const report: ChildReport = { mode, wallMs: 0, maxRssBytes: 0, drift: 0, missing: 0, stale: 0, orphan: 0, inSync: 0 };
  if (mode === 'seed') {
    const engine = new SyncEngine(source, sink, { dryRun: false, force: false, strictParents: false, batchSize: 5_000 });
    await engine.syncScan(SYNC_ORDER, {});
  } else if (mode === 'audit' || mode === 'naive') {
    // naive: every record of a type in one batch, so each side is held whole.
    const { result } = await runAudit({ source, sink }, { types: [...SYNC_ORDER], fix: false, deleteOrphans: false, dryRun: false, batchSize: mode === 'naive' ? 10_000_000 : 5_000 });
    report.drift = result.drift.length;
    for (const c of Object.values(result.summary)) {
      report.missing += c.missing;
      report.stale += c.stale;
      report.orphan += c.orphan;
      report.inSync += c.inSync;
    }
  } else {
    await source.client.listPage('segment', 1, 1);
  }
  report.wallMs = performance.now() - started;
  report.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Parent side

function spawnChild(mode: Mode, target: Target): Promise<ChildReport> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [self, '--child', mode, JSON.stringify(target)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.on('error', reject);
    proc.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || last === '') return reject(new Error(`${mode} child exited with ${code}`));
      resolve(JSON.parse(last) as ChildReport);
    });
  });
}

function targetOf(stack: Stack): Target {
  return {
    platform: { apiUrl: stack.platform.url, apiKey: stack.env.SVC_API_KEY as string, concurrency: 4, timeoutMs: 60_000, listIdsOnly: false },
    salesforce: {
      login: { method: 'access_token', session: { instanceUrl: stack.salesforce.url, accessToken: stack.salesforce.accessToken } },
      apiVersion: stack.salesforce.apiVersion,
      bulkThreshold: 2_000,
      maxApiUsage: 0.99,
    },
  };
}

interface Measured {
  child: ChildReport;
  platform: number;
  platformById: number;
  salesforce: number;
  sfQuery: number;
}

async function measure(stack: Stack, mode: Mode): Promise<Measured> {
  stack.platform.resetCounts();
  stack.salesforce.resetCalls();
  const c = await spawnChild(mode, targetOf(stack));
  const p = stack.platform.requests;
  const s = stack.salesforce.calls();
  return { child: c, platform: p.total, platformById: p.byIdTotal, salesforce: s.total, sfQuery: s.query };
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

async function size(records: number): Promise<string[][]> {
  const options = siteFor(records);
  const stack = await startStack({ site: options, salesforce: { bulkPollsBeforeComplete: 0 } });
  try {
    const site = stack.platform.site;
    const total = Object.values(site).reduce((n, list) => n + list.length, 0);
    const questions = site.action.reduce((n, a) => n + (a.questions?.length ?? 0), 0);
    process.stderr.write(
      `${total} platform records (${site.donation.length} donations, ${site.action.length} actions, ${questions} questions, ${site.user.length} users): seeding with a full sync...\n`,
    );
    await measure(stack, 'seed');
    // Drift: 0.2% of the donations deleted on the platform (orphans, each confirmed by one GET by
    // id), 0.2% edited by hand in Salesforce (stale).
    const every = 500;
    site.donation.filter((_, i) => i % every === 7).forEach((d) => stack.platform.remove('donation', d.id));
    for (const r of stack.salesforce.records('Svc_Donation__c').filter((_, i) => i % every === 3)) stack.salesforce.editRecord('Svc_Donation__c', r.SvcId__c, { Message__c: 'edited by hand' });
    const platformRecords = Object.values(site).reduce((n, list) => n + list.length, 0);
    const sfRecords = ['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Action__c', 'Svc_ActionQuestion__c', 'Svc_Donation__c', 'Svc_NewsletterSubscription__c'].reduce(
      (n, o) => n + stack.salesforce.records(o).length,
      0,
    );
    process.stderr.write('floor...\n');
    const floor = await measure(stack, 'floor');
    process.stderr.write('audit...\n');
    const audit = await measure(stack, 'audit');
    process.stderr.write('naive audit (each side whole in memory)...\n');
    const naive = await measure(stack, 'naive');
    const row = (label: string, m: Measured): string[] => [
      `${label} (${platformRecords} platform / ${sfRecords} SF records)`,
      (m.child.wallMs / 1000).toFixed(1),
      String(m.platform),
      `${m.platform - m.platformById}/${m.platformById}`,
      (m.platform / platformRecords).toFixed(4),
      String(m.salesforce),
      ((m.salesforce / sfRecords) * 1000).toFixed(2),
      mib(m.child.maxRssBytes),
      mib(m.child.maxRssBytes - floor.child.maxRssBytes),
      m.child.mode === 'floor' ? '' : `${m.child.inSync}/${m.child.missing}/${m.child.stale}/${m.child.orphan}`,
    ];
    return [row('audit', audit), row('naive: whole sides', naive), row('floor: connect only', floor)];
  } finally {
    await stack.close();
  }
}

async function parent(sizes: number[]): Promise<void> {
  console.log(`audit bench: fake platform API (rate limit off) + Salesforce emulator on 127.0.0.1, ${os.cpus().length} cores; bulk threshold 2,000, batch 5,000`);
  const rows: string[][] = [];
  for (const n of sizes) rows.push(...(await size(n)));
  console.log(table(['run', 'wall s', 'platform req', '(list/byId)', 'req/record', 'SF calls', 'calls/1,000', 'peak RSS MiB', 'above floor', 'inSync/missing/stale/orphan'], rows));
  console.log(
    'budgets: platform <= 0.015 requests per record; Salesforce <= 12 calls per 1,000 records. ' + 'A per-record check would cost 1,000 Salesforce calls per 1,000 records (arithmetic, not run).',
  );
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  child(args[1] as Mode, JSON.parse(args[2] as string) as Target).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else {
  const sizes = (args[0] ?? '5000,100000')
    .split(',')
    .map(Number)
    .filter((n) => Number.isFinite(n) && n > 0);
  parent(sizes).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
