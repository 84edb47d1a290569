/**
 * The pure part of the Nonprofit Cloud projection against PROJECTION.md §7 (site 6, Europe/Amsterdam,
 * org currency EUR; action 7 owned by Piet Jansen <piet@x.nl>): keys, donors and the gift records,
 * field by field. Matching against the org and the writes are the writer's (not in this slice).
 */
import { describe, expect, it } from '@jest/globals';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { donorsOf, fundraiserDonor, streetOf } from '../../src/mapping/gifts/donor.js';
import { fundraiserSlot, giftOf, paymentMethodOf, type GiftPlan } from '../../src/mapping/gifts/gift.js';
import { boundedKey, firstNamesCompatible, fold, organisationKey, personKey } from '../../src/mapping/gifts/normalise.js';
import { giftAmount, localDate } from '../../src/mapping/gifts/amounts.js';

const OPTS = { timeZone: 'Europe/Amsterdam', orgCurrency: 'EUR' };
const base: ApiDonation = {
  id: 1,
  site_id: 6,
  created_at: '2016-03-30T14:41:48Z',
  updated_at: '2016-03-30T14:41:48Z',
  payment_status: 'paid',
  currency: 'EUR',
  total_amount: '10.0',
  donation_amount: '10.0',
};
const don = (over: Partial<ApiDonation>): ApiDonation => ({ ...base, ...over });
const planOf = (d: ApiDonation): GiftPlan => giftOf(d, donorsOf(d, 6), OPTS);
const gift = (d: ApiDonation): NonNullable<Extract<GiftPlan, { gift: unknown }>> => {
  const p = planOf(d);
  if ('skip' in p) throw new Error(`skipped: ${p.reason}`);
  return p;
};

const E1 = don({
  id: 1,
  first_name: 'John',
  last_name: 'Doe',
  email: 'john.doe@kentaa.nl',
  amount: '15.0',
  donation_amount: '15.0',
  transaction_costs: '0.4',
  registration_fee_amount: '10.0',
  total_amount: '25.4',
  action_id: 7,
  payment_method: 'creditcard',
  transaction_id: 'tx-1',
});

describe('normalisation and keys (§1.2)', () => {
  it('folds case, accents and inner spaces; blank is null', () => {
    expect(fold('  Émile   van  DIJK ')).toBe('emile van dijk');
    expect(fold('   ')).toBeNull();
  });

  it('builds person and organisation keys, and hashes a key over 255 units', () => {
    expect(personKey('john.doe@kentaa.nl', 'Doe', 'John')).toBe('P:john.doe@kentaa.nl:doe:john');
    expect(personKey('a@x.nl', null, null)).toBe('P:a@x.nl::');
    expect(organisationKey('Acme BV', 'acme@x.nl', null, null)).toBe('O:acme bv:acme@x.nl');
    expect(organisationKey('Acme BV', null, '1234 AB', '5')).toBe('O:acme bv:1234 ab:5');
    expect(organisationKey('Acme BV', null, '1234 AB', null)).toBeUndefined();
    const long = `P:${'a'.repeat(300)}@x.nl::`;
    expect(boundedKey(long)).toMatch(/^H:[0-9a-f]{64}$/);
  });

  it('N8: first names are compatible when equal, one blank, or one an initial of the other', () => {
    expect(firstNamesCompatible('J.', 'John')).toBe(true);
    expect(firstNamesCompatible('john', 'J')).toBe(true);
    expect(firstNamesCompatible(null, 'Jane')).toBe(true);
    expect(firstNamesCompatible('Jane', 'John')).toBe(false);
    expect(firstNamesCompatible('K.', 'John')).toBe(false);
  });
});

describe('amounts and dates (§2.1, N2)', () => {
  it('G = D + C in cents from decimal strings, half-up; the registration fee is no gift', () => {
    expect(giftAmount(E1)).toEqual({ gift: 1540, cover: 40 });
    expect(giftAmount(don({ donation_amount: undefined, amount: '25.4' }))).toEqual({ gift: 2540, cover: 0 });
    expect(giftAmount(don({ donation_amount: '1.005' }))).toEqual({ gift: 101, cover: 0 });
    expect(giftAmount(don({ donation_amount: 12.5 }))).toEqual({ gift: 1250, cover: 0 });
  });

  it('dates are calendar dates in the gift time zone', () => {
    expect(localDate('2016-04-02T23:30:00Z', 'Europe/Amsterdam')).toBe('2016-04-03');
    expect(localDate('garbage', 'Europe/Amsterdam')).toBeUndefined();
  });
});

describe('§7 cases', () => {
  it('E1: person donor, gift 15.40 with cover 0.40, campaign Action_7, fundraiser slot to Piet', () => {
    const donors = donorsOf(E1, 6);
    expect(donors.donor).toMatchObject({ kind: 'person', key: 'P:john.doe@kentaa.nl:doe:john', fields: { FirstName: 'John', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' } });
    const p = gift(E1);
    expect(p.gift).toEqual({
      SvcGiftKey__c: 'Donation_1',
      Name: 'John Doe - Donation 1',
      Donor: { SvcDonorKey__c: 'P:john.doe@kentaa.nl:doe:john' },
      GiftType: 'Individual',
      OriginalAmount: 15.4,
      DonorCoverAmount: 0.4,
      TransactionDate: '2016-03-30',
      Status: 'Paid',
      Campaign: { SvcCampaignKey__c: 'Action_7' },
      PaymentMethod: 'Credit Card',
      GatewayReference: 'tx-1',
      SvcAnonymous__c: false,
    });
    expect(p.refund).toBeUndefined();
    expect(p.fundraiserActionId).toBe(7);
    const piet = fundraiserDonor({ first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl' });
    expect(piet?.key).toBe('P:piet@x.nl:jansen:piet');
    expect(fundraiserSlot('Donation_1', piet?.key ?? '')).toEqual({
      SvcSoftCreditKey__c: 'Donation_1:fundraiser',
      GiftTransaction: { SvcGiftKey__c: 'Donation_1' },
      Recipient: { SvcDonorKey__c: 'P:piet@x.nl:jansen:piet' },
      Role: 'Solicitor',
      PartialPercent: 100,
    });
  });

  it('E2/E3: a shared mailbox gives two donors; the same person in upper case is the same key', () => {
    expect(donorsOf(don({ id: 2, first_name: 'Jane', last_name: 'Doe', email: 'john.doe@kentaa.nl', project_id: 3 }), 6).donor.key).toBe('P:john.doe@kentaa.nl:doe:jane');
    expect(donorsOf(don({ id: 3, first_name: 'John', last_name: 'Doe', email: 'JOHN.DOE@kentaa.nl' }), 6).donor.key).toBe('P:john.doe@kentaa.nl:doe:john');
    expect(gift(don({ id: 2, project_id: 3, email: 'x@y.nl', last_name: 'Doe' })).gift.Campaign).toEqual({ SvcCampaignKey__c: 'Project_3' });
  });

  it('E4: no email, a last name: a donor of its own per donation, never matchable', () => {
    const a = donorsOf(don({ id: 4, first_name: 'Karel', last_name: 'Smit' }), 6).donor;
    const b = donorsOf(don({ id: 40, first_name: 'Karel', last_name: 'Smit' }), 6).donor;
    expect(a).toMatchObject({ kind: 'noKey', key: 'D:Donation_4', fields: { FirstName: 'Karel', LastName: 'Smit' } });
    expect(a.match).toBeUndefined();
    expect(b.key).toBe('D:Donation_40');
  });

  it('E5: a company gift is the business account’s; the person is keyed apart, without a gift', () => {
    const d = don({
      id: 5,
      company: 'Acme BV',
      email: 'acme@x.nl',
      first_name: 'Eva',
      last_name: 'Bos',
      donation_amount: '100.0',
      address: { zipcode: '1234 AB', city: 'Utrecht', country: 'NL', street: 'Dorpsstraat', house_number: '5', house_number_addition: 'a' },
    });
    const donors = donorsOf(d, 6);
    expect(donors.donor).toMatchObject({
      kind: 'organisation',
      key: 'O:acme bv:acme@x.nl',
      person: false,
      fields: { Name: 'Acme BV', BillingStreet: 'Dorpsstraat 5a', BillingPostalCode: '1234 AB', BillingCity: 'Utrecht', BillingCountry: 'NL' },
    });
    expect(donors.companyPerson?.key).toBe('P:acme@x.nl:bos:eva');
    expect(gift(d).gift).toMatchObject({ Name: 'Acme BV - Donation 5', GiftType: 'Organizational', Donor: { SvcDonorKey__c: 'O:acme bv:acme@x.nl' } });
    expect(donorsOf(don({ id: 50, company: 'Acme BV' }), 6).donor).toMatchObject({ kind: 'noKey', key: 'D:Donation_50', person: false });
  });

  it('E6: anonymous towards the site only: a normal donor, SvcAnonymous__c true', () => {
    const d = don({ id: 6, anonymous: true, contact_details_type: 'visible', first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl', donation_amount: '12.5' });
    expect(donorsOf(d, 6).donor.key).toBe('P:ria@x.nl:post:ria');
    expect(gift(d).gift).toMatchObject({ SvcAnonymous__c: true, OriginalAmount: 12.5 });
  });

  it('E7 and hidden contact details: the site’s anonymous donor, no personal data', () => {
    const e7 = don({ id: 7, donation_amount: '3.0', action_id: 7 });
    expect(donorsOf(e7, 6).donor).toEqual({ kind: 'anonymousPool', key: 'A:6', person: true, fields: { LastName: 'Anonymous' } });
    expect(gift(e7).gift).toMatchObject({ Name: 'Anonymous - Donation 7', SvcAnonymous__c: false });
    expect(gift(e7).fundraiserActionId).toBe(7);
    const hidden = don({ id: 70, contact_details_type: 'hidden', company: 'Acme', first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl' });
    expect(donorsOf(hidden, 6)).toMatchObject({ donor: { key: 'A:6', fields: { LastName: 'Anonymous' } }, anonymous: true, label: 'Anonymous', giftType: 'Individual' });
    expect(donorsOf(hidden, 6).companyPerson).toBeUndefined();
  });

  it('E8/E9: refunds and charge-backs keep the Paid gift and add a GiftRefund dated locally', () => {
    const e8 = gift(don({ ...E1, payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z' }));
    expect(e8.gift).toMatchObject({ Status: 'Paid', TransactionDate: '2016-03-30' });
    expect(e8.refund).toEqual({ SvcRefundKey__c: 'Donation_1', GiftTransaction: { SvcGiftKey__c: 'Donation_1' }, Amount: 15.4, Date: '2016-04-03', Status: 'Completed' });
    const e9 = gift(
      don({
        id: 9,
        email: 'n@x.nl',
        last_name: 'N',
        payment_status: 'chargedback',
        donation_amount: '8.0',
        total_amount: '8.0',
        created_at: '2016-05-01T10:00:00Z',
        payment_status_at: '2016-05-20T10:00:00Z',
      }),
    );
    expect(e9.gift).toMatchObject({ Status: 'Paid', OriginalAmount: 8, TransactionDate: '2016-05-01' });
    expect(e9.refund).toMatchObject({ Amount: 8, Date: '2016-05-20', Reason: 'Chargeback' });
    const noStatusAt = gift(don({ id: 10, payment_status: 'refunded', updated_at: '2016-06-01T10:00:00Z' }));
    expect(noStatusAt).toMatchObject({ refundDateFallback: true, refund: { Date: '2016-06-01' } });
  });

  it('E12: another currency writes no gift (donors and campaigns still do); case and blanks are forgiven', () => {
    expect(gift(don({ id: 12, currency: 'GBP', email: 'g@x.nl', last_name: 'G' })).giftProblem).toBe('CURRENCY_MISMATCH: org EUR, donation GBP');
    expect(gift(don({ currency: ' eur ' })).giftProblem).toBeUndefined();
    expect(gift(don({ currency: null })).giftProblem).toBeUndefined();
    expect(gift(don({ currency: 'EURO' })).giftProblem).toBe('CURRENCY_MISMATCH: org EUR, donation EURO');
  });

  it('E13/E14: amount when donation_amount is absent; a fee-only payment is no gift', () => {
    expect(gift(don({ id: 13, donation_amount: undefined, amount: '25.4', total_amount: '25.4' })).gift.OriginalAmount).toBe(25.4);
    expect(planOf(don({ id: 14, donation_amount: '0.0', registration_fee_amount: '25.0', total_amount: '25.0' }))).toMatchObject({ skip: 'noGiftAmount' });
    expect(planOf(don({ payment_status: 'pending' }))).toMatchObject({ skip: 'excluded' });
    expect(planOf(don({ total_amount: '0.00' }))).toMatchObject({ skip: 'excluded' });
  });

  it('N11: a valid email and no last name: the email’s local part is the LastName', () => {
    expect(donorsOf(don({ email: 'jan.smit@x.nl' }), 6).donor).toMatchObject({ key: 'P:jan.smit@x.nl::', lastNameFromEmail: true, fields: { LastName: 'jan.smit' } });
  });

  it('an invalid email counts as none (N7); infixes belong to the last name', () => {
    expect(donorsOf(don({ email: 'not-an-email', last_name: 'Dijk', infix: 'van' }), 6).donor).toMatchObject({ kind: 'noKey', fields: { LastName: 'van Dijk' } });
    expect(donorsOf(don({ email: 'v@x.nl', first_name: 'Anna', last_name: 'Vries', infix: 'de' }), 6).donor.key).toBe('P:v@x.nl:de vries:anna');
  });

  it('a target the platform lacks still names its key here: the writer leaves it out (N13)', () => {
    expect(gift(don({ action_id: 999 })).campaignKey).toBe('Action_999');
    expect(gift(don({})).campaignKey).toBeUndefined();
    expect(gift(don({})).gift.Campaign).toBeUndefined();
  });

  it('payment methods and streets follow N14 and §1.4', () => {
    expect([paymentMethodOf('creditcard'), paymentMethodOf('PayPal'), paymentMethodOf('ideal'), paymentMethodOf(' '), paymentMethodOf(null)]).toEqual([
      'Credit Card',
      'PayPal',
      'Unknown',
      'Unknown',
      'Unknown',
    ]);
    expect(streetOf({ address: 'Main 1', address2: 'Floor 2' })).toBe('Main 1\nFloor 2');
    expect(streetOf({ street: 'Main', house_number: '1', country: 'BE' })).toBeNull();
  });

  it('cuts the gift name to 80 units', () => {
    const long = gift(don({ company: 'A'.repeat(100), email: 'c@x.nl' })).gift.Name as string;
    expect(long.length).toBe(80);
  });
});
