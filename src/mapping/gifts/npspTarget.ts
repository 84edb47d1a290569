/**
 * NPSP as a gift target (PROJECTION.md §1.4, §2.2, §2.3, §4 and appendix P1-P14): persons are
 * Contacts (NPSP gives each its Household Account), companies Organization Accounts, the gift an
 * Opportunity with npsp__Primary_Contact__c, the fundraiser an OpportunityContactRole found by its
 * plain key field, a refund either the stage (`stage`) or a negative payment (`payments`).
 * Nothing NPSP does itself is written: no AccountId on a Contact, no primary contact role.
 */
import { truncate } from '../convert.js';
import { fromCents } from './amounts.js';
import type { DonorObjectSpec, FieldRule, FillRule, GiftRecord, GiftTarget, RefundInput } from './target.js';

const EMAILS = ['Email', 'npe01__HomeEmail__c', 'npe01__WorkEmail__c', 'npe01__AlternateEmail__c'];
const MAILING = ['MailingStreet', 'MailingPostalCode', 'MailingCity', 'MailingCountry'];
const BILLING = ['BillingStreet', 'BillingPostalCode', 'BillingCity', 'BillingCountry'];

/** P4: phones one by one; the email trio, the Mailing and the Billing address each as a block. */
const NPSP_FILL: FillRule = { single: ['Phone', 'HomePhone'], blocks: [['Email', 'npe01__HomeEmail__c', 'npe01__Preferred_Email__c'], MAILING, BILLING] };

/** Persons are Contacts (AccountId read: the gift's Account, P8); step 3 looks in all four emails (P5). */
const CONTACTS: DonorObjectSpec = {
  object: 'Contact',
  valueFields: ['FirstName', 'LastName', ...EMAILS, 'npe01__Preferred_Email__c', 'Phone', 'HomePhone', ...MAILING, 'AccountId'],
  emailFields: EMAILS,
  person: true,
};
/** Companies are Organization Accounts, matched by key only (P5). */
const ORGANISATIONS: DonorObjectSpec = { object: 'Account', valueFields: ['Name', ...BILLING], emailFields: [], person: false };

type NpspRefundMode = 'stage' | 'payments';

/**
 * The SVC_NPSP_* names, always given: their defaults live once, in the settings (config/), which
 * this folder may not read.
 */
export interface NpspNames {
  /** SVC_NPSP_STAGE_WON, SVC_NPSP_STAGE_REFUNDED. */
  stageWon: string;
  stageRefunded: string;
  /** SVC_NPSP_STAGE_CANCELED (P12): a gift whose donation is gone or no longer eligible. */
  stageCanceled: string;
  /** SVC_NPSP_ROLE_FUNDRAISER (a role NPSP counts as a soft credit). */
  fundraiserRole: string;
}

/** The four names of wider settings (their donationRecordType is a DeveloperName, not the Id a target takes). */
export const npspNames = (n: NpspNames): NpspNames => ({ stageWon: n.stageWon, stageRefunded: n.stageRefunded, stageCanceled: n.stageCanceled, fundraiserRole: n.fundraiserRole });

interface NpspOptions extends NpspNames {
  refundMode: NpspRefundMode;
  /** The Opportunity record type Id of SVC_NPSP_DONATION_RECORD_TYPE (Donation), when the org has it. */
  donationRecordType?: string | undefined;
}

/** P3: the plan's Person Account names -> the Contact's (an email and a phone go to two fields each). */
const PERSON_RENAME: Readonly<Record<string, readonly string[]>> = {
  FirstName: ['FirstName'],
  LastName: ['LastName'],
  PersonEmail: ['Email', 'npe01__HomeEmail__c'],
  Phone: ['Phone', 'HomePhone'],
  PersonMailingStreet: ['MailingStreet'],
  PersonMailingPostalCode: ['MailingPostalCode'],
  PersonMailingCity: ['MailingCity'],
  PersonMailingCountry: ['MailingCountry'],
  PersonBirthdate: ['Birthdate'],
};

/** The value NPSP's own import writes for a personal email (BDI_ContactService.strPreferredEmail). */
const PREFERRED_PERSONAL = 'Personal';

export function contactFields(fields: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [from, value] of Object.entries(fields)) for (const to of PERSON_RENAME[from] ?? [from]) out[to] = value;
  if (out.Email !== undefined) out.npe01__Preferred_Email__c = PREFERRED_PERSONAL;
  return out;
}

const isRefund = (status: string): boolean => status === 'refunded' || status === 'chargedback';

function opportunityFields(o: NpspOptions): FieldRule[] {
  const won = o.stageWon;
  const lost = o.stageRefunded;
  const stage = o.refundMode === 'stage';
  return [
    { field: 'SvcGiftKey__c', value: (g) => `Donation_${g.d.id}` },
    { field: 'Name', value: (g) => truncate(`${g.donors.label} - Donation ${g.d.id}`, 120) },
    // P10: `stage` mode marks a refund on the gift; `payments` mode keeps it won beside a refund payment.
    { field: 'StageName', value: (g) => (stage && isRefund(g.status) ? lost : won) },
    { field: 'CloseDate', value: (g) => g.date },
    { field: 'Amount', value: (g) => fromCents(g.gift) },
    { field: 'RecordTypeId', value: () => o.donationRecordType },
    // NPSP makes a payment for every new Opportunity unless told not to (PMT_PaymentCreator): `stage` mode has none.
    { field: 'npe01__Do_Not_Automatically_Create_Payment__c', value: () => (stage ? true : undefined) },
    { field: 'SvcAnonymous__c', value: (g) => g.donors.anonymous },
  ];
}

/** P10 `payments` mode: the refund payment (its original payment is the writer's to find). */
function refundPayment(r: RefundInput): GiftRecord {
  return {
    SvcRefundKey__c: `Donation_${r.d.id}`,
    npe01__Payment_Amount__c: -fromCents(r.gift),
    npe01__Paid__c: true,
    npe01__Payment_Date__c: r.refundDate,
    npsp__DebitType__c: r.status === 'chargedback' ? 'Chargeback' : 'Refund',
  };
}

export function npspTarget(o: NpspOptions): GiftTarget {
  const role = o.fundraiserRole;
  return {
    model: 'npsp',
    donorObjects: { person: CONTACTS, organisation: ORGANISATIONS },
    personFields: contactFields,
    companyPersonIsPrimary: true,
    fill: NPSP_FILL,
    gift: {
      object: 'Opportunity',
      fields: opportunityFields(o),
      compared: ['Name', 'StageName', 'CloseDate', 'Amount', 'RecordTypeId', 'npe01__Do_Not_Automatically_Create_Payment__c', 'SvcAnonymous__c', 'CampaignId', 'AccountId', 'npsp__Primary_Contact__c'],
      // P8: AccountId is not sent while blank (no household yet): NPSP fills it from the primary contact.
      links: (ids) => ({ npsp__Primary_Contact__c: ids.primaryContact ?? null, ...(ids.account === undefined ? {} : { AccountId: ids.account }) }),
      canceled: { StageName: o.stageCanceled },
    },
    slot: {
      object: 'OpportunityContactRole',
      compared: ['ContactId', 'Role', 'IsPrimary', 'OpportunityId'],
      giftField: 'OpportunityId',
      recipientField: 'ContactId',
      selfField: 'npsp__Primary_Contact__c',
      record: (giftKey) => ({ SvcSoftCreditKey__c: `${giftKey}:fundraiser`, Role: role, IsPrimary: false }),
      byExternalId: false,
    },
    refund:
      o.refundMode === 'payments'
        ? {
            object: 'npe01__OppPayment__c',
            compared: ['npe01__Payment_Amount__c', 'npe01__Paid__c', 'npe01__Payment_Date__c', 'npsp__DebitType__c', 'npe01__Opportunity__c'],
            giftField: 'npe01__Opportunity__c',
            record: refundPayment,
            original: { field: 'npsp__OriginalPayment__c', paidField: 'npe01__Paid__c' },
          }
        : undefined,
  };
}
