/**
 * What a run keeps per record for its whole length, measured exactly: a RunReport given `records`
 * plain inserts (a first sync's outcomes), the same number in a heavy site's mix (action answers'
 * two-id keys, donations skipped for a shared reason), and a ListCoverage given the same number of ids in
 * 100-record pages (a complete list scan), each held while the garbage collector runs, the growth
 * of JS heap plus array buffers divided by the records; and `audit`'s own set of the ids its scan
 * listed (IdSet), given the same ids. Beside it, the same classes of another
 * build (`--before DIR`: a checkout built with `npm run build`). In-process, no servers: seconds.
 *
 *   npm run build && node --expose-gc dist/bench/memory-per-record.js [--records 1000000] [--before DIR]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../fixtures/cli.js';
import type { ListPage } from '../src/model/apiRecords.js';
import type { RecordOutcome } from '../src/model/outcomes.js';

interface Built {
  RunReport: new () => { add(o: RecordOutcome): void; outcomeOf(key: string): unknown };
  ListCoverage: new () => { note(page: ListPage<{ id: number }>, pageSize: number): void; complete(): boolean };
  IdSet: new () => { add(id: number): void; has(id: number): boolean };
}

async function load(dir: string): Promise<Built> {
  const at = (file: string): string => pathToFileURL(path.join(dir, 'dist', 'src', file)).href;
  const report = (await import(at('sync/report/report.js'))) as Pick<Built, 'RunReport'>;
  const coverage = (await import(at('platform/coverage.js'))) as Pick<Built, 'ListCoverage'>;
  const ledger = (await import(at('sync/audit/auditLedger.js'))) as Pick<Built, 'IdSet'>;
  return { RunReport: report.RunReport, ListCoverage: coverage.ListCoverage, IdSet: ledger.IdSet };
}

const gc = (globalThis as { gc?: () => void }).gc;

function used(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Bytes per record that `fill` leaves held (what it returns is kept until measured). */
function perRecord(records: number, fill: () => unknown): number {
  const before = used();
  const held = fill();
  const after = used();
  if (held === undefined) throw new Error('nothing held');
  return (after - before) / records;
}

const UNPAID = "payment status not synced: record.payment_status 'pending' (synced: paid, refunded, chargedback)";

/** The i-th outcome of a heavy site's first sync, in its proportions (see measure). */
function heavyOutcome(i: number): RecordOutcome {
  const slot = i % 100;
  if (slot < 37) return { object: 'Svc_ActionQuestion__c', key: `ActionQuestion_${5_000 + Math.floor(i / 10)}.${50_000 + i}`, action: 'insert' };
  if (slot < 48) return { object: 'Svc_Donation__c', key: `Donation_${100_000 + i}`, action: 'skip', reason: slot < 45 ? UNPAID : 'zero total amount: total_amount is 0.0' };
  return { object: 'Svc_Donation__c', key: `Donation_${100_000 + i}`, action: 'insert' };
}

function measure(built: Built, records: number): { report: number; mixed: number; coverage: number; audit: number } {
  const report = perRecord(records, () => {
    const r = new built.RunReport();
    for (let i = 0; i < records; i++) r.add({ object: 'Svc_Donation__c', key: `Donation_${100_000 + i}`, action: 'insert' });
    return r;
  });
  // The 98k heavy site's outcomes (issue 49's heap snapshots at 95 % of its first sync): 37 % action
  // answers with two ids, 11 % donations skipped for one of two shared reasons, the rest plain inserts.
  const mixed = perRecord(records, () => {
    const r = new built.RunReport();
    for (let i = 0; i < records; i++) r.add(heavyOutcome(i));
    return r;
  });
  const coverage = perRecord(records, () => {
    const c = new built.ListCoverage();
    const pages = Math.ceil(records / 100);
    for (let p = 1; p <= pages; p++) {
      const ids = Array.from({ length: Math.min(100, records - (p - 1) * 100) }, (_, i) => 100_000 + (p - 1) * 100 + i);
      c.note({ records: ids.map((id) => ({ id })), totalEntries: records, totalPages: pages, perPage: 100, currentPage: p } as unknown as ListPage<{ id: number }>, 100);
    }
    if (!c.complete()) throw new Error('the scan is not complete');
    return c;
  });
  const audit = perRecord(records, () => {
    const listed = new built.IdSet();
    for (let i = 0; i < records; i++) listed.add(100_000 + i);
    // The first look-up sorts it, as the walk over Salesforce's keys does.
    if (!listed.has(100_000)) throw new Error('IdSet lost an id');
    return listed;
  });
  return { report, mixed, coverage, audit };
}

async function main(): Promise<void> {
  if (gc === undefined) throw new Error('run with node --expose-gc');
  const argv = process.argv.slice(2);
  let records = 1_000_000;
  const builds: Array<[string, string]> = [['this build', packageRoot()]];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--records') records = Number(argv[++i]);
    else if (argv[i] === '--before') builds.unshift(['before', path.resolve(String(argv[++i]))]);
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])} (see the header of bench/memory-per-record.ts)`);
  }
  console.log(`per-record state held for a whole run, ${records.toLocaleString('en')} records, Node ${process.versions.node}: bytes per record (JS heap + array buffers)`);
  for (const [label, dir] of builds) {
    const m = measure(await load(dir), records);
    console.log(
      `  ${label.padEnd(10)}  outcomes (RunReport) ${m.report.toFixed(1).padStart(6)}  list-scan ids (ListCoverage) ${m.coverage.toFixed(1).padStart(6)}  total ${(m.report + m.coverage).toFixed(1).padStart(6)}  = ${(((m.report + m.coverage) * records) / 1024 / 1024).toFixed(1)} MiB;  a heavy site's outcomes ${m.mixed.toFixed(1)} (${((m.mixed * records) / 1024 / 1024).toFixed(1)} MiB);  audit's listed ids (IdSet) ${m.audit.toFixed(1)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
