/**
 * Salesforce HTTP calls per 1,000 records, Collections vs Bulk API 2.0, against the local
 * emulator (counts, not timings). Run: npm run build && node dist/bench/salesforce-calls.js
 */
import { startSalesforceEmulator } from '../fixtures/salesforce/emulator.js';
import { connectSalesforce } from '../src/crm/connection.js';
import { SalesforceSink } from '../src/crm/sink.js';
import type { CrmRecord } from '../src/model/crmRecords.js';

const records = (n: number, tag: string): CrmRecord[] =>
  Array.from({ length: n }, (_, i) => ({ SvcId__c: `Segment_${tag}_${i}`, Name: `Segment ${i}`, Title__c: `Title ${i}`, TargetAmount__c: i, TotalAmount__c: 1.5 }));

async function measure(label: string, n: number, bulkThreshold: number): Promise<string> {
  const emu = await startSalesforceEmulator({ bulkPollsBeforeComplete: 2 });
  try {
    const session = await connectSalesforce({
      login: { method: 'access_token', session: { instanceUrl: emu.url, accessToken: emu.accessToken } },
      apiVersion: emu.apiVersion,
      bulkThreshold,
      maxApiUsage: 0.9,
    });
    const sink = new SalesforceSink(session, { bulkThreshold, maxApiUsage: 0.9, bulk: { pollIntervalMs: 10, maxPollIntervalMs: 50, pollTimeoutMs: 60000 } });
    const out = await sink.upsert('Svc_Segment__c', records(n, label));
    const failed = out.filter((o) => o.status === 'failed').length;
    const c = sink.calls();
    const per1000 = (c.total / n) * 1000;
    return `${label.padEnd(12)} ${String(n).padStart(6)} records  ${String(c.total).padStart(4)} calls (collections ${c.collections}, bulk ${c.bulk})  ${per1000.toFixed(1).padStart(7)} calls per 1,000${failed ? `  ${failed} failed` : ''}`;
  } finally {
    await emu.close();
  }
}

const lines = [
  await measure('collections', 1000, Number.MAX_SAFE_INTEGER),
  await measure('collections', 10000, Number.MAX_SAFE_INTEGER),
  await measure('bulk2', 1000, 0),
  await measure('bulk2', 10000, 0),
];
console.log('Salesforce calls per 1,000 records (local emulator; Bulk polls: 2 InProgress answers per job)');
for (const l of lines) console.log(l);
