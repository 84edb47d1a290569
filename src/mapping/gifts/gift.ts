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
import type { FieldRule, GiftInput, GiftRecord, GiftTarget, RefundInput } from './target.js';

interface GiftOptions {
  timeZone: string;
  /** The org's currency (single-currency orgs, N1: EUR when unsure). */
  orgCurrency: string;
  /** The target's gift table and refund (default: Nonprofit Cloud's). */
  rules?: { fields: readonly FieldRule[]; refund?: ((r: RefundInput) => GiftRecord) | undefined } | undefined;
}

const DEFAULT_FUNDRAISER_ROLE = 'Solicitor';

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
export const GIFT_FIELDS: readonly FieldRule[] = [
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
  const status = (d.payment_status ?? '').trim().toLowerCase();
  const input: GiftInput = { d, donors, gift: amount.gift, cover: amount.cover, date, campaignKey, status };
  const rules = opts.rules ?? NPC_RULES;
  const gift: GiftRecord = {};
  for (const f of rules.fields) {
    const v = f.value(input);
    if (v !== undefined) gift[f.field] = v;
  }
  let refund: GiftRecord | undefined;
  let refundDateFallback = false;
  if (status === 'refunded' || status === 'chargedback') {
    const at = localDate(d.payment_status_at, opts.timeZone);
    refundDateFallback = at === undefined;
    refund = rules.refund?.({ ...input, refundDate: at ?? localDate(d.updated_at, opts.timeZone) ?? date });
  }
  const action = campaignKey?.startsWith('Action_') ? Number(campaignKey.slice('Action_'.length)) : undefined;
  return { giftProblem: currencyMismatch(d, opts.orgCurrency), gift, refund, refundDateFallback, campaignKey, fundraiserActionId: action };
}

/** §2.3 NPC: a GiftRefund of the whole gift, dated R; Reason Chargeback for a chargeback. */
export function npcRefund(r: RefundInput): GiftRecord {
  const refund: GiftRecord = {
    SvcRefundKey__c: `Donation_${r.d.id}`,
    GiftTransaction: { SvcGiftKey__c: `Donation_${r.d.id}` },
    Amount: fromCents(r.gift),
    Date: r.refundDate,
    Status: 'Completed',
  };
  if (r.status === 'chargedback') refund.Reason = 'Chargeback';
  return refund;
}

const NPC_RULES: NonNullable<GiftOptions['rules']> = { fields: GIFT_FIELDS, refund: npcRefund };

/** The rules of a target's gift and refund, as giftOf takes them. */
export const rulesOf = (t: GiftTarget): NonNullable<GiftOptions['rules']> => ({ fields: t.gift.fields, refund: t.refund?.record });

/** The fundraiser slot (§4): full credit to the action owner's account. */
export function fundraiserSlot(giftKey: string, recipientKey: string, role = DEFAULT_FUNDRAISER_ROLE): GiftRecord {
  return { SvcSoftCreditKey__c: `${giftKey}:fundraiser`, GiftTransaction: { SvcGiftKey__c: giftKey }, Recipient: { SvcDonorKey__c: recipientKey }, Role: role, PartialPercent: 100 };
}
