/**
 * The projection's `IN` reads split to fit Salesforce's URL limit as the client sends the URL: the
 * quotes around each value are sent percent-encoded (three characters each), so a split that
 * counted them as one sent a query past 16 KB, refused whole (414), and failed every gift of a
 * large batch (a first sync of the medium bench site).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import { readIn } from '../../../src/sync/gifts/reads.js';
import { setup } from '../../crm/helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('readIn', () => {
  it('reads 3,000 keys in queries that each fit the URL limit', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const keys = Array.from({ length: 3000 }, (_, i) => `Donation_${100_000 + i}`);
    const before = s.sink.calls().query;
    expect(await readIn(s.sink.gifts(), 'GiftTransaction', ['Id', 'SvcGiftKey__c'], 'SvcGiftKey__c', keys)).toEqual([]);
    const queries = s.sink.calls().query - before;
    // 3,000 keys of 16 characters: about 58 KB encoded, so 4 or 5 queries, not one per key.
    expect(queries).toBeGreaterThanOrEqual(4);
    expect(queries).toBeLessThanOrEqual(6);
  });
});
