/**
 * Salesforce calls the sync log costs per run at 0, 1, 200 and 5,000 failing records, against the
 * local emulator (counts, not timings): a first failing run (errors opened), then a second one
 * (attempts counted up on the same records). Run: npm run build && node dist/bench/salesforce-log.js
 */
import { startSalesforceEmulator } from '../fixtures/salesforce/emulator.js';
import { SalesforceApi } from '../src/crm/api.js';
import { connectSalesforce } from '../src/crm/connection.js';
import { SyncLog } from '../src/crm/syncLog.js';
import type { RecordOutcome } from '../src/model/outcomes.js';
import type { RunEntry } from '../src/model/syncLog.js';

const failures = (n: number): RecordOutcome[] =>
  Array.from({ length: n }, (_, i) => ({
    object: 'Svc_Donation__c',
    key: `Donation_${i + 1}`,
    action: 'fail',
    error: { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'refused', fields: ['Amount__c'] },
  }));

const run = (key: string, failed: number): RunEntry => ({
  key,
  command: 'sync',
  startedAt: new Date().toISOString(),
  finishedAt: new Date().toISOString(),
  outcome: failed > 0 ? 'Partial' : 'Succeeded',
  counts: { inserted: 0, updated: 0, unchanged: 0, failed, deleted: 0 },
  platformRequests: 0,
  salesforceCalls: 0,
  summary: `bench ${key}`,
});

async function measure(n: number): Promise<string> {
  const emu = await startSalesforceEmulator({ bulkPollsBeforeComplete: 1 });
  try {
    const session = await connectSalesforce({
      login: { method: 'access_token', session: { instanceUrl: emu.url, accessToken: emu.accessToken } },
      apiVersion: emu.apiVersion,
      bulkThreshold: 2000,
      maxApiUsage: 0.9,
    });
    const api = new SalesforceApi(session, 0.9);
    const bulk = { pollIntervalMs: 10, maxPollIntervalMs: 50, pollTimeoutMs: 60000, maxJobBytes: 100_000_000 };
    const calls: number[] = [];
    for (const pass of [1, 2]) {
      const log = new SyncLog(api, bulk);
      const fails = failures(n);
      const result = await log.record(run(`bench-${n}-${pass}`, n), { failures: fails, outcomeOf: () => (n > 0 ? { action: 'fail' } : undefined) }, (t) => t);
      if (result.status !== 'written') throw new Error(`log not written: ${JSON.stringify(result)}`);
      calls.push(result.calls);
    }
    const open = emu.records('Svc_SyncError__c').filter((e) => e.Status__c === 'Open' && e.Attempts__c === (n > 0 ? 2 : 0)).length;
    return `${String(n).padStart(6)} failing records  first run ${String(calls[0]).padStart(3)} calls  second run ${String(calls[1]).padStart(3)} calls  (${open} error records at 2 attempts)`;
  } finally {
    await emu.close();
  }
}

for (const n of [0, 1, 200, 5000]) console.log(await measure(n));
