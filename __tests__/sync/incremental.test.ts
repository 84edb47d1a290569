import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../src/model/errors.js';
import { completedState, retriesDue, startingPoint } from '../../src/sync/mirror/incremental.js';
import { RunReport } from '../../src/sync/report/report.js';
import type { RunProgress, SyncState } from '../../src/sync/run/state.js';

const run = (types: RunProgress['types'], startedAt = '2026-11-22T03:00:00.000Z'): RunProgress => ({ startedAt, since: null, types, completed: [...types], pagesDone: {} });

describe('incremental sync bookkeeping', () => {
  it('moves only the watermarks of the types a run scanned', () => {
    const state: SyncState = { version: 1, watermarks: { donation: '2026-11-01T00:00:00.000Z', action: '2026-11-01T00:00:00.000Z' } };
    const next = completedState(state, run(['donation']), new RunReport());
    // The run started at 03:00; its watermark is five minutes earlier (the overlap).
    expect(next.watermarks).toEqual({ donation: '2026-11-22T02:55:00.000Z', action: '2026-11-01T00:00:00.000Z' });
  });

  it('continues from the oldest watermark of the chosen types, so a --types run leaves nothing behind', () => {
    const state: SyncState = { version: 1, watermarks: { donation: '2026-11-20T00:00:00.000Z', action: '2026-11-01T00:00:00.000Z' } };
    expect(startingPoint({ kind: 'continue' }, state, ['action', 'donation'], 'state.json')).toBe('2026-11-01T00:00:00.000Z');
    expect(startingPoint({ kind: 'continue' }, state, ['donation'], 'state.json')).toBe('2026-11-20T00:00:00.000Z');
    expect(() => startingPoint({ kind: 'continue' }, state, ['donation', 'team'], 'state.json')).toThrow(ConfigError);
    expect(() => startingPoint({ kind: 'continue' }, state, ['donation', 'team'], 'state.json')).toThrow(/no watermark in state.json yet for team/);
    expect(startingPoint({ kind: 'all' }, state, ['team'], 'state.json')).toBeNull();
    expect(startingPoint({ kind: 'since', since: '2026-01-01T00:00:00.000Z' }, state, ['team'], 'state.json')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('keeps failed records to retry by id, and earlier failures of types the run did not cover', () => {
    const report = new RunReport();
    report.add({ object: 'Svc_Donation__c', key: 'Donation_5', action: 'fail', error: { code: 'X', message: 'x' } });
    report.add({ object: 'Svc_ActionQuestion__c', key: 'ActionQuestion_7.2', action: 'fail', error: { code: 'X', message: 'x' } });
    report.add({ object: 'Svc_Donation__c', key: 'Donation_6', action: 'insert' });
    const state: SyncState = {
      version: 1,
      retry: [
        { type: 'team', id: 3 },
        { type: 'donation', id: 6 },
      ],
    };
    expect(completedState(state, run(['donation', 'action']), report).retry).toEqual([
      { type: 'team', id: 3 },
      { type: 'donation', id: 5 },
      { type: 'action', id: 7 },
    ]);
  });

  it('retries earlier failures the scan did not already handle', () => {
    const report = new RunReport();
    report.add({ object: 'Svc_Donation__c', key: 'Donation_6', action: 'update' });
    const state: SyncState = {
      version: 1,
      retry: [
        { type: 'donation', id: 6 },
        { type: 'donation', id: 9 },
        { type: 'team', id: 3 },
      ],
    };
    expect(retriesDue(state, ['donation'], (key) => report.outcomeOf(key) !== undefined)).toEqual([{ type: 'donation', id: 9 }]);
  });
});

describe('retries and the sync log', () => {
  it('an earlier failure an admin marked Ignored in the org is not retried by id', () => {
    const state: SyncState = {
      version: 1,
      retry: [
        { type: 'donation', id: 1 },
        { type: 'donation', id: 2 },
      ],
    };
    expect(retriesDue(state, ['donation'], () => false, new Set(['donation_2']))).toEqual([{ type: 'donation', id: 1 }]);
  });
});
