import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/model/errors.js';
import { StateFile, WATERMARK_OVERLAP_MS, watermarkFrom } from '../../src/sync/run/state.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-state-');
const tmpFile = (): string => path.join(tmp(), 'sub', 'state.json');

describe('sync state file', () => {
  it('starts empty when the file does not exist, and round-trips what it writes', () => {
    const f = new StateFile(tmpFile());
    expect(f.read()).toEqual({ version: 1 });
    const state = {
      version: 1 as const,
      watermarks: { donation: '2026-11-01T00:00:00.000Z' },
      run: { startedAt: '2026-11-02T00:00:00.000Z', since: null, types: ['donation' as const], completed: [], pagesDone: { donation: 3 } },
    };
    f.write(state);
    expect(f.read()).toEqual(state);
    expect(fs.readdirSync(path.dirname(f.file))).toEqual(['state.json']);
  });

  it('refuses a corrupt or foreign file with a one-line error naming it', () => {
    const file = tmpFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"version":1,');
    expect(() => new StateFile(file).read()).toThrow(ConfigError);
    expect(() => new StateFile(file).read()).toThrow(/state\.json: not valid JSON/);
    fs.writeFileSync(file, JSON.stringify({ version: 1, run: { startedAt: 'x', since: null, types: ['users'], completed: [], pagesDone: {} } }));
    expect(() => new StateFile(file).read()).toThrow(/run\.startedAt must be an ISO 8601 date-time/);
  });

  it('keeps the parents a run found absent, and refuses a malformed entry naming it', () => {
    const file = tmpFile();
    const run = { startedAt: '2026-11-02T00:00:00.000Z', since: null, types: ['donation' as const], completed: [], pagesDone: {} };
    const f = new StateFile(file);
    const absent = [
      { key: 'Action_5001', by: 'id' as const },
      { key: 'Team_1002', by: 'scan' as const },
    ];
    f.write({ version: 1, run: { ...run, absent } });
    expect(f.read().run?.absent).toEqual(absent);
    fs.writeFileSync(file, JSON.stringify({ version: 1, run: { ...run, absent: [{ key: 'Action_5001', by: 'guess' }] } }));
    expect(() => f.read()).toThrow(/run\.absent\[0\] must be \{"key": <a record key>, "by": "id" \| "scan"\}/);
    fs.writeFileSync(file, JSON.stringify({ version: 1, run: { ...run, absent: [{ key: 'Nothing_1', by: 'id' }] } }));
    expect(() => f.read()).toThrow(/run\.absent\[0\]/);
  });

  it('refuses a watermark in the future (a run from it would read nothing), and allows the overlap of a clock set a little back', () => {
    const file = tmpFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ version: 1, watermarks: { donation: '2099-01-01T00:00:00Z' } }));
    expect(() => new StateFile(file).read()).toThrow(/watermarks\.donation "2099-01-01T00:00:00Z" lies in the future: a run from it would read nothing/);
    const soon = new Date(Date.now() + 60_000).toISOString();
    fs.writeFileSync(file, JSON.stringify({ version: 1, watermarks: { donation: soon } }));
    expect(new StateFile(file).read().watermarks?.donation).toBe(soon);
  });

  it('sets the watermark a few minutes before the run started', () => {
    expect(watermarkFrom('2026-11-22T02:00:00.000Z')).toBe('2026-11-22T01:55:00.000Z');
    expect(WATERMARK_OVERLAP_MS).toBe(5 * 60_000);
  });
});
