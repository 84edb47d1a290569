/**
 * NPSP's keys and emails read together (soqlIn.ts queryPacked): a list's tail shares its query
 * with the next list's head, every query fits the URL limit (the emulator refuses one past it, as
 * Salesforce does), and every row matching a key or any of the four email fields is read.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import type { NpspOrg } from '../../../fixtures/salesforce/npsp.js';
import { queryIn, queryInAny, queryPacked } from '../../../src/sync/gifts/soqlIn.js';
import { setup } from '../../crm/helpers.js';

const EMAILS = ['Email', 'npe01__HomeEmail__c', 'npe01__WorkEmail__c', 'npe01__AlternateEmail__c'];

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('queryPacked', () => {
  it('reads keys and four-field emails in fewer queries than one list after the other, each within the limit', async () => {
    const s = await setup({ npsp: true });
    emu = s.emu;
    const org = s.emu.npsp as NpspOrg;
    const keys = Array.from({ length: 220 }, (_, i) => `P:donor.number${i}@example.org|lastname${i}|firstname${i}`);
    const emails = Array.from({ length: 150 }, (_, i) => `someone.else.number${i}@example.org`);
    const byKey = org.seed('Contact', { LastName: 'Keyed', SvcDonorKey__c: keys[17] as string });
    const byWork = org.seed('Contact', { LastName: 'Worked', npe01__WorkEmail__c: emails[140] as string });
    const byHome = org.seed('Contact', { LastName: 'Homed', npe01__HomeEmail__c: emails[3] as string });
    org.seed('Contact', { LastName: 'Other', Email: 'nobody@example.org' });
    const gifts = s.sink.gifts();
    const fields = ['Id', 'LastName'];

    let before = gifts.calls().query;
    const packed = await queryPacked(
      gifts,
      {
        fields,
        object: 'Contact',
        lists: [
          { anyOf: ['SvcDonorKey__c'], values: keys },
          { anyOf: EMAILS, values: emails },
        ],
      },
      true,
    );
    const packedQueries = gifts.calls().query - before;
    expect(packed.map((r) => r.Id).sort()).toEqual([byKey, byWork, byHome].sort());

    before = gifts.calls().query;
    await queryIn(gifts, { fields, object: 'Contact', field: 'SvcDonorKey__c', values: keys }, true);
    await queryInAny(gifts, { fields, object: 'Contact', anyOf: EMAILS, values: emails });
    const separate = gifts.calls().query - before;
    expect(packedQueries).toBeLessThan(separate);
  });

  it('makes no query for empty lists', async () => {
    const s = await setup({ npsp: true });
    emu = s.emu;
    const gifts = s.sink.gifts();
    const before = gifts.calls().query;
    expect(
      await queryPacked(gifts, {
        fields: ['Id'],
        object: 'Contact',
        lists: [
          { anyOf: ['SvcDonorKey__c'], values: [] },
          { anyOf: EMAILS, values: [] },
        ],
      }),
    ).toEqual([]);
    expect(gifts.calls().query - before).toBe(0);
  });
});
