/**
 * serve's hold on the org verdict (sync/servedVerdict.ts): the describes asked once a process
 * when none is kept, the start's check taken as that once, the kept file read otherwise, and the
 * org checked again a day after, on another org, after a drop, and after a refusal.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { ServedVerdict } from '../../src/sync/servedVerdict.js';
import type { KeptGuard } from '../../src/sync/keptGuard.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-sync-served-verdict-');
const ENV = { SVC_API_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'k-123456', SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-abcdef', SVC_PROJECTION: 'npsp' };
const ORG = { orgId: '00D5g000000AbcdEAA', instanceUrl: 'http://127.0.0.1:2' };
const NPSP: NonNullable<KeptGuard['choice']> = { setting: 'npsp', resolved: 'npsp', reason: 'the org checked', refundMode: 'payments' };

function served(start?: KeptGuard['choice']): { v: ServedVerdict; file: string; asks: () => number; ask: () => Promise<KeptGuard['choice']> } {
  const dir = tmp();
  const settings = settingsOf(loadRaw({ cwd: dir, env: ENV }));
  let n = 0;
  const ask = (): Promise<KeptGuard['choice']> => {
    n++;
    return Promise.resolve(NPSP);
  };
  return { v: new ServedVerdict(settings, path.join(dir, 'state.json'), start), file: path.join(dir, 'projection-org.json'), asks: () => n, ask };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('ServedVerdict', () => {
  it('asks once a process when nothing is kept, and keeps the verdict', async () => {
    const s = served();
    for (let i = 0; i < 3; i++) expect((await s.v.forBatch(ORG, s.ask)).choice).toEqual(NPSP);
    expect(s.asks()).toBe(1);
    expect(JSON.parse(fs.readFileSync(s.file, 'utf8'))).toMatchObject({ orgId: ORG.orgId, choice: { resolved: 'npsp' } });
  });

  it("takes the start's check as that once, and reads a verdict kept by another process without asking", async () => {
    const s = served(NPSP);
    await s.v.forBatch(ORG, s.ask);
    expect(s.asks()).toBe(0);
    // The start kept its verdict if it could: the first batch does not write it again.
    expect(fs.existsSync(s.file)).toBe(false);
    const first = served();
    await first.v.forBatch(ORG, first.ask);
    const dir = path.dirname(first.file);
    const second = new ServedVerdict(settingsOf(loadRaw({ cwd: dir, env: ENV })), path.join(dir, 'state.json'));
    expect((await second.forBatch(ORG, first.ask)).choice).toEqual(NPSP);
    expect(first.asks()).toBe(1);
  });

  it('asks again on another org, a day after the check, after a drop and after a refusal', async () => {
    const s = served();
    await s.v.forBatch(ORG, s.ask);
    await s.v.forBatch({ ...ORG, instanceUrl: 'https://other.my.salesforce.com' }, s.ask);
    expect(s.asks()).toBe(2);
    const g = await s.v.forBatch(ORG, s.ask);
    expect(s.asks()).toBe(3);
    g.verdict?.drop();
    expect(fs.existsSync(s.file)).toBe(false);
    await s.v.forBatch(ORG, s.ask);
    expect(s.asks()).toBe(4);
    jest.useFakeTimers({ now: Date.now() + 24 * 60 * 60 * 1000 + 1000, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    await s.v.forBatch(ORG, s.ask);
    expect(s.asks()).toBe(5);
    jest.useRealTimers();
    const refused = served();
    await expect(refused.v.forBatch(ORG, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await refused.v.forBatch(ORG, refused.ask);
    expect(refused.asks()).toBe(1);
  });
});
