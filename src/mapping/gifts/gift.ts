/**
 * The gift records of one donation in Nonprofit Cloud (PROJECTION.md §2, §4, appendix N2, N3,
 * N13-N15), as declarative field tables: GiftTransaction (upsert on SvcGiftKey__c), GiftRefund for
 * refunded and charged-back donations (on SvcRefundKey__c) and the fundraiser's GiftSoftCredit (on
 * SvcSoftCreditKey__c). Lookups to donors and campaigns are by external id, so the records are
 * complete without a Salesforce Id; the writer replaces DonorId/RecipientId by the matched Id.
 */
import type { ApiDonation } from '../../model/apiRecords.js';
import { truncate } from '../convert.js';
import { excludedBy, parentRef } from '../map.js';
import { currencyMismatch, fromCents, giftAmount, localDate } from './amounts.js';
import type { DonationDonors } from './donor.js';

type GiftValue = string | number | boolean | { [extField: string]: string };
type GiftRecord = Record<string, GiftValue>;

interface GiftOptions {
  timeZone: string;
  /** The org's currency (single-currency orgs, N1: EUR when unsure). */
  orgCurrency: string;
  /** Soft-credit role of the fundraiser slot (SVC_ROLE_FUNDRAISER, default Solicitor). */
  fundraiserRole?: string | undefined;
}

const DEFAULT_FUNDRAISER_ROLE = 'Solicitor';

/** What the table's value functions read. */
interface GiftInput {
  d: ApiDonation;
  donors: DonationDonors;
  gift: number;
  cover: number;
  date: string;
  campaignKey: string | undefined;
}

const PAYMENT_METHODS: Readonly<Record<string, string>> = { creditcard: 'Credit Card', paypal: 'PayPal' };

/**
 * N14: creditcard -> Credit Card, paypal -> PayPal, anything else -> Unknown. A blank one is
 * Unknown too, not left out as N14 says: GiftTransaction.PaymentMethod is not nillable and has
 * no default (Nonprofit Cloud Developer Guide), so a create without it is refused.
 */
export function paymentMethodOf(v: string | null | undefined): string {
  const m = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return PAYMENT_METHODS[m] ?? 'Unknown';
}

/** GiftTransaction, field by field: the value, or undefined when the field is not sent. */
export const GIFT_FIELDS: ReadonlyArray<{ field: string; value: (g: GiftInput) => GiftValue | undefined }> = [
  { field: 'SvcGiftKey__c', value: (g) => `Donation_${g.d.id}` },
  { field: 'Name', value: (g) => truncate(`${g.donors.label} - Donation ${g.d.id}`, 80) },
  { field: 'Donor', value: (g) => ({ SvcDonorKey__c: g.donors.donor.key }) },
  { field: 'GiftType', value: (g) => g.donors.giftType },
  { field: 'OriginalAmount', value: (g) => fromCents(g.gift) },
  { field: 'DonorCoverAmount', value: (g) => (g.cover > 0 ? fromCents(g.cover) : undefined) },
  { field: 'TransactionDate', value: (g) => g.date },
  { field: 'Status', value: () => 'Paid' },
  { field: 'Campaign', value: (g) => (g.campaignKey === undefined ? undefined : { SvcCampaignKey__c: g.campaignKey }) },
  { field: 'PaymentMethod', value: (g) => paymentMethodOf(g.d.payment_method) },
  { field: 'GatewayReference', value: (g) => (typeof g.d.transaction_id === 'string' && g.d.transaction_id.trim() !== '' ? truncate(g.d.transaction_id.trim(), 255) : undefined) },
  { field: 'SvcAnonymous__c', value: (g) => g.donors.anonymous },
];

export type GiftPlan =
  | { skip: 'excluded' | 'noGiftAmount' | 'noGiftDate'; reason: string }
  | {
      /** Donors and campaigns are still written when only the gift fails (N3). */
      giftProblem?: string | undefined;
      gift: GiftRecord;
      refund?: GiftRecord | undefined;
      /** The refund date came from updated_at: payment_status_at was missing (N15 warning). */
      refundDateFallback?: boolean;
      campaignKey: string | undefined;
      /** The action whose owner gets the fundraiser slot, when the target is an action. */
      fundraiserActionId: number | undefined;
    };

/** The most specific target of the donation (action, team, company, project, segment), as the mirror's TargetSvcId__c. */
function campaignKeyOf(d: ApiDonation): string | undefined {
  return parentRef('donation', d)?.key;
}

/** The gift a donation becomes, or why it becomes none (N2). */
export function giftOf(d: ApiDonation, donors: DonationDonors, opts: GiftOptions): GiftPlan {
  const excluded = excludedBy('donation', d);
  if (excluded !== undefined) return { skip: 'excluded', reason: excluded };
  const amount = giftAmount(d);
  if ('problem' in amount) return { skip: 'noGiftAmount', reason: amount.problem };
  if (amount.gift <= 0) return { skip: 'noGiftAmount', reason: 'noGiftAmount: the gift amount (donation + covered costs) is 0' };
  const date = localDate(d.created_at, opts.timeZone);
  if (date === undefined) return { skip: 'noGiftDate', reason: 'created_at is not a date' };
  const campaignKey = campaignKeyOf(d);
  const input: GiftInput = { d, donors, gift: amount.gift, cover: amount.cover, date, campaignKey };
  const gift: GiftRecord = {};
  for (const f of GIFT_FIELDS) {
    const v = f.value(input);
    if (v !== undefined) gift[f.field] = v;
  }
  const status = (d.payment_status ?? '').trim().toLowerCase();
  let refund: GiftRecord | undefined;
  let refundDateFallback = false;
  if (status === 'refunded' || status === 'chargedback') {
    const at = localDate(d.payment_status_at, opts.timeZone);
    refundDateFallback = at === undefined;
    refund = {
      SvcRefundKey__c: `Donation_${d.id}`,
      GiftTransaction: { SvcGiftKey__c: `Donation_${d.id}` },
      Amount: fromCents(amount.gift),
      Date: at ?? localDate(d.updated_at, opts.timeZone) ?? date,
      Status: 'Completed',
    };
    if (status === 'chargedback') refund.Reason = 'Chargeback';
  }
  const action = campaignKey?.startsWith('Action_') ? Number(campaignKey.slice('Action_'.length)) : undefined;
  return { giftProblem: currencyMismatch(d, opts.orgCurrency), gift, refund, refundDateFallback, campaignKey, fundraiserActionId: action };
}

/** The fundraiser slot (§4): full credit to the action owner's account. */
export function fundraiserSlot(giftKey: string, recipientKey: string, role = DEFAULT_FUNDRAISER_ROLE): GiftRecord {
  return { SvcSoftCreditKey__c: `${giftKey}:fundraiser`, GiftTransaction: { SvcGiftKey__c: giftKey }, Recipient: { SvcDonorKey__c: recipientKey }, Role: role, PartialPercent: 100 };
}
