/** Failures grouped by reason (issue 40): count, first records, the whole reason, and doctor for what a retry cannot fix. */
import { describe, expect, it } from '@jest/globals';
import { EXIT, PlatformError, SalesforceError, actionsOf, describeError, exitCodeOf } from '../../src/model/errors.js';
import type { RecordOutcome } from '../../src/model/outcomes.js';
import { failureGroups, failureSummary } from '../../src/sync/report/failureGroups.js';

const failed = (key: string, code: string, message: string, object: RecordOutcome['object'] = 'Svc_Donation__c'): RecordOutcome => ({ object, key, action: 'fail', error: { code, message } });

describe('failure groups', () => {
  it('one group per object and reason, the largest first, keys inside a message alike, the first three records named', () => {
    const records: RecordOutcome[] = [
      failed('Donation_1', 'INVALID_VALUE', 'Amount__c: not a number'),
      ...[2, 3, 4, 5].map((i) => failed(`Donation_${i}`, 'UNKNOWN_EXCEPTION', `Donation_${i} refused by a trigger`)),
      { object: 'Svc_Donation__c', key: 'Donation_9', action: 'insert' },
    ];
    const groups = failureGroups(records);
    expect(groups.map((g) => [g.code, g.count, g.keys])).toEqual([
      ['UNKNOWN_EXCEPTION', 4, ['Donation_2', 'Donation_3', 'Donation_4']],
      ['INVALID_VALUE', 1, ['Donation_1']],
    ]);
    expect(groups.every((g) => g.fix === undefined)).toBe(true);
  });

  it('a reason a retry can fix: the summary names the first reason whole and keeps the retry as next step', () => {
    const long = `Gift Aid ${'needs a declaration '.repeat(6)}`.trim();
    const s = failureSummary([failed('Donation_1', 'UNABLE_TO_LOCK_ROW', long), failed('Donation_2', 'INVALID_VALUE', 'bad')], 2, 'the next sync retries them');
    expect(s.why).toBe(`2 records failed: 1 Svc_Donation__c UNABLE_TO_LOCK_ROW: ${long} (Donation_1); 1 other reason`);
    expect(s.next).toBe('the next sync retries them');
  });

  it.each(['INVALID_FIELD', 'INVALID_FIELD_FOR_INSERT_UPDATE', 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY', 'FIELD_CUSTOM_VALIDATION_EXCEPTION'])(
    '%s: says a retry cannot fix it, what to fix, and sends to doctor instead of the next sync',
    (code) => {
      const records = [1, 2, 3, 4].map((i) => failed(`Donation_${i}`, code, 'refused'));
      const s = failureSummary(records, 4, 'the next sync retries them');
      expect(s.why).toMatch(new RegExp(`^4 records failed: 4 Svc_Donation__c ${code}: refused \\(Donation_1, Donation_2, Donation_3, …\\); a retry cannot fix it: .+`));
      expect(s.next).toBe('svc-sync doctor');
    },
  );

  it('no failure records (a shortfall only): the count alone and the given next step', () => {
    expect(failureSummary([], 0, 'x')).toEqual({ why: '0 records failed', next: 'x' });
  });
});

describe('a run stopped by a cause a retry cannot fix, or by a side that did not answer', () => {
  it("a field missing or hidden (INVALID_FIELD on a query): next is doctor, not the next sync; exit 2, the org's setup", () => {
    const e = new SalesforceError('INVALID_FIELD', "No such column 'CreatedAt__c' on entity 'Svc_Segment__c'.");
    expect(actionsOf(e)).toEqual(['svc-sync doctor']);
    expect(exitCodeOf(e)).toBe(EXIT.USAGE);
  });

  it('no answer: exit 69, the host and what was tried in the line, the message itself unchanged (records group by it)', () => {
    const p = new PlatformError('network', 'GET', '/v1/segments', undefined, 'network error (ECONNREFUSED)');
    p.unanswered = 'from http://127.0.0.1:9 (5 attempts over 6.8 s)';
    expect(exitCodeOf(p)).toBe(EXIT.UNREACHABLE);
    expect(p.message).toBe('GET /v1/segments: network error (ECONNREFUSED)');
    expect(describeError(p)).toBe(
      'the platform API did not answer: GET /v1/segments: network error (ECONNREFUSED) from http://127.0.0.1:9 (5 attempts over 6.8 s); check that it is up and that SVC_API_URL points at it',
    );
    const s = new SalesforceError('NETWORK_ERROR', 'network error talking to Salesforce: ECONNREFUSED');
    expect(exitCodeOf(s)).toBe(EXIT.UNREACHABLE);
    expect(actionsOf(s)[0]).toBe('svc-sync doctor');
  });
});
