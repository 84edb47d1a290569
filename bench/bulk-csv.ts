/**
 * What a Bulk API 2.0 job's body costs in memory while it is sent: the CSV written once as bytes
 * (toCsvBytes, what bulk.ts uploads) beside the naive way it was made before, a joined string that
 * the request stream then copies into UTF-8 bytes (toCsv + Buffer.from). Donation-shaped rows, one
 * cell with a quote and non-ASCII text. In-process, no servers: seconds.
 *
 *   npm run build && node --expose-gc dist/bench/bulk-csv.js [--records 20000]
 */
import { toCsv, toCsvBytes } from '../src/crm/csv.js';

const MiB = 1024 * 1024;
const COLUMNS = ['SvcId__c', 'Amount__c', 'Status__c', 'Date__c', 'Message__c', 'Name__c', 'Email__c', 'Campaign__c', 'Target__c', 'Anonymous__c', 'Currency__c', 'Method__c'];

/** A full collection, twice across a turn: a freed buffer's backing store is released after the first. */
async function gc(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with node --expose-gc');
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
}

const live = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** The body's size and what stays reachable while it is sent (after a full collection), over the rows alone. */
async function measure(rows: string[][], naive: boolean): Promise<{ body: number; held: number; cpuMs: number }> {
  await gc();
  const base = live();
  const cpu = process.cpuUsage();
  const kept: Array<string | Buffer> = [];
  if (naive) {
    const text = toCsv(COLUMNS, rows);
    kept.push(text, Buffer.from(text, 'utf8'));
  } else kept.push(toCsvBytes(COLUMNS, () => rows));
  const used = process.cpuUsage(cpu);
  await gc();
  const held = live() - base;
  const body = kept[kept.length - 1] as Buffer;
  return { body: body.length, held, cpuMs: (used.user + used.system) / 1000 };
}

const at = process.argv.indexOf('--records');
const records = at === -1 ? 20_000 : Number(process.argv[at + 1]);
const rows = Array.from({ length: records }, (_, i) => COLUMNS.map((c, j) => (j === 0 ? `Donation_${i}` : j === 4 ? `A message for donation ${i}, "quoted" é` : `${c}-${i % 97}`)));
console.log(`Bulk job body, ${records} rows (Node ${process.versions.node}), MiB held while it is sent:`);
for (const naive of [true, false, true, false]) {
  const m = await measure(rows, naive);
  console.log(
    `  ${naive ? 'naive: joined string + its UTF-8 copy' : 'ours: bytes written once         '}  body ${(m.body / MiB).toFixed(2)}  held ${(m.held / MiB).toFixed(2)}  CPU ${m.cpuMs.toFixed(0)} ms`,
  );
}
