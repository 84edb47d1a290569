/** The eight mirrored object types, in the order a run writes them (parents before children: the schema's test holds it). */
export const OBJECT_TYPES = [
  'segment',
  'project',
  'team',
  'company',
  'action',
  'question',
  'donation',
  'newsletter_subscription',
] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** Salesforce API names of the mirrored objects. */
export type SObjectName =
  | 'Svc_Segment__c'
  | 'Svc_Project__c'
  | 'Svc_Team__c'
  | 'Svc_Company__c'
  | 'Svc_Action__c'
  | 'Svc_ActionQuestion__c'
  | 'Svc_Donation__c'
  | 'Svc_NewsletterSubscription__c';

/** Types a run can be asked to sync by id; questions come inside their action. */
export type SyncableType = Exclude<ObjectType, 'question'>;

/** The order a run writes in: parents before children. Questions ride with their actions. */
export const SYNC_ORDER: readonly SyncableType[] = OBJECT_TYPES.filter((t): t is SyncableType => t !== 'question');

/** A reference to a platform object, as given by a command line, a file, a scan or a webhook. */
export interface ObjectRef {
  type: SyncableType;
  id: number;
}

const ALIASES: Record<string, SyncableType> = {
  segment: 'segment',
  project: 'project',
  company: 'company',
  team: 'team',
  action: 'action',
  donation: 'donation',
  newslettersubscription: 'newsletter_subscription',
};

/**
 * Accepts the singular, plural, snake, kebab and Pascal forms used by the API, the webhooks and
 * people (donation, donations, newsletter-subscriptions, NewsletterSubscription ...).
 */
export function parseObjectType(input: string): SyncableType | undefined {
  const flat = input.trim().toLowerCase().replace(/[-_\s]/g, '');
  // Own keys only: "constructor" or "__proto__" from a webhook body must not come back as a type.
  const alias = (key: string): SyncableType | undefined => (Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined);
  return alias(flat) ?? alias(flat.replace(/s$/, '')) ?? alias(flat.replace(/ies$/, 'y'));
}
