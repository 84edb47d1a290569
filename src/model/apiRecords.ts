/**
 * Typed API records, as the platform's read API returns them (see ../shared/reference).
 * Only the keys the mirror reads are typed; records carry many more, which are ignored.
 * Every key is optional and nullable: the real API omits keys freely (older list payloads do).
 */

type Maybe<T> = T | null | undefined;

/** The collections of the read API, by the singular name that wraps a single record. */
export const RESOURCES = {
  segment: { path: 'segments', one: 'segment', many: 'segments' },
  project: { path: 'projects', one: 'project', many: 'projects' },
  company: { path: 'companies', one: 'company', many: 'companies' },
  team: { path: 'teams', one: 'team', many: 'teams' },
  action: { path: 'actions', one: 'action', many: 'actions' },
  user: { path: 'users', one: 'user', many: 'users' },
  donation: { path: 'donations', one: 'donation', many: 'donations' },
  newsletter_subscription: {
    path: 'newsletter-subscriptions',
    one: 'newsletter_subscription',
    many: 'newsletter_subscriptions',
  },
} as const;
export type ResourceType = keyof typeof RESOURCES;

export interface ApiConsent {
  consent_type?: Maybe<string>;
  consent_status?: Maybe<string>;
  granted_at?: Maybe<string>;
  consent_text?: Maybe<string>;
  url?: Maybe<string>;
  terms_conditions_version?: Maybe<string>;
  privacy_version?: Maybe<string>;
}

interface ApiBase {
  id: number;
  site_id?: Maybe<number>;
  created_at?: Maybe<string>;
  updated_at?: Maybe<string>;
}

/** Fields common to segments, projects, companies and teams (SPEC 2.1). */
export interface ApiEntity extends ApiBase {
  name?: Maybe<string>;
  title?: Maybe<string>;
  description?: Maybe<string>;
  target_amount?: Maybe<number | string>;
  end_date?: Maybe<string>;
  url?: Maybe<string>;
  external_reference?: Maybe<string>;
  total_amount?: Maybe<string | number>;
  total_donations?: Maybe<number | string>;
  visible?: Maybe<boolean>;
  closed?: Maybe<boolean>;
  segment_id?: Maybe<number>;
  project_id?: Maybe<number>;
}

export type ApiSegment = ApiEntity;
export type ApiProject = ApiEntity;
export type ApiTeam = ApiEntity;
export interface ApiCompany extends ApiEntity {
  activity?: Maybe<{ id?: Maybe<number>; name?: Maybe<string> }>;
  package?: Maybe<{ id?: Maybe<number>; title?: Maybe<string> }>;
}

interface ApiOwner {
  id?: Maybe<number>;
  first_name?: Maybe<string>;
  infix?: Maybe<string>;
  last_name?: Maybe<string>;
  email?: Maybe<string>;
  avatar_url?: Maybe<string>;
}

export interface ApiQuestion {
  id: number;
  created_at?: Maybe<string>;
  updated_at?: Maybe<string>;
  question?: Maybe<string>;
  answer?: Maybe<string>;
}

export interface ApiAction extends ApiBase {
  segment_id?: Maybe<number>;
  project_id?: Maybe<number>;
  team_id?: Maybe<number>;
  company_id?: Maybe<number>;
  owner?: Maybe<ApiOwner>;
  first_name?: Maybe<string>;
  infix?: Maybe<string>;
  last_name?: Maybe<string>;
  title?: Maybe<string>;
  description?: Maybe<string>;
  fundraiser_page?: Maybe<boolean>;
  url?: Maybe<string>;
  target_amount?: Maybe<number | string>;
  end_date?: Maybe<string>;
  external_reference?: Maybe<string>;
  activity?: Maybe<{ id?: Maybe<number>; name?: Maybe<string> }>;
  visible?: Maybe<boolean>;
  closed?: Maybe<boolean>;
  total_amount?: Maybe<string | number>;
  total_donations?: Maybe<number | string>;
  team_captain?: Maybe<boolean>;
  previous_participations?: Maybe<number | string>;
  questions?: Maybe<ApiQuestion[]>;
  consents?: Maybe<ApiConsent[]>;
}

export interface ApiAddress {
  address?: Maybe<string>;
  address2?: Maybe<string>;
  street?: Maybe<string>;
  house_number?: Maybe<string>;
  house_number_addition?: Maybe<string>;
  zipcode?: Maybe<string>;
  city?: Maybe<string>;
  country?: Maybe<string>;
}

/** The full user record (GET /v1/users/:id): a person with an address. */
export interface ApiUser extends ApiBase, ApiAddress {
  first_name?: Maybe<string>;
  infix?: Maybe<string>;
  last_name?: Maybe<string>;
  email?: Maybe<string>;
  phone?: Maybe<string>;
  gender?: Maybe<string>;
  birthday?: Maybe<string>;
  locale?: Maybe<string>;
}

export interface ApiDonation extends ApiBase {
  segment_id?: Maybe<number>;
  project_id?: Maybe<number>;
  team_id?: Maybe<number>;
  company_id?: Maybe<number>;
  action_id?: Maybe<number>;
  first_name?: Maybe<string>;
  infix?: Maybe<string>;
  last_name?: Maybe<string>;
  company?: Maybe<string>;
  email?: Maybe<string>;
  phone?: Maybe<string>;
  gender?: Maybe<string>;
  birthday?: Maybe<string>;
  locale?: Maybe<string>;
  address?: Maybe<ApiAddress>;
  currency?: Maybe<string>;
  /** List payloads carry only this (PROJECTION.md §2.1: the gift's D when donation_amount is absent). */
  amount?: Maybe<string | number>;
  donation_amount?: Maybe<string | number>;
  transaction_costs?: Maybe<string | number>;
  total_amount?: Maybe<string | number>;
  receivable_amount?: Maybe<string | number>;
  invoicenumber?: Maybe<string>;
  payment_status_at?: Maybe<string>;
  payment_method?: Maybe<string>;
  payment_status?: Maybe<string>;
  transaction_id?: Maybe<string>;
  account_iban?: Maybe<string>;
  account_bic?: Maybe<string>;
  account_name?: Maybe<string>;
  message?: Maybe<string>;
  newsletter?: Maybe<boolean>;
  countable?: Maybe<boolean>;
  registration_fee?: Maybe<boolean>;
  registration_fee_amount?: Maybe<string | number>;
  start_donation?: Maybe<boolean>;
  consents?: Maybe<ApiConsent[]>;
  /** Public anonymity (towards the site); read by the gift projection only. */
  anonymous?: Maybe<boolean>;
  /** "visible" in the sample; other values hide the donor's details (PROJECTION.md §1.5). */
  contact_details_type?: Maybe<string>;
}

/** A subscription's entity as SPEC.md 2.9 describes it: `{ "entity_type": "Project", "entity_id": 2 }`. */
interface ApiEntityLink {
  entity_type?: Maybe<string>;
  entity_id?: Maybe<number | string>;
}

export interface ApiNewsletterSubscription extends ApiBase {
  first_name?: Maybe<string>;
  infix?: Maybe<string>;
  last_name?: Maybe<string>;
  email?: Maybe<string>;
  locale?: Maybe<string>;
  /**
   * The link to the entity, in the three forms platforms send, read in this order: SPEC.md's
   * entity as a nested object, the same two keys at the top level, and the real API's
   * project_id / segment_id (see ../shared/reference). Ids may come as numeric strings.
   */
  entity?: Maybe<ApiEntityLink>;
  entity_type?: Maybe<string>;
  entity_id?: Maybe<number | string>;
  project_id?: Maybe<number | string>;
  segment_id?: Maybe<number | string>;
  consents?: Maybe<ApiConsent[]>;
}

export interface ApiRecordOf {
  segment: ApiSegment;
  project: ApiProject;
  company: ApiCompany;
  team: ApiTeam;
  action: ApiAction;
  user: ApiUser;
  donation: ApiDonation;
  newsletter_subscription: ApiNewsletterSubscription;
}
export type ApiRecord = ApiRecordOf[ResourceType];

/** The list envelope (../shared/reference/platform-responses/*s.json). */
export interface ListPage<T> {
  records: T[];
  totalEntries: number;
  totalPages: number;
  perPage: number;
  currentPage: number;
}
