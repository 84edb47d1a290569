/**
 * SITES.md decision 2: the org's daily API allowance is one, shared by every connection of the
 * org. A connection's guard goes by the freshest reading any of them took: in one process (two
 * sinks on one org, as `serve` holds them) and across processes (a file per org in the
 * deployment's state folder). A run's own session check still reads the org's figure itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { ORG_ID, startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import { connectSalesforce } from '../../src/crm/connection.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { allowanceKey } from '../../src/crm/orgAllowance.js';
import { ApiLimitError } from '../../src/model/errors.js';
import { FAST, settingsFor } from './helpers.js';
import { tempFolders } from '../support/tempFolders.js';

const temp = tempFolders('svc-allowance-');
let emu: Emulator;
beforeAll(async () => {
  emu = await startSalesforceEmulator();
});
afterAll(async () => emu.close());

const sinkOn = async (e: Emulator, allowanceDir?: string): Promise<SalesforceSink> =>
  new SalesforceSink(await connectSalesforce(settingsFor(e)), { bulkThreshold: 2000, maxApiUsage: 0.9, ...FAST, ...(allowanceDir === undefined ? {} : { allowanceDir }) });

describe("the org's daily allowance, shared by its connections", () => {
  it('in one process: what one connection read refuses the other before it calls', async () => {
    const north = await sinkOn(emu);
    const south = await sinkOn(emu);
    await north.verifySession();
    await south.verifySession();
    emu.setApiUsage(95_000);
    // North's next call brings the org's figure back; the call after it is refused.
    await north.readByKeys('Svc_Segment__c', ['Segment_1'], []);
    await expect(north.readByKeys('Svc_Segment__c', ['Segment_1'], [])).rejects.toBeInstanceOf(ApiLimitError);
    const before = emu.requests().length;
    const refused = await south.readByKeys('Svc_Segment__c', ['Segment_1'], []).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiLimitError);
    expect((refused as Error).message).toMatch(/^stopping: 95001 of the org's 100000 daily API requests are used \(95%\) \(as another connection of this org read it \d+ s ago\), at or above/);
    expect(emu.requests().length).toBe(before);
    emu.setApiUsage(0);
  });

  it("across processes: a reading in the state folder's file refuses a call; the session check reads the org itself", async () => {
    const other = await startSalesforceEmulator();
    try {
      const dir = temp();
      const key = allowanceKey(ORG_ID, () => other.url)!;
      const file = path.join(dir, `allowance-${key}.json`);
      fs.writeFileSync(file, JSON.stringify({ used: 96_000, limit: 100_000, at: new Date().toISOString() }), { mode: 0o600 });
      const sink = await sinkOn(other, dir);
      const before = other.requests().length;
      await expect(sink.readByKeys('Svc_Segment__c', ['Segment_1'], [])).rejects.toThrow(/96000 of the org's 100000 .*another connection of this org/);
      expect(other.requests().length).toBe(before);
      // A run's start asks the org (the window may have rolled over since): its answer is fresher and wins.
      await expect(sink.verifySession()).resolves.toMatchObject({ instanceUrl: other.url });
      await expect(sink.readByKeys('Svc_Segment__c', ['Segment_1'], [])).resolves.toBeDefined();
      // And is kept for the others, owner-only.
      const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { used: number; limit: number };
      expect(kept).toMatchObject({ limit: 100_000 });
      expect(kept.used).toBeLessThan(10);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await other.close();
    }
  });

  it('a state folder other users can write is neither read nor written', async () => {
    const other = await startSalesforceEmulator();
    try {
      const dir = temp();
      fs.chmodSync(dir, 0o777);
      const key = allowanceKey(ORG_ID, () => other.url)!;
      const file = path.join(dir, `allowance-${key}.json`);
      fs.writeFileSync(file, JSON.stringify({ used: 99_000, limit: 100_000, at: new Date().toISOString() }));
      const sink = await sinkOn(other, dir);
      await expect(sink.readByKeys('Svc_Segment__c', ['Segment_1'], [])).resolves.toBeDefined();
      expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { used: number }).used).toBe(99_000);
    } finally {
      await other.close();
    }
  });
});
