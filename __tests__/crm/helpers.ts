/** Shared setup for the crm suite: an emulator and a sink wired to it with fast retry timings. */
import { startSalesforceEmulator, type Emulator, type EmulatorOptions } from '../../fixtures/salesforce/emulator.js';
import type { SalesforceSettings } from '../../src/config/settings.js';
import { connectSalesforce } from '../../src/crm/connection.js';
import { SalesforceSink, type SinkOptions } from '../../src/crm/sink.js';
import type { CrmRecord } from '../../src/model/crmRecords.js';

export const CLIENT = { clientId: 'svc-sync-test-client', clientSecret: 'cs-very-secret-value-123' };
export const USER = { username: 'integration@svc.example', password: 'pw-very-secret-456' };

export const FAST: Partial<SinkOptions> = {
  retry: { attempts: 4, baseDelayMs: 2, maxDelayMs: 10 },
  bulk: { pollIntervalMs: 5, maxPollIntervalMs: 20, pollTimeoutMs: 20000 },
};

export function settingsFor(emu: Emulator, extra: Partial<SalesforceSettings> = {}): SalesforceSettings {
  return { login: { method: 'access_token', session: { instanceUrl: emu.url, accessToken: emu.accessToken } }, apiVersion: emu.apiVersion, bulkThreshold: 2000, maxApiUsage: 0.9, ...extra };
}

export async function setup(opts: EmulatorOptions = {}, sinkOpts: Partial<SinkOptions> = {}): Promise<{ emu: Emulator; sink: SalesforceSink }> {
  const emu = await startSalesforceEmulator({ clients: [CLIENT], users: [USER], ...opts });
  const session = await connectSalesforce(settingsFor(emu));
  const sink = new SalesforceSink(session, { bulkThreshold: 2000, maxApiUsage: 0.9, ...FAST, ...sinkOpts });
  return { emu, sink };
}

export function segments(n: number, from = 1, extra: (i: number) => CrmRecord = () => ({})): CrmRecord[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return { SvcId__c: `Segment_${i}`, Name: `Segment ${i}`, Title__c: `Title ${i}`, TargetAmount__c: i * 10, TotalAmount__c: 12.5, ...extra(i) };
  });
}
