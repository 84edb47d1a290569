/**
 * Nonprofit Cloud as a gift target (PROJECTION.md §1.4, §2.2, §2.3, §4): donors are Person and
 * Business Accounts, the gift a GiftTransaction with DonorId, the fundraiser a GiftSoftCredit
 * upserted on its key, a refund a GiftRefund.
 */
import { fundraiserSlot, GIFT_FIELDS, npcRefund } from './gift.js';
import type { GiftTarget } from './target.js';

export const NPC_TARGET: GiftTarget = {
  model: 'npc',
  donorObjects: { person: 'Account', organisation: 'Account' },
  gift: {
    object: 'GiftTransaction',
    fields: GIFT_FIELDS,
    compared: ['Name', 'DonorId', 'GiftType', 'OriginalAmount', 'DonorCoverAmount', 'TransactionDate', 'Status', 'CampaignId', 'PaymentMethod', 'GatewayReference', 'SvcAnonymous__c'],
    links: (ids) => (ids.donor === undefined ? {} : { DonorId: ids.donor }),
  },
  slot: {
    object: 'GiftSoftCredit',
    compared: ['RecipientId', 'Role', 'PartialPercent', 'GiftTransactionId'],
    giftField: 'GiftTransactionId',
    recipientField: 'RecipientId',
    record: (giftKey, recipientKey) => fundraiserSlot(giftKey, recipientKey),
    byExternalId: true,
  },
  refund: { object: 'GiftRefund', compared: ['Amount', 'Date', 'Status', 'Reason', 'GiftTransactionId'], giftField: 'GiftTransactionId', record: npcRefund },
};
