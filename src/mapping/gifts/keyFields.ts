/**
 * The only metadata the Nonprofit Cloud projection needs (PROJECTION.md §0): one external-id key
 * field per object it upserts, and the anonymous flag on the gift. `schema --projection npc` and
 * `doctor` read this table; nothing is added to the eight Svc_*__c objects.
 */
interface ProjectionField {
  object: 'Account' | 'Campaign' | 'GiftTransaction' | 'GiftSoftCredit' | 'GiftRefund';
  field: string;
  label: string;
  /** Text(length), unique, external id; or a checkbox (default false). */
  type: { kind: 'key'; length: number } | { kind: 'checkbox' };
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
