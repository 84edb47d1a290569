/**
 * The gift projection's keys in a shared org (SITES.md, "The gift projection in a shared org"):
 * with SVC_SITE_KEYS every gift-side key derived from a platform id carries the site
 * (`6:Donation_123`, `6:Donation_123:fundraiser`, `6:Project_12`, `D:6:Donation_123`). Person and
 * organisation donor keys (from email and name) carry none, so a donor who gives on two sites is
 * one donor; the anonymous pool (`A:6`) names its site already. The projection keeps today's keys;
 * these turn them into the org's and back at the sink's edge.
 */
import { ownBareKey, qualifyKey } from './siteKeys.js';

/** The gift-side fields whose whole value is a key (the mirror's SvcId__c too: the projection reads the mirror's rows by it). */
const GIFT_KEY_FIELDS: readonly string[] = ['SvcGiftKey__c', 'SvcRefundKey__c', 'SvcSoftCreditKey__c', 'SvcCampaignKey__c', 'SvcId__c'];

/** The donor key field: only its per-donation `D:` keys derive from a platform id. */
const DONOR_KEY_FIELD = 'SvcDonorKey__c';

/** The per-donation donor key's kind: `D:<donation key>`. */
const PER_DONATION = 'D:';

/** A value of `field` as the org holds it for site `siteId`; a value that carries no platform id as it is. */
export function giftValueToOrg(siteId: number, field: string, value: string): string {
  if (value === '') return value;
  if (GIFT_KEY_FIELDS.includes(field)) return qualifyKey(siteId, value);
  if (field === DONOR_KEY_FIELD && value.startsWith(PER_DONATION)) return PER_DONATION + qualifyKey(siteId, value.slice(PER_DONATION.length));
  return value;
}

/**
 * A value of `field` as the projection knows it: this site's prefix taken off. Another site's key
 * (or a bare one) stays as the org holds it, so it never equals a key of this site's.
 */
export function giftValueFromOrg(siteId: number, field: string, value: string): string {
  if (GIFT_KEY_FIELDS.includes(field)) return ownBareKey(siteId, value) ?? value;
  if (field === DONOR_KEY_FIELD && value.startsWith(PER_DONATION)) {
    const own = ownBareKey(siteId, value.slice(PER_DONATION.length));
    return own === undefined ? value : PER_DONATION + own;
  }
  return value;
}

/** Whether a field holds keys that differ between the projection and the org. */
export const isGiftKeyField = (field: string): boolean => field === DONOR_KEY_FIELD || GIFT_KEY_FIELDS.includes(field);
