/**
 * NPSP as a target of the gift port, its pure part against PROJECTION.md §7's NPSP paragraph and
 * appendix P3-P10 (site 6, Europe/Amsterdam, org currency EUR): the Contact a person becomes, the
 * Opportunity of a gift in `stage` and `payments` mode, the fundraiser's contact role, the refund
 * payment, fill-blanks (P4) and step 3 over the four email fields (P5), field by field.
 */
import { describe, expect, it } from '@jest/globals';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { donorsOf } from '../../src/mapping/gifts/donor.js';
import { giftOf, rulesOf, type GiftPlan } from '../../src/mapping/gifts/gift.js';
import { decideDonor, fillBlanks } from '../../src/mapping/gifts/match.js';
import { contactFields, npspNames, npspTarget } from '../../src/mapping/gifts/npspTarget.js';
import { DEFAULT_NPSP_SETTINGS } from '../../src/config/settings.js';

// The names come from the settings, whose defaults are the only ones (the target keeps none).
const NAMES = npspNames(DEFAULT_NPSP_SETTINGS);
const STAGE = npspTarget({ ...NAMES, refundMode: 'stage', donationRecordType: '012DON' });
const PAYMENTS = npspTarget({ ...NAMES, refundMode: 'payments' });

const E1: ApiDonation = {
  id: 1,
  site_id: 6,
  first_name: 'John',
  last_name: 'Doe',
  email: 'john.doe@kentaa.nl',
  phone: '0612345678',
  payment_status: 'paid',
  amount: '15.0',
  donation_amount: '15.0',
  transaction_costs: '0.4',
  registration_fee_amount: '10.0',
  total_amount: '25.4',
  currency: 'EUR',
  created_at: '2016-03-30T14:41:48Z',
  action_id: 7,
  address: { address: 'Dorpsstraat 1', zipcode: '1234 AB', city: 'Utrecht', country: 'NL' },
};
const E8: ApiDonation = { ...E1, payment_status: 'refunded', payment_status_at: '2016-04-02T23:30:00Z' };
const E9: ApiDonation = {
  ...E1,
  id: 9,
  amount: '8.0',
  donation_amount: '8.0',
  transaction_costs: null,
  payment_status: 'chargedback',
  created_at: '2016-05-01T10:00:00Z',
  payment_status_at: '2016-05-20T10:00:00Z',
};

function plan(d: ApiDonation, target = STAGE): Extract<GiftPlan, { gift: unknown }> {
  const p = giftOf(d, donorsOf(d, 6), { timeZone: 'Europe/Amsterdam', orgCurrency: 'EUR', rules: rulesOf(target) });
  if ('skip' in p) throw new Error(p.reason);
  return p;
}

describe('NPSP target', () => {
  it('P3: a person becomes a Contact: email and phone in two fields each, Preferred Email Personal, no AccountId', () => {
    const donor = donorsOf(E1, 6).donor;
    expect(donor.key).toBe('P:john.doe@kentaa.nl:doe:john');
    expect(contactFields(donor.fields)).toEqual({
      FirstName: 'John',
      LastName: 'Doe',
      Email: 'john.doe@kentaa.nl',
      npe01__HomeEmail__c: 'john.doe@kentaa.nl',
      npe01__Preferred_Email__c: 'Personal',
      Phone: '0612345678',
      HomePhone: '0612345678',
      MailingStreet: 'Dorpsstraat 1',
      MailingPostalCode: '1234 AB',
      MailingCity: 'Utrecht',
      MailingCountry: 'NL',
    });
    // No email: no preferred email either.
    expect(contactFields({ LastName: 'Smit' })).toEqual({ LastName: 'Smit' });
  });

  it('E1 / P8 in stage mode: Opportunity Closed Won, CloseDate T, Amount G, Donation record type, no automatic payment', () => {
    expect(plan(E1).gift).toEqual({
      SvcGiftKey__c: 'Donation_1',
      Name: 'John Doe - Donation 1',
      StageName: 'Closed Won',
      CloseDate: '2016-03-30',
      Amount: 15.4,
      RecordTypeId: '012DON',
      npe01__Do_Not_Automatically_Create_Payment__c: true,
      SvcAnonymous__c: false,
    });
    expect(plan(E1).refund).toBeUndefined();
  });

  it('E8 / P10 stage mode: a refunded gift is Closed Lost, with no payment record', () => {
    const p = plan(E8);
    expect(p.gift.StageName).toBe('Closed Lost');
    expect(p.refund).toBeUndefined();
  });

  it('E8, E9 / P10 payments mode: the gift stays won; a refund payment of -G dated R, Refund or Chargeback', () => {
    expect(plan(E8, PAYMENTS).gift.StageName).toBe('Closed Won');
    expect(plan(E8, PAYMENTS).gift).not.toHaveProperty('npe01__Do_Not_Automatically_Create_Payment__c');
    expect(plan(E8, PAYMENTS).refund).toEqual({
      SvcRefundKey__c: 'Donation_1',
      npe01__Payment_Amount__c: -15.4,
      npe01__Paid__c: true,
      npe01__Payment_Date__c: '2016-04-03',
      npsp__DebitType__c: 'Refund',
    });
    expect(plan(E9, PAYMENTS).refund).toMatchObject({ npe01__Payment_Amount__c: -8, npe01__Payment_Date__c: '2016-05-20', npsp__DebitType__c: 'Chargeback' });
  });

  it('P8: the Opportunity names its primary contact, and its Account only when one is known', () => {
    expect(STAGE.gift.links({ donor: '003A', primaryContact: '003A' })).toEqual({ npsp__Primary_Contact__c: '003A' });
    expect(STAGE.gift.links({ donor: '001O', primaryContact: '003P', account: '001O' })).toEqual({ npsp__Primary_Contact__c: '003P', AccountId: '001O' });
    // P6: a company donation without a keyed person has no primary contact.
    expect(STAGE.gift.links({ donor: '001O', account: '001O' })).toEqual({ npsp__Primary_Contact__c: null, AccountId: '001O' });
    expect(plan({ ...E1, company: 'Acme BV' }).gift.Name).toBe('Acme BV - Donation 1');
  });

  it('P9: the fundraiser slot is a Soft Credit contact role, not primary, found by its plain key', () => {
    expect(STAGE.slot).toMatchObject({ object: 'OpportunityContactRole', giftField: 'OpportunityId', recipientField: 'ContactId', byExternalId: false });
    expect(STAGE.slot.record('Donation_1', 'P:piet@x.nl:jansen:piet')).toEqual({ SvcSoftCreditKey__c: 'Donation_1:fundraiser', Role: 'Soft Credit', IsPrimary: false });
  });

  it('P4: phones one by one; the email trio and each address only as a whole block', () => {
    const fields = contactFields(donorsOf(E1, 6).donor.fields);
    expect(fillBlanks({ Phone: '1', Email: 'other@x.nl', MailingCity: 'Gouda' }, fields, STAGE.fill)).toEqual({ HomePhone: '0612345678' });
    expect(fillBlanks({ Phone: '1', HomePhone: '2' }, fields, STAGE.fill)).toEqual({
      Email: 'john.doe@kentaa.nl',
      npe01__HomeEmail__c: 'john.doe@kentaa.nl',
      npe01__Preferred_Email__c: 'Personal',
      MailingStreet: 'Dorpsstraat 1',
      MailingPostalCode: '1234 AB',
      MailingCity: 'Utrecht',
      MailingCountry: 'NL',
    });
  });

  it('P5: step 3 finds a Contact by any of its four email fields', () => {
    const john = donorsOf(E1, 6).donor;
    const cand = { id: '003W', firstName: 'J.', lastName: 'Doe', email: 'home@x.nl', key: null };
    expect(decideDonor(john, { byEmail: [{ ...cand, otherEmails: [null, ' John.Doe@kentaa.nl ', null] }] })).toEqual({ matchedBy: 'email+name', id: '003W', claim: true });
    expect(decideDonor(john, { byEmail: [{ ...cand, otherEmails: [null, null, null] }] })).toEqual({ matchedBy: 'new' });
  });
});
