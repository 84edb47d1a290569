/**
 * The §7 site's expected Nonprofit Cloud records (PROJECTION.md §1-§4, §7, N1-N16), written from
 * the document, not from the code's output, and the org's records read back in the same shape
 * (Ids replaced by keys). Shared by the end-to-end tests that run the site once and run after run.
 */
import type { NpcRecord, NpcValue } from '../../fixtures/salesforce/npc.js';
import type { Stack } from '../../fixtures/stack.js';

export type Row = Record<string, NpcValue>;

/** The org's NPC records, as the fields svc-sync writes, lookups as keys (absent: not set). */
export function projected(stack: Stack): Record<'accounts' | 'campaigns' | 'gifts' | 'softCredits' | 'refunds', Record<string, Row>> {
  const npc = stack.salesforce.npc;
  if (!npc) throw new Error('no NPC org');
  const keyOf = new Map<string, string>();
  for (const [object, field] of [
    ['Account', 'SvcDonorKey__c'],
    ['Campaign', 'SvcCampaignKey__c'],
    ['GiftTransaction', 'SvcGiftKey__c'],
  ] as const) {
    for (const r of npc.records(object, true)) keyOf.set(r.Id, typeof r[field] === 'string' ? (r[field] as string) : `(no key) ${r.Id}`);
  }
  const pick = (r: NpcRecord, fields: readonly string[], lookups: Record<string, string> = {}): Row => {
    const out: Row = {};
    for (const f of fields) if (r[f] !== undefined && r[f] !== null) out[f] = r[f] as NpcValue;
    for (const [f, as] of Object.entries(lookups)) if (typeof r[f] === 'string') out[as] = keyOf.get(r[f] as string) ?? `(unknown) ${r[f] as string}`;
    return out;
  };
  const byKey = (object: string, key: string, row: (r: NpcRecord) => Row): Record<string, Row> =>
    Object.fromEntries(npc.records(object).map((r) => [typeof r[key] === 'string' ? (r[key] as string) : `(no key) ${r.Id}`, row(r)]));
  const PERSON = ['FirstName', 'LastName', 'PersonEmail', 'Phone', 'PersonMailingStreet', 'PersonMailingPostalCode', 'PersonMailingCity', 'PersonMailingCountry', 'PersonBirthdate'];
  const BUSINESS = ['Name', 'Phone', 'BillingStreet', 'BillingPostalCode', 'BillingCity', 'BillingCountry'];
  return {
    accounts: byKey('Account', 'SvcDonorKey__c', (r) => (r.IsPersonAccount === true ? { person: true, ...pick(r, PERSON) } : { person: false, ...pick(r, BUSINESS) })),
    campaigns: byKey('Campaign', 'SvcCampaignKey__c', (r) => pick(r, ['Name', 'StartDate', 'EndDate', 'ExpectedRevenue', 'IsActive'], { ParentId: 'Parent' })),
    gifts: byKey('GiftTransaction', 'SvcGiftKey__c', (r) => ({
      ...pick(r, ['Name', 'GiftType', 'OriginalAmount', 'DonorCoverAmount', 'TransactionDate', 'Status', 'PaymentMethod', 'GatewayReference', 'SvcAnonymous__c'], {
        DonorId: 'Donor',
        CampaignId: 'Campaign',
      }),
    })),
    softCredits: byKey('GiftSoftCredit', 'SvcSoftCreditKey__c', (r) => pick(r, ['Role', 'PartialPercent'], { GiftTransactionId: 'Gift', RecipientId: 'Recipient' })),
    refunds: byKey('GiftRefund', 'SvcRefundKey__c', (r) => pick(r, ['Amount', 'Date', 'Status', 'Reason'], { GiftTransactionId: 'Gift' })),
  };
}

export const JOHN = 'P:john.doe@kentaa.nl:doe:john';
export const PIET = 'P:piet@x.nl:jansen:piet';
export const RIA = 'P:ria@x.nl:post:ria';

/** §1.2-§1.5, N6-N12: one donor per key; E14 (no gift) writes none, 15 goes to the pool, 17 is Ria. */
export const ACCOUNTS: Record<string, Row> = {
  [JOHN]: { person: true, FirstName: 'John', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' },
  // E2: the shared mailbox is a second donor.
  'P:john.doe@kentaa.nl:doe:jane': { person: true, FirstName: 'Jane', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' },
  // E4: no email, one donor per donation, never matched by name.
  'D:Donation_4': { person: true, FirstName: 'Karel', LastName: 'Smit' },
  'D:Donation_16': { person: true, FirstName: 'Karel', LastName: 'Smit' },
  // E5 / N9: the company is the gift's donor; its person gets an account of their own, no link.
  'O:acme bv:acme@x.nl': { person: false, Name: 'Acme BV' },
  'P:acme@x.nl:bos:eva': { person: true, FirstName: 'Eva', LastName: 'Bos', PersonEmail: 'acme@x.nl' },
  // E6: anonymity towards the site keeps the donor; §1.4's person fields.
  [RIA]: {
    person: true,
    FirstName: 'Ria',
    LastName: 'Post',
    PersonEmail: 'ria@x.nl',
    Phone: '0612345678',
    PersonMailingStreet: 'Breestraat 12',
    PersonMailingPostalCode: '2311EZ',
    PersonMailingCity: 'Leiden',
    PersonMailingCountry: 'NL',
    PersonBirthdate: '1980-02-03',
  },
  // E7 and the hidden details of 15 (N10): the site's pool, LastName only.
  'A:6': { person: true, LastName: 'Anonymous' },
  // N12: the fundraiser, from the action owner and their user record.
  [PIET]: {
    person: true,
    FirstName: 'Piet',
    LastName: 'Jansen',
    PersonEmail: 'piet@x.nl',
    Phone: '0611111111',
    PersonMailingStreet: 'Oudegracht 1',
    PersonMailingPostalCode: '3511LX',
    PersonMailingCity: 'Utrecht',
    PersonMailingCountry: 'NL',
    PersonBirthdate: '1970-05-06',
  },
  'P:kees@x.nl:vos:kees': { person: true, FirstName: 'Kees', LastName: 'Vos', PersonEmail: 'kees@x.nl' },
  // E12 / N3: the donor of a gift in another currency is written.
  'P:tom@x.nl:hill:tom': { person: true, FirstName: 'Tom', LastName: 'Hill', PersonEmail: 'tom@x.nl' },
  // The infix belongs to LastName (§1.2).
  'P:lisa@x.nl:de wit:lisa': { person: true, FirstName: 'Lisa', LastName: 'de Wit', PersonEmail: 'lisa@x.nl' },
  'P:sara@x.nl:berg:sara': { person: true, FirstName: 'Sara', LastName: 'Berg', PersonEmail: 'sara@x.nl' },
  'P:bob@x.nl:kok:bob': { person: true, FirstName: 'Bob', LastName: 'Kok', PersonEmail: 'bob@x.nl' },
  'P:mia@x.nl:lee:mia': { person: true, FirstName: 'Mia', LastName: 'Lee', PersonEmail: 'mia@x.nl' },
  // §1.4: a Business Account gets Name and the Billing address, no Phone; the street's two lines
  // joined by a line break, spaces within a line collapsed. Its person gets §1.4's person fields.
  'O:veld bv:info@veld.nl': { person: false, Name: 'Veld BV', BillingStreet: 'Stationsweg 5\n2e etage', BillingPostalCode: '3511AA', BillingCity: 'Utrecht', BillingCountry: 'NL' },
  'P:info@veld.nl:veld:joost': {
    person: true,
    FirstName: 'Joost',
    LastName: 'Veld',
    PersonEmail: 'info@veld.nl',
    Phone: '0301234567',
    PersonMailingStreet: 'Stationsweg 5\n2e etage',
    PersonMailingPostalCode: '3511AA',
    PersonMailingCity: 'Utrecht',
    PersonMailingCountry: 'NL',
  },
  // An address line of two lines keeps both; a blank address2 adds none.
  'P:noor@x.nl:dam:noor': {
    person: true,
    FirstName: 'Noor',
    LastName: 'Dam',
    PersonEmail: 'noor@x.nl',
    PersonMailingStreet: 'Kerkstraat 3\nAchterhuis',
    PersonMailingPostalCode: '1017GA',
    PersonMailingCity: 'Amsterdam',
    PersonMailingCountry: 'NL',
  },
  // N11, N12: action 31's owner has an email and no name: LastName is the email's local part.
  'P:owner31@x.nl::': { person: true, LastName: 'owner31', PersonEmail: 'owner31@x.nl' },
};

/** §3.1 / N13: only the campaigns a gift needs, with their ancestors; dates in Europe/Amsterdam. */
export const CAMPAIGNS: Record<string, Row> = {
  Segment_2: { Name: 'Lopen voor water', StartDate: '2016-01-10', ExpectedRevenue: 50000, IsActive: true },
  // Created 23:30 UTC: the 16th in Amsterdam; its end 22:00 UTC is the 11th; 12500.4 rounded to units.
  Project_3: { Name: 'Marathon Rotterdam 2016', Parent: 'Segment_2', StartDate: '2016-01-16', EndDate: '2016-04-11', ExpectedRevenue: 12500, IsActive: true },
  // Closed: not active.
  Team_4: { Name: 'Team Waterlopers', Parent: 'Project_3', StartDate: '2016-02-01', ExpectedRevenue: 2000, IsActive: false },
  // visible and closed absent: active.
  // Action 7 names no `visible`. N13 reads that as true; the campaign follows the mirror's row
  // instead, whose Visible__c checkbox holds false (SPEC.md gives actions no default), so the
  // org tells one story (docs/projection.md, "Campaigns"). Real action payloads carry `visible`.
  Action_7: { Name: 'Piet Jansen', Parent: 'Team_4', StartDate: '2016-02-10', ExpectedRevenue: 500, IsActive: false },
  // N13: no name -> the key, never the mirror row's Id (which Salesforce gives a row without a Name).
  Project_30: { Name: 'Project_30', Parent: 'Segment_2', StartDate: '2016-01-20', IsActive: true },
  Team_32: { Name: 'Team_32', Parent: 'Project_30', StartDate: '2016-01-21', IsActive: true },
  Action_31: { Name: 'Action_31', Parent: 'Team_32', StartDate: '2016-01-22', IsActive: true },
};

export const gift = (id: number, fields: Row): Row => ({
  Name: `${String(fields.label)} - Donation ${id}`,
  GiftType: 'Individual',
  Status: 'Paid',
  PaymentMethod: 'Credit Card',
  GatewayReference: `TX${id}`,
  SvcAnonymous__c: false,
  ...Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'label')),
});

/** §2 / N2, N3, N14, N15: one gift per eligible donation, Status Paid, the day it was made. */
export const GIFTS: Record<string, Row> = {
  // E1: 15.0 + 0.4 covered costs; the registration fee is no gift.
  Donation_1: gift(1, { label: 'John Doe', Donor: JOHN, OriginalAmount: 15.4, DonorCoverAmount: 0.4, TransactionDate: '2016-03-30', Campaign: 'Action_7' }),
  Donation_2: gift(2, { label: 'Jane Doe', Donor: 'P:john.doe@kentaa.nl:doe:jane', OriginalAmount: 20, TransactionDate: '2016-03-02', Campaign: 'Project_3', PaymentMethod: 'PayPal' }),
  Donation_3: gift(3, { label: 'John Doe', Donor: JOHN, OriginalAmount: 5, TransactionDate: '2016-03-03', Campaign: 'Action_7' }),
  // ideal: another method, Unknown.
  Donation_4: gift(4, { label: 'Karel Smit', Donor: 'D:Donation_4', OriginalAmount: 10, TransactionDate: '2016-03-04', Campaign: 'Segment_2', PaymentMethod: 'Unknown' }),
  Donation_5: gift(5, { label: 'Acme BV', Donor: 'O:acme bv:acme@x.nl', GiftType: 'Organizational', OriginalAmount: 100, TransactionDate: '2016-03-05', Campaign: 'Project_3' }),
  Donation_6: gift(6, { label: 'Ria Post', Donor: RIA, OriginalAmount: 12.5, TransactionDate: '2016-03-06', SvcAnonymous__c: true }),
  Donation_7: gift(7, { label: 'Anonymous', Donor: 'A:6', OriginalAmount: 3, TransactionDate: '2016-03-07', Campaign: 'Action_7' }),
  // E9: first seen charged back: a Paid gift on the day it was made.
  Donation_9: gift(9, { label: 'Kees Vos', Donor: 'P:kees@x.nl:vos:kees', OriginalAmount: 8, TransactionDate: '2016-05-01' }),
  // E13: amount alone, no costs: no DonorCoverAmount.
  Donation_13: gift(13, { label: 'Lisa de Wit', Donor: 'P:lisa@x.nl:de wit:lisa', OriginalAmount: 25.4, TransactionDate: '2016-03-13', Campaign: 'Project_3' }),
  // N10: hidden details: the pool, label Anonymous, Individual despite the company.
  Donation_15: gift(15, { label: 'Anonymous', Donor: 'A:6', OriginalAmount: 7.5, TransactionDate: '2016-03-15', Campaign: 'Action_7', SvcAnonymous__c: true }),
  // No payment method: N14 says "not sent", but PaymentMethod is not nillable and has no default
  // in Salesforce's reference (a create without it is refused): Unknown.
  Donation_16: gift(16, { label: 'Karel Smit', Donor: 'D:Donation_16', OriginalAmount: 10, TransactionDate: '2016-03-16', PaymentMethod: 'Unknown' }),
  // N8: "R." with Ria's email and last name is Ria; the label is the donation's own name.
  Donation_17: gift(17, { label: 'R. Post', Donor: RIA, OriginalAmount: 4, TransactionDate: '2016-03-17' }),
  // N3: "eur" is the org's currency; 22:30 UTC on 30 June is 1 July in Amsterdam.
  Donation_18: gift(18, { label: 'Sara Berg', Donor: 'P:sara@x.nl:berg:sara', OriginalAmount: 30, TransactionDate: '2016-07-01' }),
  // N2: "1.005" rounds half-up to 1.01.
  Donation_19: gift(19, { label: 'Bob Kok', Donor: 'P:bob@x.nl:kok:bob', OriginalAmount: 1.01, TransactionDate: '2016-03-19' }),
  // N13: action 999 is not on the platform: no campaign (not team 4 either).
  Donation_20: gift(20, { label: 'Mia Lee', Donor: 'P:mia@x.nl:lee:mia', OriginalAmount: 6, TransactionDate: '2016-03-20' }),
  Donation_21: gift(21, { label: 'Veld BV', Donor: 'O:veld bv:info@veld.nl', GiftType: 'Organizational', OriginalAmount: 50, TransactionDate: '2016-03-21', Campaign: 'Project_30' }),
  Donation_22: gift(22, { label: 'Noor Dam', Donor: 'P:noor@x.nl:dam:noor', OriginalAmount: 9, TransactionDate: '2016-03-22', Campaign: 'Action_31' }),
};

export const slot = (id: number): [string, Row] => [`Donation_${id}:fundraiser`, { Gift: `Donation_${id}`, Recipient: PIET, Role: 'Solicitor', PartialPercent: 100 }];
/** §4: the page owner's slot on every gift to action 7, the anonymous ones included (E7, 15). */
export const SOFT_CREDITS: Record<string, Row> = {
  ...Object.fromEntries([1, 3, 7, 15].map(slot)),
  'Donation_22:fundraiser': { Gift: 'Donation_22', Recipient: 'P:owner31@x.nl::', Role: 'Solicitor', PartialPercent: 100 },
};

/** E9 / N15: the charge-back's refund, dated the day of payment_status_at. */
export const REFUNDS: Record<string, Row> = { Donation_9: { Gift: 'Donation_9', Amount: 8, Date: '2016-05-20', Status: 'Completed', Reason: 'Chargeback' } };
