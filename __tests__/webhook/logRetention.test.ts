/**
 * serve's daily clean-up of the sync log, on its own: at most once a day, one in flight,
 * the day's mark shared with sync, a failure said and tried again an hour later (not at every
 * batch), and a shared org's "kept" line said with the day's clean-up only.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SYNC_LOG } from '../../src/config/settings.js';
import type { RetentionDone, SyncLogPort } from '../../src/model/syncLog.js';
import { LogRetention } from '../../src/webhook/worker/logRetention.js';
import { tempFolders } from '../support/tempFolders.js';

const tempDir = tempFolders('svc-sync-log-retention-');
const HOUR = 60 * 60 * 1000;

/** A log whose retention answers `answer` (or throws it), counting the calls. */
function logAnswering(answer: () => RetentionDone): SyncLogPort & { asked: number } {
  const log = {
    asked: 0,
    retryRequested: () => Promise.resolve({ keys: [], ignored: [] }),
    refuseRetries: () => Promise.resolve(),
    record: () => Promise.reject(new Error('not used')),
    retention: () => {
      log.asked += 1;
      return Promise.resolve().then(answer);
    },
    calls: () => 0,
  };
  return log;
}

function setUp(answer: () => RetentionDone): { retention: LogRetention; log: ReturnType<typeof logAnswering>; said: string[]; clock: { now: number }; dir: string } {
  const dir = tempDir();
  const said: string[] = [];
  const clock = { now: Date.parse('2026-12-07T10:00:00Z') };
  const retention = new LogRetention({ settings: DEFAULT_SYNC_LOG, stateDir: dir, say: (line, level = 'info') => said.push(`${level}: ${line}`), now: () => clock.now });
  return { retention, log: logAnswering(answer), said, clock, dir };
}

describe('LogRetention', () => {
  it('cleans up once, then not again the same day (nothing asked), and again the next day', async () => {
    const { retention, log, said, clock, dir } = setUp(() => ({ deleted: 3, failed: 0, calls: 3 }));
    retention.due(log);
    retention.due(log); // one in flight: not started twice
    await retention.settled();
    expect(log.asked).toBe(1);
    expect(said).toEqual(['info: salesforce log: retention deleted 3 old record(s) (runs past 90 days, resolved errors past 30)']);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'salesforce-log.json'), 'utf8'))).toEqual({ retentionAt: '2026-12-07T10:00:00.000Z' });
    clock.now += 23 * HOUR;
    retention.due(log);
    await retention.settled();
    expect(log.asked).toBe(1);
    clock.now += 2 * HOUR;
    retention.due(log);
    await retention.settled();
    expect(log.asked).toBe(2);
  });

  it("a day's mark sync left: nothing asked", async () => {
    const { retention, log, clock, dir } = setUp(() => ({ deleted: 0, failed: 0, calls: 2 }));
    fs.writeFileSync(path.join(dir, 'salesforce-log.json'), JSON.stringify({ retentionAt: new Date(clock.now - HOUR).toISOString() }));
    retention.due(log);
    await retention.settled();
    expect(log.asked).toBe(0);
  });

  it('a failure is said as a warning and tried again an hour later, not at the next batch', async () => {
    let fail = true;
    const { retention, log, said, clock } = setUp(() => {
      if (fail) throw new Error('UNABLE_TO_LOCK_ROW: try again');
      return { deleted: 0, failed: 0, calls: 2 };
    });
    retention.due(log);
    await retention.settled();
    expect(said).toEqual(['warn: salesforce log: retention failed (UNABLE_TO_LOCK_ROW: try again); tried again in an hour']);
    clock.now += 10 * 60 * 1000;
    retention.due(log);
    await retention.settled();
    expect(log.asked).toBe(1);
    fail = false;
    clock.now += HOUR;
    retention.due(log);
    await retention.settled();
    expect(log.asked).toBe(2);
    // Nothing deleted: nothing more said.
    expect(said).toHaveLength(1);
  });

  it("a shared org that cannot tell the sites' runs apart: the kept line, as a warning, with the day's clean-up", async () => {
    const { retention, log, said } = setUp(() => ({ deleted: 0, failed: 0, calls: 1, kept: 'salesforce log: no run record deleted: ...' }));
    retention.due(log);
    await retention.settled();
    expect(said).toEqual(['warn: salesforce log: no run record deleted: ...']);
  });
});
