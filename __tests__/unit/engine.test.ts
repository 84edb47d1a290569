/**
 * The engine's decisions on in-memory ports: no server, no HTTP, each test well under a second.
 * Parent order, skip-unchanged, descendants' re-link and how failures travel to children.
 */
import { describe, expect, it } from '@jest/globals';
import type { ApiAction, ApiDonation, ApiProject, ApiSegment, ApiTeam } from '../../src/model/apiRecords.js';
import { SyncEngine, type EngineOptions } from '../../src/sync/mirror/engine.js';
import { authError, FakeSink, FakeSource, serverError } from './fakes.js';

const segment = (id: number): ApiSegment => ({ id, name: `Segment ${id}` });
const project = (id: number, segmentId: number): ApiProject => ({ id, title: `Project ${id}`, segment_id: segmentId });
const team = (id: number, projectId: number, segmentId: number): ApiTeam => ({ id, name: `Team ${id}`, project_id: projectId, segment_id: segmentId });
const action = (id: number, teamId: number, projectId: number, segmentId: number): ApiAction => ({
  id,
  first_name: 'Ada',
  last_name: `Runner ${id}`,
  team_id: teamId,
  project_id: projectId,
  segment_id: segmentId,
  questions: [{ id: 1, question: 'Shirt size?', answer: 'M' }],
});
const donation = (id: number, actionId: number): ApiDonation => ({
  id,
  action_id: actionId,
  first_name: 'Bo',
  last_name: 'Giver',
  payment_status: 'paid',
  total_amount: '25.00',
  donation_amount: '25.00',
});

/** One site: segment 1 > project 1 > team 1 > action 1 > donation 1, and project 2 under segment 1. */
function site(): FakeSource {
  return new FakeSource()
    .add('segment', segment(1))
    .add('project', project(1, 1), project(2, 1))
    .add('team', team(1, 1, 1))
    .add('action', action(1, 1, 1, 1))
    .add('donation', donation(1, 1));
}

const OPTIONS: EngineOptions = { dryRun: false, force: false, strictParents: false, batchSize: 100 };
const engine = (source: FakeSource, sink: FakeSink, opts: Partial<EngineOptions> = {}): SyncEngine => new SyncEngine(source, sink, { ...OPTIONS, ...opts });

describe('engine on in-memory ports: parent order', () => {
  it('writes the missing parents of a donation first, highest level first, then links it to them', async () => {
    const sink = new FakeSink();
    const e = engine(site(), sink);
    await e.syncRefs([{ type: 'donation', id: 1 }]);

    expect(sink.upserts().map((c) => c.object)).toEqual(['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Action__c', 'Svc_ActionQuestion__c', 'Svc_Donation__c']);
    expect(sink.get('Svc_Donation__c', 'Donation_1')).toMatchObject({
      Svc_Action__c: sink.idOf('Svc_Action__c', 'Action_1'),
      Svc_Team__c: sink.idOf('Svc_Team__c', 'Team_1'),
      Svc_Project__c: sink.idOf('Svc_Project__c', 'Project_1'),
      Svc_Segment__c: sink.idOf('Svc_Segment__c', 'Segment_1'),
    });
    expect(e.report.records.map((r) => [r.key, r.action])).toEqual([
      ['Segment_1', 'insert'],
      ['Project_1', 'insert'],
      ['Team_1', 'insert'],
      ['Action_1', 'insert'],
      ['ActionQuestion_1.1', 'insert'],
      ['Donation_1', 'insert'],
    ]);
  });

  it('reads a parent already in Salesforce instead of fetching it, once for all its children', async () => {
    const source = site().add('donation', donation(2, 1), donation(3, 1));
    const sink = new FakeSink();
    await engine(source, sink).syncRefs([{ type: 'action', id: 1 }]);
    source.fetches.length = 0;
    sink.log.length = 0;

    await engine(source, sink).syncRefs([1, 2, 3].map((id) => ({ type: 'donation' as const, id })));
    expect(source.fetches).toEqual([{ type: 'donation', ids: [1, 2, 3] }]);
    const parentReads = sink.log.filter((c) => c.op === 'readByKeys' && c.object === 'Svc_Action__c');
    expect(parentReads).toEqual([expect.objectContaining({ keys: ['Action_1'] })]);
  });

  it('syncs each distinct ref once, parents that were asked for too included', async () => {
    const source = site();
    const e = engine(source, new FakeSink());
    await e.syncRefs([
      { type: 'donation', id: 1 },
      { type: 'segment', id: 1 },
      { type: 'donation', id: 1 },
    ]);
    expect(source.fetches.filter((f) => f.type === 'segment').flatMap((f) => f.ids)).toEqual([1]);
    expect(e.report.summary.get('Svc_Segment__c')).toMatchObject({ inserted: 1, unchanged: 0 });
  });
});

describe('engine on in-memory ports: skip-unchanged', () => {
  it('writes nothing on a second run over the same data, and counts every record unchanged', async () => {
    const source = site();
    const sink = new FakeSink();
    await engine(source, sink).syncRefs([{ type: 'donation', id: 1 }]);
    const writes = sink.upserts().length;

    const again = engine(source, sink);
    await again.syncRefs([
      { type: 'segment', id: 1 },
      { type: 'project', id: 1 },
      { type: 'team', id: 1 },
      { type: 'action', id: 1 },
      { type: 'donation', id: 1 },
    ]);
    expect(sink.upserts()).toHaveLength(writes);
    expect(again.report.records).toEqual([]);
    expect([...again.report.summary.values()].reduce((n, c) => n + c.unchanged, 0)).toBe(6);
  });

  it('reports just the changed fields of an update, and --force writes unchanged records too', async () => {
    const source = site();
    const sink = new FakeSink();
    await engine(source, sink).syncRefs([{ type: 'segment', id: 1 }]);
    source.add('segment', { id: 1, name: 'Segment one, renamed' });

    const changed = engine(source, sink);
    await changed.syncRefs([{ type: 'segment', id: 1 }]);
    expect(changed.report.records).toEqual([{ object: 'Svc_Segment__c', key: 'Segment_1', action: 'update', changes: { Name: { from: 'Segment 1', to: 'Segment one, renamed' } } }]);

    const forced = engine(source, sink, { force: true });
    await forced.syncRefs([{ type: 'segment', id: 1 }]);
    expect(forced.report.records).toEqual([{ object: 'Svc_Segment__c', key: 'Segment_1', action: 'update', changes: {} }]);
  });

  it('in a dry run reads but never writes, and reports what would be inserted', async () => {
    const sink = new FakeSink();
    const dry = engine(site(), sink, { dryRun: true });
    await dry.syncRefs([{ type: 'donation', id: 1 }]);
    expect(sink.upserts()).toEqual([]);
    expect(dry.report.records.map((r) => r.action)).toEqual(['insert', 'insert', 'insert', 'insert', 'insert', 'insert']);
  });
});

describe('engine on in-memory ports: relink', () => {
  it('carries a moved team down to its actions and their donations, through Salesforce alone', async () => {
    const source = site();
    const sink = new FakeSink();
    await engine(source, sink).syncRefs([
      { type: 'donation', id: 1 },
      { type: 'project', id: 2 },
    ]);
    source.add('team', team(1, 2, 1));
    source.fetches.length = 0;

    const moved = engine(source, sink);
    await moved.syncRefs([{ type: 'team', id: 1 }]);
    const project2 = sink.idOf('Svc_Project__c', 'Project_2');
    expect(sink.get('Svc_Team__c', 'Team_1')?.Svc_Project__c).toBe(project2);
    expect(sink.get('Svc_Action__c', 'Action_1')?.Svc_Project__c).toBe(project2);
    expect(sink.get('Svc_Donation__c', 'Donation_1')?.Svc_Project__c).toBe(project2);
    expect(moved.report.records.filter((r) => r.reason === 'parent moved: inherited lookups follow').map((r) => r.key)).toEqual(['Action_1', 'Donation_1']);
    // The descendants were found and written without asking the platform.
    expect(source.fetches.map((f) => f.type)).toEqual(['team']);
  });

  it('leaves descendants alone when the lookups did not change', async () => {
    const source = site();
    const sink = new FakeSink();
    await engine(source, sink).syncRefs([{ type: 'donation', id: 1 }]);
    source.add('team', { ...team(1, 1, 1), name: 'Team renamed' });
    await engine(source, sink).syncRefs([{ type: 'team', id: 1 }]);
    expect(sink.log.filter((c) => c.op === 'readWhere')).toEqual([]);
  });
});

describe('engine on in-memory ports: failure propagation', () => {
  it('fails a child whose parent could not be fetched, and never writes it unlinked', async () => {
    const source = site().failWith('action', 1, serverError('/v1/actions/1'));
    const sink = new FakeSink();
    const e = engine(source, sink);
    await e.syncRefs([{ type: 'donation', id: 1 }]);
    expect(sink.get('Svc_Donation__c', 'Donation_1')).toBeUndefined();
    expect(e.report.outcomeOf('Donation_1')).toEqual({ action: 'fail', reason: expect.stringContaining('parent Action_1 failed') });
    expect(e.report.records.find((r) => r.key === 'Donation_1')?.error?.code).toBe('PARENT_FAILED');
  });

  it("fails a child whose parent Salesforce refused, and reports the parent with Salesforce's error", async () => {
    const sink = new FakeSink().failKey('Action_1', { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'rejected by a rule' });
    const e = engine(site(), sink);
    await e.syncRefs([{ type: 'donation', id: 1 }]);
    expect(e.report.records.find((r) => r.key === 'Action_1')).toMatchObject({ action: 'fail', error: { code: 'FIELD_CUSTOM_VALIDATION_EXCEPTION' } });
    expect(e.report.records.find((r) => r.key === 'Donation_1')).toMatchObject({ action: 'fail', error: { code: 'PARENT_FAILED' } });
    // The action's questions are not written without their action either.
    expect(e.report.outcomeOf('ActionQuestion_1.1')).toEqual({ action: 'skip', reason: 'action Action_1 was not written' });
  });

  it('writes a child unlinked, with a warning and a missing parent, when the parent is gone from the platform', async () => {
    const source = site().add('donation', donation(2, 99));
    const sink = new FakeSink();
    const e = engine(source, sink);
    await e.syncRefs([{ type: 'donation', id: 2 }]);
    expect(sink.get('Svc_Donation__c', 'Donation_2')).toMatchObject({ Svc_Action__c: null, Svc_Segment__c: null });
    expect(e.report.missingParents).toEqual([{ object: 'Svc_Donation__c', key: 'Donation_2', parent: 'Action_99', reason: 'not found on the platform (deleted or never existed): 404 by id' }]);
    expect(e.report.warnings).toEqual([expect.stringContaining('Donation_2: parent Action_99 not found')]);
  });

  it('skips that child instead with --strict-parents', async () => {
    const source = site().add('donation', donation(2, 99));
    const sink = new FakeSink();
    const e = engine(source, sink, { strictParents: true });
    await e.syncRefs([{ type: 'donation', id: 2 }]);
    expect(sink.get('Svc_Donation__c', 'Donation_2')).toBeUndefined();
    expect(e.report.outcomeOf('Donation_2')).toEqual({ action: 'skip', reason: expect.stringContaining('(--strict-parents)') });
  });

  it('stops the run on a fatal platform error (a refused key): no record can succeed after it', async () => {
    const source = site().failWith('donation', 1, authError('/v1/donations/1'));
    const sink = new FakeSink();
    await expect(engine(source, sink).syncRefs([{ type: 'donation', id: 1 }])).rejects.toMatchObject({ kind: 'auth' });
    expect(sink.upserts()).toEqual([]);
  });

  it('keeps the other records of a batch when one fails in Salesforce', async () => {
    const source = site().add('donation', donation(2, 1));
    const sink = new FakeSink().failKey('Donation_1', { code: 'STRING_TOO_LONG', message: 'too long' });
    const e = engine(source, sink);
    await e.syncRefs([
      { type: 'donation', id: 1 },
      { type: 'donation', id: 2 },
    ]);
    expect(e.report.outcomeOf('Donation_1')?.action).toBe('fail');
    expect(e.report.outcomeOf('Donation_2')?.action).toBe('insert');
    expect(e.report.failed).toBe(1);
  });
});

describe('engine on in-memory ports: owners', () => {
  it('hands out the action owners it saw as a copy, never its own list', async () => {
    const source = site()
      .add('action', { ...action(1, 1, 1, 1), owner: { id: 7 } })
      .add('user', { id: 7, first_name: 'Ada' });
    const e = engine(source, new FakeSink());
    await e.syncRefs([{ type: 'action', id: 1 }]);
    const owners = e.ownersSeen();
    expect(owners).toEqual([{ userId: 7, actionId: 1 }]);
    owners.pop();
    expect(e.ownersSeen()).toEqual([{ userId: 7, actionId: 1 }]);
  });
});

describe('the in-memory sink is as strict as Salesforce', () => {
  it('refuses a field the object lacks and a lookup to a record it does not hold, and reads only the fields asked for', async () => {
    const sink = new FakeSink();
    const [unknown] = await sink.upsert('Svc_Segment__c', [{ SvcId__c: 'Segment_1', Nope__c: 'x' }]);
    expect(unknown).toMatchObject({ status: 'failed', error: { code: 'INVALID_FIELD' } });
    const [dangling] = await sink.upsert('Svc_Project__c', [{ SvcId__c: 'Project_1', Svc_Segment__c: 'SegX' }]);
    expect(dangling).toMatchObject({ status: 'failed', error: { code: 'INVALID_CROSS_REFERENCE_KEY' } });
    sink.seed('Svc_Segment__c', { SvcId__c: 'Segment_1', Name: 'One', Title__c: 'T' });
    const read = await sink.readByKeys('Svc_Segment__c', ['Segment_1', 'Segment_2'], ['Name']);
    expect([...read.values()]).toEqual([{ Id: sink.idOf('Svc_Segment__c', 'Segment_1'), SvcId__c: 'Segment_1', Name: 'One' }]);
  });
});
