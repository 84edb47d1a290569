/** Issue 37, row 5: whose user fields each action's owner fields hold, kept by user id in the state folder. */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import { OwnerIds, ownersFileIn } from '../../src/sync/mirror/ownerIds.js';
import { RunReport } from '../../src/sync/report/report.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-owner-ids-');

const FIELDS = { sent: 1, hash: 'x' };

/** A run's owners as the engine hands them: seen, settled, and the action outcomes. */
function run(seen: Array<[number, number]>, settled: Array<[number, number]>, written: number[]): Parameters<OwnerIds['record']>[0] {
  const report = new RunReport();
  for (const id of written) report.add({ object: 'Svc_Action__c', key: `Action_${id}`, action: 'update' });
  return {
    report,
    ownersSeen: () => seen.map(([actionId, userId]) => ({ actionId, userId })),
    ownersSettled: () => settled.map(([actionId, userId]) => ({ actionId, userId, fields: FIELDS })),
  };
}

describe('OwnerIds', () => {
  it('records the user of each action written with its owner settled, forgets an action met without, and reads it back', () => {
    const dir = tmp();
    const file = ownersFileIn(dir);
    new OwnerIds(file)
      .record(
        run(
          [
            [1, 10],
            [2, 20],
            [3, 30],
          ],
          [
            [1, 10],
            [2, 20],
            [3, 30],
          ],
          [1, 2],
        ),
      )
      .save();
    const back = new OwnerIds(file);
    expect([back.get(1), back.get(2), back.get(3)]).toEqual([10, 20, undefined]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Action 2 met again, its user not read (not settled): no longer known.
    back.record(run([[2, 21]], [], [2])).save();
    expect(new OwnerIds(file).get(2)).toBeUndefined();
    expect(new OwnerIds(file).get(1)).toBe(10);
  });

  it('two processes on one file (sync beside serve): each merges its own changes, and sees the other after a refresh', () => {
    const file = ownersFileIn(tmp());
    const serve = new OwnerIds(file);
    const sync = new OwnerIds(file);
    sync.record(run([[1, 10]], [[1, 10]], [1])).save();
    serve.record(run([[2, 20]], [[2, 20]], [2])).save();
    expect([new OwnerIds(file).get(1), new OwnerIds(file).get(2)]).toEqual([10, 20]);
    // Sync writes action 2 under another user: serve, refreshed before its next batch, knows it.
    fs.utimesSync(file, new Date(0), new Date(0));
    sync.record(run([[2, 21]], [[2, 21]], [2])).save();
    expect(serve.refresh().get(2)).toBe(21);
  });

  it('a file that is not ours, or none, knows nothing', () => {
    const dir = tmp();
    expect(new OwnerIds(ownersFileIn(dir)).get(1)).toBeUndefined();
    fs.writeFileSync(ownersFileIn(dir), '{"owners": {"1": "10", "01": 5, "x": 3');
    expect(new OwnerIds(ownersFileIn(dir)).get(1)).toBeUndefined();
    fs.writeFileSync(ownersFileIn(dir), '{"owners": {"1": "10", "01": 5, "2": 7}}');
    const ids = new OwnerIds(ownersFileIn(dir));
    expect([ids.get(1), ids.get(2)]).toEqual([undefined, 7]);
  });
});
