/** audit's human output: the asked objects only, the one compact table style, the dry-run fix line. */
import { expect, it } from '@jest/globals';
import { renderAudit } from '../../src/cli/render/auditTables.js';
import { auditSummary } from '../../src/sync/audit/auditTypes.js';
import type { AuditResult } from '../../src/sync/audit/auditRun.js';
import type { SObjectName } from '../../src/model/objects.js';

function result(types: AuditResult['types'], fixes?: AuditResult['fixes']): AuditResult {
  const counts = new Map<SObjectName, { inSync: number; missing: number; stale: number; orphan: number }>([['Svc_Segment__c', { inSync: 12_345, missing: 2, stale: 0, orphan: 0 }]]);
  return {
    command: 'audit',
    dryRun: true,
    types,
    drift: [],
    summary: auditSummary(counts),
    requests: {
      platform: 3,
      salesforce: 2,
      platformByKind: { total: 3, byId: 0, list: 3, retries: 0, rateLimitWaits: 0, waitedMs: 0 },
      salesforceByKind: { total: 2, query: 2, collections: 0, bulk: 0, describe: 0, auth: 0 },
    },
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
  expect(
    text
      .split('\n')
      .slice(1, 3)
      .map((l) => l.split(' ')[0]),
  ).toEqual(['Svc_Action__c', 'Svc_ActionQuestion__c']);
});

it('a dry-run fix says what it would write, without "written"', () => {
  const text = renderAudit(
    result(
      ['segment'],
      [
        { object: 'Svc_Segment__c', key: 'Segment_1', action: 'insert' },
        { object: 'Svc_Segment__c', key: 'Segment_2', action: 'update' },
      ],
    ),
    { verbose: false },
  );
  expect(text).toContain('Would write: 2 record(s)\n');
  expect(text).not.toContain('written');
});

it('50 failed fixes and 300 deletions fit 80 columns: 20 of each shown, the rest counted', () => {
  const long = 'FIELD_CUSTOM_VALIDATION_EXCEPTION ' + 'the value does not pass the org validation rule Svc_Amount_Positive '.repeat(4);
  const fixes: NonNullable<AuditResult['fixes']> = Array.from({ length: 50 }, (_, i) => ({
    object: 'Svc_ActionQuestion__c',
    key: `ActionQuestion_${1_000_000 + i}.${9_000_000 + i}`,
    action: 'fail',
    error: { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: long },
  }));
  const r: AuditResult = {
    ...result(['action'], fixes),
    dryRun: false,
    deletions: Array.from({ length: 300 }, (_, i) => ({
      object: 'Svc_ActionQuestion__c',
      key: `ActionQuestion_${i}.${i}`,
      outcome: i % 3 === 0 ? 'failed' : 'deleted',
      ...(i % 3 === 0 ? { error: { code: 'ENTITY_IS_LOCKED', message: long } } : {}),
    })) as NonNullable<AuditResult['deletions']>,
    problems: Array.from({ length: 3 }, () => `Svc_Donation__c: ${long}`),
  };
  const lines = renderAudit(r, { verbose: false }).split('\n');
  expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
  expect(lines).toContain('Written: 0 record(s), 50 failed');
  expect(lines).toContain('  ... and 30 more (--verbose, --report FILE or --json list all)');
  expect(lines).toContain('  ... and 280 more (--verbose, --report FILE or --json list all)');
  expect(lines.length).toBeLessThan(150);
  // --verbose lists every one, still within the width.
  const all = renderAudit(r, { verbose: true }).split('\n');
  expect(all.filter((l) => l.startsWith('  Svc_ActionQuestion__c ActionQuestion_'))).toHaveLength(50);
  expect(Math.max(...all.map((l) => l.length))).toBeLessThanOrEqual(80);
});
