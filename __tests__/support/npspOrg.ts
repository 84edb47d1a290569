/**
 * The §7 site's expected NPSP records (PROJECTION.md §1-§4, §7's NPSP paragraph, P1-P14), written
 * from the document: the Nonprofit Cloud tables of projectionOrg.ts read as P3 (Contacts), P6
 * (Organization Accounts), P8 (Opportunities), P9 (the fundraiser slot) and P11 (what NPSP's
 * automation adds), and the org's records read back in the same shape, Ids replaced by keys.
 */
import type { NpcRecord, NpcValue } from '../../fixtures/salesforce/npc.js';
import type { Stack } from '../../fixtures/stack.js';
import { ACCOUNTS, GIFTS, SOFT_CREDITS, type Row } from './projectionOrg.js';

type Kind = 'contacts' | 'accounts' | 'opportunities' | 'roles' | 'payments' | 'campaigns';

/** The org's NPSP records by key; NPSP's own records (P11) named `HH:<contact>`, `<gift>:primary`, `<gift>:payment`. */
export function projectedNpsp(stack: Stack): Record<Kind, Record<string, Row>> {
  const org = stack.salesforce.npsp;
  if (!org) throw new Error('no NPSP org');
  const keyOf = new Map<string, string>();
  const rt = new Map(org.records('RecordType', true).map((r) => [r.Id, r.DeveloperName as string]));
  for (const r of org.records('Contact', true)) keyOf.set(r.Id, (r.SvcDonorKey__c as string | undefined) ?? `(no key) ${r.Id}`);
  for (const r of org.records('Account', true)) {
    const one2one = typeof r.npe01__One2OneContact__c === 'string' ? keyOf.get(r.npe01__One2OneContact__c) : undefined;
    keyOf.set(r.Id, typeof r.SvcDonorKey__c === 'string' ? r.SvcDonorKey__c : one2one !== undefined ? `HH:${one2one}` : `(no key) ${r.Id}`);
  }
  for (const r of org.records('Campaign', true)) keyOf.set(r.Id, (r.SvcCampaignKey__c as string | undefined) ?? `(no key) ${r.Id}`);
  for (const r of org.records('Opportunity', true)) keyOf.set(r.Id, (r.SvcGiftKey__c as string | undefined) ?? `(no key) ${r.Id}`);
  // A refund payment's own key; NPSP's payment of a gift `<gift>:payment` (P11), so a refund's original reads as that.
  const paymentKey = (r: NpcRecord): string => (typeof r.SvcRefundKey__c === 'string' ? r.SvcRefundKey__c : `${keyOf.get(r.npe01__Opportunity__c as string) ?? '?'}:payment`);
  for (const r of org.records('npe01__OppPayment__c', true)) keyOf.set(r.Id, paymentKey(r));
  const pick = (r: NpcRecord, fields: readonly string[], lookups: Record<string, string> = {}): Row => {
    const out: Row = {};
    for (const f of fields) if (r[f] !== undefined && r[f] !== null) out[f] = r[f] as NpcValue;
    if (typeof r.RecordTypeId === 'string') out.RecordType = rt.get(r.RecordTypeId) ?? '(unknown)';
    for (const [f, as] of Object.entries(lookups)) if (typeof r[f] === 'string') out[as] = keyOf.get(r[f] as string) ?? `(unknown) ${r[f] as string}`;
    return out;
  };
  const byKey = (object: string, key: (r: NpcRecord) => string, row: (r: NpcRecord) => Row): Record<string, Row> => Object.fromEntries(org.records(object).map((r) => [key(r), row(r)]));
  const CONTACT = [
    'FirstName',
    'LastName',
    'Email',
    'npe01__HomeEmail__c',
    'npe01__WorkEmail__c',
    'npe01__AlternateEmail__c',
    'npe01__Preferred_Email__c',
    'Phone',
    'HomePhone',
    'MailingStreet',
    'MailingPostalCode',
    'MailingCity',
    'MailingCountry',
    'Birthdate',
  ];
  const ACCOUNT = ['Name', 'Type', 'npe01__SYSTEM_AccountType__c', 'npe01__SYSTEMIsIndividual__c', 'Phone', 'BillingStreet', 'BillingPostalCode', 'BillingCity', 'BillingCountry'];
  const OPP = ['Name', 'StageName', 'CloseDate', 'Amount', 'npe01__Do_Not_Automatically_Create_Payment__c', 'SvcAnonymous__c'];
  return {
    contacts: byKey(
      'Contact',
      (r) => keyOf.get(r.Id) as string,
      (r) => pick(r, CONTACT, { AccountId: 'Account' }),
    ),
    accounts: byKey(
      'Account',
      (r) => keyOf.get(r.Id) as string,
      (r) => pick(r, ACCOUNT, { npe01__One2OneContact__c: 'One2One' }),
    ),
    opportunities: byKey(
      'Opportunity',
      (r) => keyOf.get(r.Id) as string,
      (r) => pick(r, OPP, { AccountId: 'Account', npsp__Primary_Contact__c: 'Primary', CampaignId: 'Campaign' }),
    ),
    roles: byKey(
      'OpportunityContactRole',
      (r) => (typeof r.SvcSoftCreditKey__c === 'string' ? r.SvcSoftCreditKey__c : `${keyOf.get(r.OpportunityId as string) ?? '?'}:${r.IsPrimary === true ? 'primary' : r.Id}`),
      (r) => pick(r, ['Role', 'IsPrimary'], { OpportunityId: 'Gift', ContactId: 'Contact' }),
    ),
    payments: byKey('npe01__OppPayment__c', paymentKey, (r) =>
      pick(r, ['npe01__Payment_Amount__c', 'npe01__Paid__c', 'npe01__Payment_Date__c', 'npsp__DebitType__c'], { npe01__Opportunity__c: 'Gift', npsp__OriginalPayment__c: 'Original' }),
    ),
    campaigns: byKey(
      'Campaign',
      (r) => keyOf.get(r.Id) as string,
      (r) => pick(r, ['Name', 'StartDate', 'EndDate', 'ExpectedRevenue', 'IsActive'], { ParentId: 'Parent' }),
    ),
  };
}

const PERSON_TO_CONTACT: Record<string, string[]> = {
  FirstName: ['FirstName'],
  LastName: ['LastName'],
  // P3: the email in Email and the home email, preferred Personal.
  PersonEmail: ['Email', 'npe01__HomeEmail__c'],
  // P3: the phone in Phone and HomePhone.
  Phone: ['Phone', 'HomePhone'],
  PersonMailingStreet: ['MailingStreet'],
  PersonMailingPostalCode: ['MailingPostalCode'],
  PersonMailingCity: ['MailingCity'],
  PersonMailingCountry: ['MailingCountry'],
  PersonBirthdate: ['Birthdate'],
};

/** §7 for NPSP: every person donor of the NPC table is a Contact with the same key (P3). */
export function contacts(automation: boolean): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [key, a] of Object.entries(ACCOUNTS)) {
    if (a.person !== true) continue;
    const c: Row = {};
    for (const [from, to] of Object.entries(PERSON_TO_CONTACT)) if (a[from] !== undefined) for (const f of to) c[f] = a[from];
    if (a.PersonEmail !== undefined) c.npe01__Preferred_Email__c = 'Personal';
    // P11: NPSP puts each new Contact in a Household Account of its own; without it AccountId stays blank.
    if (automation) c.Account = `HH:${key}`;
    out[key] = c;
  }
  return out;
}

/** P6: the Organization Accounts (Name, Billing*); P11: with NPSP automation, each Contact's household. */
export function accounts(automation: boolean): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [key, a] of Object.entries(ACCOUNTS)) {
    if (a.person === true) continue;
    const { person: _p, ...fields } = a;
    // A checkbox not sent holds false in Salesforce.
    out[key] = { ...fields, RecordType: 'Organization', npe01__SYSTEMIsIndividual__c: false };
  }
  if (!automation) return out;
  for (const [key, a] of Object.entries(ACCOUNTS)) {
    if (a.person !== true) continue;
    const billing: Row = {};
    for (const f of ['Street', 'PostalCode', 'City', 'Country']) if (a[`PersonMailing${f}`] !== undefined) billing[`Billing${f}`] = a[`PersonMailing${f}`] as NpcValue;
    if (a.Phone !== undefined) billing.Phone = a.Phone;
    out[`HH:${key}`] = {
      Name: `${String(a.LastName)} Household`,
      RecordType: 'HH_Account',
      npe01__SYSTEM_AccountType__c: 'Household Account',
      Type: 'Household',
      npe01__SYSTEMIsIndividual__c: true,
      One2One: key,
      ...billing,
    };
  }
  return out;
}

/** P6: a company gift's person (a valid email) is its primary contact. */
const COMPANY_PERSON: Record<string, string> = { 'O:acme bv:acme@x.nl': 'P:acme@x.nl:bos:eva', 'O:veld bv:info@veld.nl': 'P:info@veld.nl:veld:joost' };

/** P8, P10 (`stage` mode): one Opportunity per NPC gift; refunds and charge-backs Closed Lost. */
export function opportunities(automation: boolean, refunded: readonly string[] = ['Donation_9']): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [key, g] of Object.entries(GIFTS)) {
    const donor = g.Donor as string;
    const company = donor.startsWith('O:');
    const primary = company ? COMPANY_PERSON[donor] : donor;
    const account = company ? donor : automation ? `HH:${donor}` : undefined;
    out[key] = {
      Name: g.Name as string,
      StageName: refunded.includes(key) ? 'Closed Lost' : 'Closed Won',
      CloseDate: g.TransactionDate as string,
      Amount: g.OriginalAmount as number,
      npe01__Do_Not_Automatically_Create_Payment__c: true,
      SvcAnonymous__c: g.SvcAnonymous__c as boolean,
      RecordType: 'Donation',
      ...(account === undefined ? {} : { Account: account }),
      ...(primary === undefined ? {} : { Primary: primary }),
      ...(g.Campaign === undefined ? {} : { Campaign: g.Campaign }),
    };
  }
  return out;
}

/** P9: the fundraiser slots of the NPC table as Soft Credit roles; P11: NPSP's primary role per gift. */
export function roles(automation: boolean, opps: Record<string, Row>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [key, s] of Object.entries(SOFT_CREDITS)) out[key] = { Role: 'Soft Credit', Gift: s.Gift as string, Contact: s.Recipient as string, IsPrimary: false };
  if (!automation) return out;
  for (const [key, o] of Object.entries(opps)) {
    if (o.Primary === undefined) continue;
    // An Organization Account's primary contact gets Contact_Role_for_Organizational_Opps__c, Soft Credit.
    const role = typeof o.Account === 'string' && o.Account.startsWith('O:') ? 'Soft Credit' : 'Donor';
    out[`${key}:primary`] = { Role: role, Gift: key, Contact: o.Primary as string, IsPrimary: true };
  }
  return out;
}
