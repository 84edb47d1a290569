/** The human report's layout on its own: widths follow the terminal, updates are compact blocks, long values are cut. */
import { describe, expect, it } from '@jest/globals';
import { renderHuman, UPDATES_SHOWN } from '../../src/cli/render/tables.js';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { emptyObjectCounts } from '../../src/model/outcomes.js';
import type { RunResult } from '../../src/sync/result.js';

function result(records: RecordOutcome[]): RunResult {
  const summary = {} as RunResult['summary'];
  for (const o of ['Svc_Donation__c', 'Svc_NewsletterSubscription__c'] as const) summary[o] = emptyObjectCounts();
  for (const r of records) if (r.object in summary) summary[r.object as keyof typeof summary].updated += r.action === 'update' ? 1 : 0;
  return {
    command: 'sync',
    dryRun: false,
    summary,
    requests: {
      platform: 3,
      salesforce: 2,
      platformByKind: { total: 3, byId: 0, list: 3, retries: 0, rateLimitWaits: 2, waitedMs: 61_000 },
      salesforceByKind: { total: 2, query: 1, collections: 1, bulk: 0, describe: 0, auth: 0 },
    },
    records,
    missingParents: [],
    outsideParents: [],
  };
}

const update = (i: number): RecordOutcome => ({
  object: 'Svc_Donation__c',
  key: `Donation_${i}`,
  action: 'update',
  changes: { Message__c: { from: 'x'.repeat(300), to: `y${'z'.repeat(300)}` }, TotalAmount__c: { from: 20.4, to: 99.99 } },
});

describe('renderHuman', () => {
  it('fits every line in the width given, 80 and 60 columns, with long values cut', () => {
    for (const columns of [80, 60]) {
      const text = renderHuman(result([update(1)]), { verbose: false, columns });
      for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);
      expect(text).toMatch(/\n {2}Svc_Donation__c Donation_1\n {4}Message__c\s+x+… -> yz+…\n {4}TotalAmount__c\s+20\.4 -> 99\.99/);
    }
  });

  it('shows the first updates, says how many more, and lists them all with --verbose', () => {
    const many = Array.from({ length: UPDATES_SHOWN + 5 }, (_, i) => update(i));
    const short = renderHuman(result(many), { verbose: false, columns: 80 });
    expect(short.match(/^ {2}Svc_Donation__c Donation_/gm)).toHaveLength(UPDATES_SHOWN);
    expect(short).toContain('… 5 more: --verbose lists them all');
    const all = renderHuman(result(many), { verbose: true, columns: 80 });
    expect(all.match(/^ {2}Svc_Donation__c Donation_/gm)).toHaveLength(UPDATES_SHOWN + 5);
  });

  it('reports rate-limit waits and the time waited with the requests', () => {
    expect(renderHuman(result([]), { verbose: false, columns: 80 })).toContain('requests: platform 3 (2 rate-limit waits, 61 s waited), salesforce 2');
  });
});
