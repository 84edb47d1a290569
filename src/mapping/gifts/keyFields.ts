/**
 * The only metadata the Nonprofit Cloud projection needs (PROJECTION.md §0): one external-id key
 * field per object it upserts, and the anonymous flag on the gift. `schema --projection npc` and
 * `doctor` read this table; nothing is added to the eight Svc_*__c objects.
 */
interface ProjectionField {
  object: 'Account' | 'Campaign' | 'GiftTransaction' | 'GiftSoftCredit' | 'GiftRefund' | 'Contact' | 'Opportunity' | 'OpportunityContactRole' | 'npe01__OppPayment__c';
  field: string;
  label: string;
  /** Text(length), unique, external id; or a checkbox (default false). */
  type: { kind: 'key'; length: number } | { kind: 'text'; length: number } | { kind: 'checkbox' };
  why: string;
}

export const NPC_KEY_FIELDS: readonly ProjectionField[] = [
  { object: 'Account', field: 'SvcDonorKey__c', label: 'Svc Donor Key', type: { kind: 'key', length: 255 }, why: 'donor key (P:, O:, D:, A:)' },
  { object: 'Campaign', field: 'SvcCampaignKey__c', label: 'Svc Campaign Key', type: { kind: 'key', length: 50 }, why: 'the mirror key of the page, team, company, project or segment' },
  { object: 'GiftTransaction', field: 'SvcGiftKey__c', label: 'Svc Gift Key', type: { kind: 'key', length: 50 }, why: 'the donation key (Donation_<id>)' },
  { object: 'GiftTransaction', field: 'SvcAnonymous__c', label: 'Svc Anonymous', type: { kind: 'checkbox' }, why: 'the donation was anonymous or hid its details' },
  { object: 'GiftSoftCredit', field: 'SvcSoftCreditKey__c', label: 'Svc Soft Credit Key', type: { kind: 'key', length: 80 }, why: 'the slot key (Donation_<id>:fundraiser)' },
  { object: 'GiftRefund', field: 'SvcRefundKey__c', label: 'Svc Refund Key', type: { kind: 'key', length: 50 }, why: 'the donation key of the refund' },
];

/**
 * NPSP's (§0, P9): the donor key on Contacts and Organization Accounts, the gift key and flag on
 * Opportunity, the slot key on OpportunityContactRole as plain text (whether it can be an external
 * id is not confirmed: §0's fallback), the refund key on the payment.
 */
export const NPSP_KEY_FIELDS: readonly ProjectionField[] = [
  { object: 'Contact', field: 'SvcDonorKey__c', label: 'Svc Donor Key', type: { kind: 'key', length: 255 }, why: 'donor key (P:, D:, A:)' },
  { object: 'Account', field: 'SvcDonorKey__c', label: 'Svc Donor Key', type: { kind: 'key', length: 255 }, why: 'organisation key (O:, D:)' },
  { object: 'Campaign', field: 'SvcCampaignKey__c', label: 'Svc Campaign Key', type: { kind: 'key', length: 50 }, why: 'the mirror key of the page, team, company, project or segment' },
  { object: 'Opportunity', field: 'SvcGiftKey__c', label: 'Svc Gift Key', type: { kind: 'key', length: 50 }, why: 'the donation key (Donation_<id>)' },
  { object: 'Opportunity', field: 'SvcAnonymous__c', label: 'Svc Anonymous', type: { kind: 'checkbox' }, why: 'the donation was anonymous or hid its details' },
  { object: 'OpportunityContactRole', field: 'SvcSoftCreditKey__c', label: 'Svc Soft Credit Key', type: { kind: 'text', length: 80 }, why: 'the slot key (Donation_<id>:fundraiser)' },
  { object: 'npe01__OppPayment__c', field: 'SvcRefundKey__c', label: 'Svc Refund Key', type: { kind: 'key', length: 50 }, why: 'the donation key of a refund payment' },
];
