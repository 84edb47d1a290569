/** The eight mirrored object types, in the order a run writes them (parents before children: the schema's test holds it). */
export const OBJECT_TYPES = ['segment', 'project', 'team', 'company', 'action', 'question', 'donation', 'newsletter_subscription'] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** Salesforce API names of the mirrored objects. */
export type SObjectName = 'Svc_Segment__c' | 'Svc_Project__c' | 'Svc_Team__c' | 'Svc_Company__c' | 'Svc_Action__c' | 'Svc_ActionQuestion__c' | 'Svc_Donation__c' | 'Svc_NewsletterSubscription__c';

/** The Nonprofit Cloud objects the gift projection writes (PROJECTION.md §0). */
export type GiftObject = 'Account' | 'Campaign' | 'GiftTransaction' | 'GiftSoftCredit' | 'GiftRefund' | 'Contact' | 'Opportunity' | 'OpportunityContactRole' | 'npe01__OppPayment__c';

/** Types a run can be asked to sync by id; questions come inside their action. */
export type SyncableType = Exclude<ObjectType, 'question'>;

/** The order a run writes in: parents before children. Questions ride with their actions. */
export const SYNC_ORDER: readonly SyncableType[] = OBJECT_TYPES.filter((t): t is SyncableType => t !== 'question');

/** A reference to a platform object, as given by a command line, a file, a scan or a webhook. */
export interface ObjectRef {
  type: SyncableType;
  id: number;
}

/** A Map, not an object literal: outside input must not reach Object.prototype ("constructor"). */
const ALIASES: ReadonlyMap<string, SyncableType> = new Map([
  ['segment', 'segment'],
  ['project', 'project'],
  ['company', 'company'],
  ['team', 'team'],
  ['action', 'action'],
  ['donation', 'donation'],
  ['newslettersubscription', 'newsletter_subscription'],
]);

/**
 * Accepts the singular, plural, snake, kebab and Pascal forms used by the API, the webhooks and
 * people (donation, donations, newsletter-subscriptions, NewsletterSubscription ...).
 */
export function parseObjectType(input: string): SyncableType | undefined {
  const flat = input
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
  // A Map: "constructor" or "__proto__" from a webhook body never reaches a prototype.
  return ALIASES.get(flat) ?? ALIASES.get(flat.replace(/s$/, '')) ?? ALIASES.get(flat.replace(/ies$/, 'y'));
}
