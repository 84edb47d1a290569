/**
 * The paged read behind a page owner change (ownerSlots.ts): the gifts of a campaign list read
 * 200 at a time in Id order on the real client against the strict NPC emulator, so a page with
 * more gifts than that is never held whole, and every gift is seen exactly once.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import { queryInPages } from '../../../src/sync/gifts/soqlIn.js';
import { setup } from '../../crm/helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('queryInPages', () => {
  it('reads 450 gifts of two campaigns in pages of 200, 200 and 50, each gift once, one query a page', async () => {
    const s = await setup({ npc: true });
    emu = s.emu;
    const npc = s.emu.npc;
    if (!npc) throw new Error('no NPC org');
    const person = npc.recordTypeId('PersonAccount');
    const donor = npc.seed('Account', { RecordTypeId: person, LastName: 'Doe' });
    const [a, b, other] = ['Action_1', 'Action_2', 'Action_3'].map((key) => npc.seed('Campaign', { Name: key, SvcCampaignKey__c: key }));
    const gift = (i: number, campaign: string): string =>
      npc.seed('GiftTransaction', {
        Name: `Gift ${i}`,
        SvcGiftKey__c: `Donation_${i}`,
        DonorId: donor,
        OriginalAmount: 1,
        TransactionDate: '2016-01-01',
        Status: 'Paid',
        PaymentMethod: 'Credit Card',
        CampaignId: campaign,
      });
    const want: string[] = [];
    for (let i = 1; i <= 450; i++) want.push(gift(i, i % 2 === 0 ? (a as string) : (b as string)));
    gift(999, other as string);
    const gifts = s.sink.gifts();
    const before = gifts.calls().total;
    const pages: number[] = [];
    const seen: string[] = [];
    await queryInPages(gifts, { fields: ['SvcGiftKey__c', 'CampaignId'], object: 'GiftTransaction', field: 'CampaignId', values: [a as string, b as string] }, 200, async (rows) => {
      pages.push(rows.length);
      seen.push(...rows.map((r) => String(r.Id)));
    });
    expect(pages).toEqual([200, 200, 50]);
    expect(seen.sort()).toEqual([...want].sort());
    expect(gifts.calls().total - before).toBe(3);
  });
});
