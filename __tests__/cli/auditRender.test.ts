/** audit's human output: the asked objects only, the one compact table style, the dry-run fix line. */
import { expect, it } from '@jest/globals';
import { renderAudit } from '../../src/cli/render/auditTables.js';
import { auditSummary } from '../../src/sync/auditTypes.js';
import type { AuditResult } from '../../src/sync/auditRun.js';
import type { SObjectName } from '../../src/model/objects.js';

function result(types: AuditResult['types'], fixes?: AuditResult['fixes']): AuditResult {
  const counts = new Map<SObjectName, { inSync: number; missing: number; stale: number; orphan: number }>([['Svc_Segment__c', { inSync: 12_345, missing: 2, stale: 0, orphan: 0 }]]);
  return {
    command: 'audit',
    dryRun: true,
    types,
    drift: [],
    summary: auditSummary(counts),
    requests: { platform: 3, salesforce: 2, platformByKind: { total: 3, byId: 0, list: 3, retries: 0, rateLimitWaits: 0, waitedMs: 0 }, salesforceByKind: { total: 2, query: 2, collections: 0, bulk: 0, describe: 0, auth: 0 } },
    problems: [],
    ...(fixes ? { fixes } : {}),
  };
}

it('--types segments lists Svc_Segment__c alone, in a plain table within 80 columns', () => {
  const text = renderAudit(result(['segment']), { verbose: false });
  const table = text.split('\n').slice(0, 2);
  expect(table).toEqual(['object          in sync  missing  stale  orphan', 'Svc_Segment__c   12,345        2      0       0']);
  expect(text).not.toContain('Svc_Donation__c');
  expect(text).not.toMatch(/[│┌└]/);
});

it('--types action brings its questions along', () => {
  const text = renderAudit(result(['action']), { verbose: false });
  expect(text.split('\n').slice(1, 3).map((l) => l.split(' ')[0])).toEqual(['Svc_Action__c', 'Svc_ActionQuestion__c']);
});

it('a dry-run fix says what it would write, without "written"', () => {
  const text = renderAudit(result(['segment'], [{ object: 'Svc_Segment__c', key: 'Segment_1', action: 'insert' }, { object: 'Svc_Segment__c', key: 'Segment_2', action: 'update' }]), { verbose: false });
  expect(text).toContain('Would write: 2 record(s)\n');
  expect(text).not.toContain('written');
});
