/**
 * Issue 40: a run stops early when every write of an object would fail. A batch whose records all
 * fail for a cause a retry cannot fix asks doctor's checks of that object once; when they confirm
 * the cause, the run stops before its next write, else it goes on as before.
 */
import { describe, expect, it } from '@jest/globals';
import type { ApiDonation, ApiSegment } from '../../src/model/apiRecords.js';
import { OrgSetupError } from '../../src/model/errors.js';
import type { SObjectName } from '../../src/model/objects.js';
import type { ObjectCheck, SetupProblem } from '../../src/model/ports.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { FakeSink, FakeSource } from './fakes.js';

const segment = (id: number): ApiSegment => ({ id, name: `Segment ${id}` });
const donation = (id: number): ApiDonation => ({ id, segment_id: 1, first_name: 'Bo', last_name: 'Giver', payment_status: 'paid', total_amount: '25.00', donation_amount: '25.00' });

/** A segment and six donations, listed two a page: three batches of donations. */
function site(): FakeSource {
  return new FakeSource(2).add('segment', segment(1)).add('donation', donation(1), donation(2), donation(3), donation(4), donation(5), donation(6));
}

const READ_ONLY = { code: 'INVALID_FIELD_FOR_INSERT_UPDATE', message: 'Unable to create/update fields: Amount__c.' };

/** A sink that refuses the donations `failing` names with `error`. */
function sinkFailing(failing: number[], error = READ_ONLY): FakeSink {
  const sink = new FakeSink();
  for (const id of failing) sink.failKey(`Donation_${id}`, error);
  return sink;
}

/** doctor's checks as the engine sees them: the objects asked about, and a fixed answer. */
function checks(answer: SetupProblem | undefined): { check: ObjectCheck; asked: SObjectName[] } {
  const asked: SObjectName[] = [];
  return {
    asked,
    check: async (object) => {
      asked.push(object);
      return answer;
    },
  };
}

const run = (sink: FakeSink, check: ObjectCheck): Promise<void> =>
  new SyncEngine(site(), sink, { dryRun: false, force: false, strictParents: false, batchSize: 2, setupCheck: check }).syncScan(['segment', 'donation'], {});

const donationWrites = (sink: FakeSink): number => sink.upserts().filter((c) => c.object === 'Svc_Donation__c').length;

describe('a batch that failed whole for a cause a retry cannot fix', () => {
  it('doctor confirms it: the run stops before its next write, naming the object, the cause and doctor', async () => {
    const sink = sinkFailing([1, 2, 3, 4, 5, 6]);
    const { check, asked } = checks({ cause: 'Svc_Donation__c.Amount__c is read-only for the connected user', findings: 3 });
    const stop = await run(sink, check).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stop).toBeInstanceOf(OrgSetupError);
    expect((stop as OrgSetupError).object).toBe('Svc_Donation__c');
    expect((stop as Error).message).toBe(
      'every write of Svc_Donation__c fails: Svc_Donation__c.Amount__c is read-only for the connected user (and 2 more such problems); the run stopped before its next write; next: svc-sync doctor',
    );
    expect(asked).toEqual(['Svc_Donation__c']);
    // One batch of donations sent, none after it; the segment before it stands.
    expect(donationWrites(sink)).toBe(1);
    expect(sink.get('Svc_Segment__c', 'Segment_1')).toBeDefined();
  });

  it('doctor finds nothing: the run goes on as before, every batch written, doctor asked once', async () => {
    const sink = sinkFailing([1, 2, 3, 4, 5, 6]);
    const { check, asked } = checks(undefined);
    await run(sink, check);
    expect(donationWrites(sink)).toBe(3);
    expect(asked).toEqual(['Svc_Donation__c']);
  });

  it('never asks on a batch with one record written, nor for a validation rule (doctor cannot see one)', async () => {
    const some = checks({ cause: 'never asked', findings: 1 });
    const partly = sinkFailing([1, 3, 5]);
    await run(partly, some.check);
    expect(donationWrites(partly)).toBe(3);
    const rule = sinkFailing([1, 2, 3, 4, 5, 6], { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'Gift Aid needs a declaration' });
    await run(rule, some.check);
    expect(donationWrites(rule)).toBe(3);
    expect(some.asked).toEqual([]);
  });

  it('a healthy run never asks', async () => {
    const { check, asked } = checks({ cause: 'never asked', findings: 1 });
    await run(new FakeSink(), check);
    expect(asked).toEqual([]);
  });
});
