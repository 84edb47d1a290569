/**
 * The eight mirrored objects as data: SPEC.md section 2, table by table. Mapping, validation,
 * the dry-run diff, the Salesforce metadata export and `doctor` all read this one table.
 */
import type { ObjectType, SObjectName, SyncableType } from '../model/objects.js';
import { OBJECT_TYPES } from '../model/objects.js';
import { KEY_FIELD, KEY_TEMPLATES } from '../model/refs.js';
import type { FieldDef, SourcePath } from './fieldTypes.js';
import { checkbox, date, dateTime, html, longText, lookup, number, text } from './fieldTypes.js';

export interface ParentRule {
  /** Parents are fetchable objects: a question is nobody's parent. */
  type: SyncableType;
  /** Where the parent's platform id is read from. */
  idPath: SourcePath;
  /** Lookup on the child set to the parent's Salesforce Id. */
  direct: string;
  /** Lookups copied from the parent's CRM record (same field names there), never from the API. */
  inherit: string[];
}

interface FilterRule {
  path: SourcePath;
  /** The value must be one of these ... */
  oneOf?: string[];
  /** ... or a number other than zero ... */
  nonZero?: boolean;
  /** ... or not blank. */
  notBlank?: boolean;
  reason: string;
}

/**
 * What a record's mapping context holds beyond `record.*` and `consent.*`, per type: the parts the
 * engine fetches or reads for it. The mapping and the engine read these rules; neither names a type.
 */
interface ContextRules {
  /** `user.*` is the record's owner, fetched from the platform by the id at this path (SPEC 2.5). */
  owner?: { idPath: SourcePath };
  /** `target.*` is the parent's record in Salesforce (its ExternalReference__c) (SPEC 2.7, 2.9). */
  target?: boolean;
  /**
   * Records nested in this one (an action's questions), mapped by their own type's schema once
   * this record is written, with this record under the name `as` in their context.
   */
  nested?: { type: ObjectType; path: SourcePath; as: string };
  /** The parent may be given as entity_type + entity_id (SPEC.md's form of subscriptions). */
  entityForm?: boolean;
}

export interface ObjectSchema {
  type: ObjectType;
  apiName: SObjectName;
  label: string;
  pluralLabel: string;
  /** SvcId__c template (model/refs.ts): `{path}` parts are read from the mapping context. */
  key: string;
  /** Name: the first alternative whose parts are not all blank, parts joined by one space. */
  name: SourcePath[][];
  consentType?: 'terms_conditions' | 'newsletter_subscription';
  filters: FilterRule[];
  /** Most specific first: the first rule whose id is present is the parent, with no fallback. */
  parents: ParentRule[];
  /**
   * Parents the platform allows beyond the spec's (a donation to a donation form, or to the site
   * itself), in the vendor's order, after `parents`: such a record is written with no lookups and
   * its target key blank, counted, never a missing parent. The last one may have no idPath: the
   * site, when no id at all is given.
   */
  outside?: Array<{ idPath?: SourcePath; what: string }>;
  context: ContextRules;
  fields: FieldDef[];
}

export const NAME_FIELD = 'Name';
export const NAME_LENGTH = 80;

const field = (name: string, label: string, type: FieldDef['type'], source?: SourcePath, extra: Partial<FieldDef> = {}): FieldDef => ({
  name,
  label,
  type,
  source,
  ...extra,
});

const keyField = (): FieldDef => field(KEY_FIELD, 'Svc Id', text(50), 'key', { externalId: true, unique: true, required: true });
const stamps = (): FieldDef[] => [field('CreatedAt__c', 'Created At', dateTime(), 'record.created_at'), field('UpdatedAt__c', 'Updated At', dateTime(), 'record.updated_at')];

/** SPEC 2.1: fields common to segments, projects, companies and teams. */
const commonEntityFields = (): FieldDef[] => [
  keyField(),
  ...stamps(),
  field('Title__c', 'Title', text(255), 'record.title'),
  field('Description__c', 'Description', html(), 'record.description'),
  field('TargetAmount__c', 'Target Amount', number(18, 0), 'record.target_amount'),
  field('EndDate__c', 'End Date', dateTime(), 'record.end_date'),
  field('URL__c', 'URL', longText(), 'record.url'),
  field('ExternalReference__c', 'External Reference', text(255), 'record.external_reference'),
  field('TotalAmount__c', 'Total Amount', number(10, 2), 'record.total_amount'),
  field('TotalDonations__c', 'Total Donations', number(18, 0), 'record.total_donations'),
];

const visibleClosed = (visibleDefault = false): FieldDef[] => [field('Visible__c', 'Visible', checkbox(visibleDefault), 'record.visible'), field('Closed__c', 'Closed', checkbox(), 'record.closed')];

const consentFields = (): FieldDef[] => [
  field('ConsentURL__c', 'Consent URL', longText(), 'consent.url'),
  field('ConsentText__c', 'Consent Text', longText(), 'consent.consent_text'),
  field('ConsentTermsConditions__c', 'Consent Terms Conditions', text(255), 'consent.terms_conditions_version'),
];

const personNames = (): FieldDef[] => [
  field('FirstName__c', 'First Name', text(255), 'record.first_name'),
  field('Infix__c', 'Infix', text(255), 'record.infix'),
  field('LastName__c', 'Last Name', text(255), 'record.last_name'),
];

/** Address fields with the same names on actions (from the user) and donations (from address). */
const addressFields = (from: 'user' | 'record.address'): FieldDef[] => [
  field('Address__c', 'Address', text(255), `${from}.address`),
  field('Address2__c', 'Address 2', text(255), `${from}.address2`),
  field('Street__c', 'Street', text(255), `${from}.street`),
  field('HouseNumber__c', 'House Number', text(255), `${from}.house_number`),
  field('HouseNumberAddition__c', 'House Number Addition', text(255), `${from}.house_number_addition`),
  field('Zipcode__c', 'Zipcode', text(255), `${from}.zipcode`),
  field('City__c', 'City', text(255), `${from}.city`),
  field('Country__c', 'Country', text(255), `${from}.country`),
];

const lookups = (...targets: SObjectName[]): FieldDef[] =>
  targets.map((to) =>
    field(
      to,
      to
        .replace(/^Svc_/, 'Svc ')
        .replace(/__c$/, '')
        .replace(/([a-z])([A-Z])/g, '$1 $2'),
      lookup(to),
    ),
  );

/** SPEC 2.4-2.9 cascade rows for a child of a team/company level object. */
const projectOrSegmentParents = (): ParentRule[] => [
  { type: 'project', idPath: 'record.project_id', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
  { type: 'segment', idPath: 'record.segment_id', direct: 'Svc_Segment__c', inherit: [] },
];

/** SPEC 2.6/2.8 cascade rows below the team/company level: team, company, project, segment. */
const teamOrCompanyParents = (): ParentRule[] => [
  { type: 'team', idPath: 'record.team_id', direct: 'Svc_Team__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
  { type: 'company', idPath: 'record.company_id', direct: 'Svc_Company__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
  ...projectOrSegmentParents(),
];

const PERSON_NAME: SourcePath[] = ['record.first_name', 'record.infix', 'record.last_name'];

export const SCHEMA: Record<ObjectType, ObjectSchema> = {
  segment: {
    type: 'segment',
    apiName: 'Svc_Segment__c',
    label: 'Svc Segment',
    pluralLabel: 'Svc Segments',
    key: KEY_TEMPLATES.segment,
    name: [['record.name']],
    filters: [],
    parents: [],
    context: {},
    fields: commonEntityFields(),
  },
  project: {
    type: 'project',
    apiName: 'Svc_Project__c',
    label: 'Svc Project',
    pluralLabel: 'Svc Projects',
    key: KEY_TEMPLATES.project,
    name: [['record.title']],
    filters: [],
    parents: [{ type: 'segment', idPath: 'record.segment_id', direct: 'Svc_Segment__c', inherit: [] }],
    context: {},
    fields: [...commonEntityFields(), ...visibleClosed(true), ...lookups('Svc_Segment__c')],
  },
  team: {
    type: 'team',
    apiName: 'Svc_Team__c',
    label: 'Svc Team',
    pluralLabel: 'Svc Teams',
    key: KEY_TEMPLATES.team,
    name: [['record.name']],
    filters: [],
    parents: projectOrSegmentParents(),
    context: {},
    fields: [...commonEntityFields(), ...visibleClosed(), ...lookups('Svc_Project__c', 'Svc_Segment__c')],
  },
  company: {
    type: 'company',
    apiName: 'Svc_Company__c',
    label: 'Svc Company',
    pluralLabel: 'Svc Companies',
    key: KEY_TEMPLATES.company,
    name: [['record.name']],
    filters: [],
    parents: projectOrSegmentParents(),
    context: {},
    fields: [
      ...commonEntityFields(),
      ...visibleClosed(),
      field('ActivityName__c', 'Activity Name', text(255), 'record.activity.name'),
      field('CompanyPackageTitle__c', 'Company Package Title', text(255), 'record.package.title'),
      ...lookups('Svc_Project__c', 'Svc_Segment__c'),
    ],
  },
  action: {
    type: 'action',
    apiName: 'Svc_Action__c',
    label: 'Svc Action',
    pluralLabel: 'Svc Actions',
    key: KEY_TEMPLATES.action,
    name: [PERSON_NAME],
    consentType: 'terms_conditions',
    filters: [],
    parents: [...teamOrCompanyParents()],
    context: { owner: { idPath: 'record.owner.id' }, nested: { type: 'question', path: 'record.questions', as: 'action' } },
    fields: [
      keyField(),
      ...stamps(),
      ...personNames(),
      field('Email__c', 'Email', text(255), 'record.owner.email'),
      ...addressFields('user'),
      field('Phone__c', 'Phone', text(255), 'user.phone'),
      field('Gender__c', 'Gender', text(255), 'user.gender'),
      field('Birthday__c', 'Birthday', date(), 'user.birthday'),
      field('Locale__c', 'Locale', text(2), 'user.locale'),
      field('Title__c', 'Title', text(255), 'record.title'),
      field('Description__c', 'Description', html(), 'record.description'),
      field('FundraiserPage__c', 'Fundraiser Page', checkbox(), 'record.fundraiser_page'),
      field('URL__c', 'URL', longText(), 'record.url', { onlyIf: 'record.fundraiser_page' }),
      field('TargetAmount__c', 'Target Amount', number(18, 0), 'record.target_amount'),
      field('EndDate__c', 'End Date', dateTime(), 'record.end_date'),
      field('ExternalReference__c', 'External Reference', text(255), 'record.external_reference'),
      field('ActivityName__c', 'Activity Name', text(255), 'record.activity.name'),
      ...visibleClosed(),
      field('TotalAmount__c', 'Total Amount', number(10, 2), 'record.total_amount'),
      field('TotalDonations__c', 'Total Donations', number(18, 0), 'record.total_donations'),
      field('TeamCaptain__c', 'Team Captain', checkbox(), 'record.team_captain'),
      field('PreviousParticipations__c', 'Previous Participations', number(18, 0), 'record.previous_participations'),
      ...consentFields(),
      ...lookups('Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c'),
    ],
  },
  question: {
    type: 'question',
    apiName: 'Svc_ActionQuestion__c',
    label: 'Svc Action Question',
    pluralLabel: 'Svc Action Questions',
    key: KEY_TEMPLATES.question,
    name: [['record.question']],
    filters: [{ path: 'record.answer', notBlank: true, reason: 'blank answer' }],
    parents: [{ type: 'action', idPath: 'action.id', direct: 'Svc_Action__c', inherit: [] }],
    context: {},
    fields: [
      keyField(),
      field('QuestionSvcId__c', 'Question Svc Id', text(50), 'Question_{record.id}', { externalId: true }),
      ...stamps(),
      field('Question__c', 'Question', longText(), 'record.question'),
      field('Answer__c', 'Answer', longText(), 'record.answer'),
      ...lookups('Svc_Action__c'),
    ],
  },
  donation: {
    type: 'donation',
    apiName: 'Svc_Donation__c',
    label: 'Svc Donation',
    pluralLabel: 'Svc Donations',
    key: KEY_TEMPLATES.donation,
    name: [['record.company'], PERSON_NAME],
    consentType: 'terms_conditions',
    filters: [
      { path: 'record.payment_status', oneOf: ['paid', 'refunded', 'chargedback'], reason: 'payment status not synced' },
      { path: 'record.total_amount', nonZero: true, reason: 'zero total amount' },
    ],
    parents: [{ type: 'action', idPath: 'record.action_id', direct: 'Svc_Action__c', inherit: ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c'] }, ...teamOrCompanyParents()],
    outside: [{ idPath: 'record.donation_form_id', what: 'donation form' }, { what: 'the site' }],
    context: { target: true },
    fields: [
      keyField(),
      ...stamps(),
      ...personNames(),
      field('Company__c', 'Company', text(255), 'record.company'),
      field('Email__c', 'Email', text(255), 'record.email'),
      field('Phone__c', 'Phone', text(255), 'record.phone'),
      field('Gender__c', 'Gender', text(255), 'record.gender'),
      field('Birthday__c', 'Birthday', dateTime(), 'record.birthday'),
      field('Locale__c', 'Locale', text(2), 'record.locale'),
      ...addressFields('record.address'),
      field('Currency__c', 'Currency', text(3), 'record.currency'),
      field('Amount__c', 'Amount', number(10, 2), 'record.donation_amount'),
      field('TransactionCosts__c', 'Transaction Costs', number(10, 2), 'record.transaction_costs'),
      field('TotalAmount__c', 'Total Amount', number(10, 2), 'record.total_amount'),
      field('ReceivableAmount__c', 'Receivable Amount', number(10, 2), 'record.receivable_amount'),
      field('InvoiceNumber__c', 'Invoice Number', text(255), 'record.invoicenumber'),
      field('PaymentDate__c', 'Payment Date', dateTime(), 'record.payment_status_at'),
      field('PaymentMethod__c', 'Payment Method', text(255), 'record.payment_method'),
      field('PaymentStatus__c', 'Payment Status', text(255), 'record.payment_status'),
      field('TransactionId__c', 'Transaction Id', text(255), 'record.transaction_id'),
      field('AccountIBAN__c', 'Account IBAN', text(255), 'record.account_iban'),
      field('AccountBIC__c', 'Account BIC', text(255), 'record.account_bic'),
      field('AccountName__c', 'Account Name', text(255), 'record.account_name'),
      field('Message__c', 'Message', longText(), 'record.message'),
      field('Newsletter__c', 'Newsletter', checkbox(), 'record.newsletter'),
      field('Countable__c', 'Countable', checkbox(true), 'record.countable'),
      field('RegistrationFee__c', 'Registration Fee', checkbox(), 'record.registration_fee'),
      field('RegistrationFeeAmount__c', 'Registration Fee Amount', number(10, 2), 'record.registration_fee_amount'),
      field('StartDonation__c', 'Start Donation', checkbox(), 'record.start_donation'),
      field('ExternalReference__c', 'External Reference', text(255), 'target.external_reference'),
      ...consentFields(),
      field('TargetSvcId__c', 'Target Svc Id', text(50), 'parent.key', { externalId: true }),
      ...lookups('Svc_Action__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c'),
    ],
  },
  newsletter_subscription: {
    type: 'newsletter_subscription',
    apiName: 'Svc_NewsletterSubscription__c',
    label: 'Svc Newsletter Subscription',
    pluralLabel: 'Svc Newsletter Subscriptions',
    key: KEY_TEMPLATES.newsletter_subscription,
    name: [['record.email']],
    consentType: 'newsletter_subscription',
    filters: [],
    parents: projectOrSegmentParents(),
    context: { target: true, entityForm: true },
    fields: [
      keyField(),
      ...stamps(),
      ...personNames(),
      field('Email__c', 'Email', text(255), 'record.email'),
      field('Locale__c', 'Locale', text(2), 'record.locale'),
      field('ExternalReference__c', 'External Reference', text(255), 'target.external_reference'),
      ...consentFields(),
      ...lookups('Svc_Project__c', 'Svc_Segment__c'),
    ],
  },
};

export const SCHEMAS: ObjectSchema[] = OBJECT_TYPES.map((t) => SCHEMA[t]);

export function schemaByApiName(apiName: string): ObjectSchema | undefined {
  return SCHEMAS.find((s) => s.apiName === apiName);
}

/** Every field a CRM record of this object can carry, Name included (the dry-run reads these). */
export function writableFieldNames(schema: ObjectSchema): string[] {
  return [NAME_FIELD, ...schema.fields.map((f) => f.name)];
}

export function lookupFields(schema: ObjectSchema): FieldDef[] {
  return schema.fields.filter((f) => f.type.kind === 'lookup');
}

/**
 * Hierarchy level of each type, from the parent rules: a type with no parent is level 0, any other
 * is one below its deepest parent. Parents are made sure of level by level, highest first.
 */
export const LEVEL: Readonly<Record<ObjectType, number>> = (() => {
  const level = {} as Record<ObjectType, number>;
  const of = (type: ObjectType): number => (level[type] ??= SCHEMA[type].parents.reduce((deepest, p) => Math.max(deepest, of(p.type) + 1), 0));
  for (const type of OBJECT_TYPES) of(type);
  return level;
})();
