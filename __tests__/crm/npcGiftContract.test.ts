/**
 * The gift mapping and the strict NPC org agree: every key field of PROJECTION.md §0 exists as a
 * unique external id of the right length, every field the gift table sends exists on
 * GiftTransaction, and the records the mapping makes for the §7 donations are accepted as sent
 * (required fields, restricted picklists, lookups by external id) and read back field by field.
 * The order is the writer's (§6.1): donors, campaigns, gifts, soft credits, refunds.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { startSalesforceEmulator, type Emulator } from '../../fixtures/salesforce/emulator.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { donorsOf, fundraiserDonor } from '../../src/mapping/gifts/donor.js';
import { fundraiserSlot, giftOf, GIFT_FIELDS } from '../../src/mapping/gifts/gift.js';
import { NPC_KEY_FIELDS } from '../../src/mapping/gifts/keyFields.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function upsert(e: Emulator, object: string, ext: string, records: Array<Record<string, unknown>>): Promise<string[]> {
  const res = await fetch(`${e.url}/services/data/v${e.apiVersion}/composite/sobjects/${object}/${ext}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${e.accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ allOrNone: false, records: records.map((r) => ({ attributes: { type: object }, ...r })) }),
  });
  const body = (await res.json()) as Array<{ success: boolean; errors: Array<{ statusCode: string; message: string }> }>;
  return body.map((r) => (r.success ? 'ok' : `${r.errors[0]?.statusCode}: ${r.errors[0]?.message}`));
}

const base: ApiDonation = { id: 1, site_id: 6, created_at: '2016-03-30T14:41:48Z', payment_status: 'paid', currency: 'EUR', total_amount: '10.0', donation_amount: '10.0' };
const SITE: ApiDonation[] = [
  {
    ...base,
    id: 1,
    first_name: 'John',
    last_name: 'Doe',
    email: 'john.doe@kentaa.nl',
    donation_amount: '15.0',
    transaction_costs: '0.4',
    total_amount: '25.4',
    action_id: 7,
    payment_method: 'creditcard',
    payment_status: 'refunded',
    payment_status_at: '2016-04-02T23:30:00Z',
  },
  { ...base, id: 4, first_name: 'Karel', last_name: 'Smit', payment_method: 'ideal' },
  {
    ...base,
    id: 5,
    company: 'Acme BV',
    email: 'acme@x.nl',
    first_name: 'Eva',
    last_name: 'Bos',
    address: { zipcode: '1234 AB', city: 'Utrecht', country: 'NL', street: 'Dorpsstraat', house_number: '5' },
  },
  { ...base, id: 7, action_id: 7, donation_amount: '3.0' },
  { ...base, id: 9, email: 'n@x.nl', last_name: 'N', payment_status: 'chargedback', payment_status_at: '2016-05-20T10:00:00Z', birthday: '1980-02-03T00:00:00Z' },
];

describe('the gift mapping against the strict NPC org', () => {
  it('finds every §0 key field as a unique external id, and every gift field on GiftTransaction', async () => {
    emu = await startSalesforceEmulator({ npc: true });
    for (const k of NPC_KEY_FIELDS) {
      const d = emu.npc?.describe(k.object) as { fields: Array<{ name: string; externalId: boolean; unique: boolean; length: number; type: string }> };
      const f = d.fields.find((x) => x.name === k.field);
      if (k.type.kind === 'key') expect(f).toMatchObject({ externalId: true, unique: true, length: k.type.length });
      else expect(f?.type).toBe('boolean');
    }
    const gtFields = (emu.npc?.describe('GiftTransaction') as { fields: Array<{ name: string }> }).fields.map((f) => f.name);
    // Donor and Campaign are sent as relationships by external id: their fields are DonorId and CampaignId.
    for (const f of GIFT_FIELDS) expect(gtFields).toContain(['Donor', 'Campaign'].includes(f.field) ? `${f.field}Id` : f.field);
  });

  it('accepts the §7 records as the mapping makes them, and reads them back field by field', async () => {
    const e = await startSalesforceEmulator({ npc: true });
    emu = e;
    const npc = e.npc as NonNullable<Emulator['npc']>;
    const personType = npc.recordTypeId('PersonAccount');
    const plans = SITE.map((d) => ({ d, donors: donorsOf(d, 6) }));
    const piet = fundraiserDonor({ first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl' });
    const donors = new Map<string, Record<string, unknown>>();
    for (const p of [...plans.flatMap(({ donors: x }) => [x.donor, x.companyPerson]), piet]) {
      if (p) donors.set(p.key, { SvcDonorKey__c: p.key, ...(p.person ? { RecordTypeId: personType } : {}), ...p.fields });
    }
    expect(await upsert(e, 'Account', 'SvcDonorKey__c', [...donors.values()])).toEqual([...donors.keys()].map(() => 'ok'));
    expect(await upsert(e, 'Campaign', 'SvcCampaignKey__c', [{ SvcCampaignKey__c: 'Action_7', Name: 'Piet Jansen', IsActive: true }])).toEqual(['ok']);
    const gifts = plans.map(({ d, donors: x }) => giftOf(d, x, { timeZone: 'Europe/Amsterdam', orgCurrency: 'EUR' }));
    const written = gifts.flatMap((g) => ('gift' in g ? [g] : []));
    expect(written).toHaveLength(SITE.length);
    expect(
      await upsert(
        e,
        'GiftTransaction',
        'SvcGiftKey__c',
        written.map((g) => g.gift),
      ),
    ).toEqual(written.map(() => 'ok'));
    const slots = written.filter((g) => g.fundraiserActionId === 7).map((g) => fundraiserSlot(g.gift.SvcGiftKey__c as string, piet?.key ?? ''));
    expect(await upsert(e, 'GiftSoftCredit', 'SvcSoftCreditKey__c', slots)).toEqual(['ok', 'ok']);
    const refunds = written.flatMap((g) => (g.refund ? [g.refund] : []));
    expect(await upsert(e, 'GiftRefund', 'SvcRefundKey__c', refunds)).toEqual(['ok', 'ok']);

    const account = (key: string): Record<string, unknown> | undefined => npc.records('Account').find((a) => a.SvcDonorKey__c === key);
    expect(account('P:john.doe@kentaa.nl:doe:john')).toMatchObject({ Name: 'John Doe', IsPersonAccount: true, PersonEmail: 'john.doe@kentaa.nl' });
    expect(account('O:acme bv:acme@x.nl')).toMatchObject({ Name: 'Acme BV', IsPersonAccount: false, BillingStreet: 'Dorpsstraat 5' });
    expect(account('A:6')).toMatchObject({ Name: 'Anonymous', LastName: 'Anonymous', IsPersonAccount: true });
    expect(account('P:n@x.nl:n:')).toMatchObject({ PersonBirthdate: '1980-02-03' });
    const gt = npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === 'Donation_1');
    expect(gt).toMatchObject({
      DonorId: account('P:john.doe@kentaa.nl:doe:john')?.Id,
      OriginalAmount: 15.4,
      DonorCoverAmount: 0.4,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      GiftType: 'Individual',
      PaymentMethod: 'Credit Card',
    });
    expect(npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === 'Donation_5')).toMatchObject({ DonorId: account('O:acme bv:acme@x.nl')?.Id, GiftType: 'Organizational' });
    expect(npc.records('GiftSoftCredit').map((s) => [s.SvcSoftCreditKey__c, s.RecipientId, s.Role])).toEqual([
      ['Donation_1:fundraiser', account('P:piet@x.nl:jansen:piet')?.Id, 'Solicitor'],
      ['Donation_7:fundraiser', account('P:piet@x.nl:jansen:piet')?.Id, 'Solicitor'],
    ]);
    expect(npc.records('GiftRefund').map((r) => [r.SvcRefundKey__c, r.Amount, r.Date, r.Reason ?? null])).toEqual([
      ['Donation_1', 15.4, '2016-04-03', null],
      ['Donation_9', 10, '2016-05-20', 'Chargeback'],
    ]);
  });
});
