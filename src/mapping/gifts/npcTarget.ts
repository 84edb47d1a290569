/**
 * Nonprofit Cloud as a gift target (PROJECTION.md §1.4, §2.2, §2.3, §4): donors are Person and
 * Business Accounts, the gift a GiftTransaction with DonorId, the fundraiser a GiftSoftCredit
 * upserted on its key, a refund a GiftRefund.
 */
import { fundraiserSlot, GIFT_FIELDS, npcRefund } from './gift.js';
import { NPC_FILL } from './match.js';
import type { DonorObjectSpec, GiftTarget } from './target.js';

/** Person and Business Accounts in one object. */
const ACCOUNTS: DonorObjectSpec = {
  object: 'Account',
  valueFields: ['FirstName', 'LastName', 'PersonEmail', 'Phone', ...NPC_FILL.blocks.flat()],
  emailFields: ['PersonEmail'],
  person: 'IsPersonAccount',
};

export const NPC_TARGET: GiftTarget = {
  model: 'npc',
  donorObjects: { person: ACCOUNTS, organisation: ACCOUNTS },
  personFields: (fields) => ({ ...fields }),
  companyPersonIsPrimary: false,
  fill: NPC_FILL,
  gift: {
    object: 'GiftTransaction',
    fields: GIFT_FIELDS,
    compared: ['Name', 'DonorId', 'GiftType', 'OriginalAmount', 'DonorCoverAmount', 'TransactionDate', 'Status', 'CampaignId', 'PaymentMethod', 'GatewayReference', 'SvcAnonymous__c'],
    links: (ids) => (ids.donor === undefined ? {} : { DonorId: ids.donor }),
    // §2.3: the value of the Connect example.
    canceled: { Status: 'Canceled' },
  },
  slot: {
    object: 'GiftSoftCredit',
    compared: ['RecipientId', 'Role', 'PartialPercent', 'GiftTransactionId'],
    giftField: 'GiftTransactionId',
    recipientField: 'RecipientId',
    selfField: 'DonorId',
    record: (giftKey, recipientKey) => fundraiserSlot(giftKey, recipientKey),
    byExternalId: true,
  },
  refund: { object: 'GiftRefund', compared: ['Amount', 'Date', 'Status', 'Reason', 'GiftTransactionId'], giftField: 'GiftTransactionId', record: npcRefund },
};
