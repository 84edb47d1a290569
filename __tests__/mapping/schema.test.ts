/**
 * The schema against SPEC.md section 2, and the proof that every field is covered:
 *   1. the expected tables below are transcribed from SPEC.md 2.1-2.9 (and the sizes of section 8);
 *      any drift of the schema (a field added, lost, retyped, resized or re-sourced) fails;
 *   2. for every object, a fixture record maps to a value for every non-lookup field;
 *   3. every lookup field is set by a parent rule (direct or inherited), per the cascade tables.
 */
import { describe, expect, it } from '@jest/globals';
import type { FieldDef, FieldType } from '../../src/mapping/fieldTypes.js';
import { mapQuestions, mapRecord } from '../../src/mapping/map.js';
import { OBJECT_TYPES, type ObjectType } from '../../src/model/objects.js';
import { KEY_FIELD } from '../../src/model/refs.js';
import { NAME_FIELD, NAME_LENGTH, SCHEMA, SCHEMAS, lookupFields, writableFieldNames } from '../../src/mapping/schema.js';
import type { MappedRecord } from '../../src/mapping/types.js';
import { asRecord, full } from './helpers.js';

/** A field in SPEC notation: "Type(size)[ html][ unique][ external ID][ default true] <- source". */
function describeField(f: FieldDef): string {
  const t: FieldType = f.type;
  let s: string;
  switch (t.kind) {
    case 'text':
      s = `Text(${t.length})`;
      break;
    case 'longtext':
      s = `LongTextArea(${t.length})${t.html ? ' html' : ''}`;
      break;
    case 'number':
      s = `Number(${t.precision},${t.scale})`;
      break;
    case 'checkbox':
      s = `Checkbox${t.default ? ' default true' : ''}`;
      break;
    case 'date':
      s = 'Date';
      break;
    case 'datetime':
      s = 'DateTime';
      break;
    case 'lookup':
      s = `Lookup(${t.to})`;
      break;
  }
  if (f.unique) s += ' unique';
  if (f.externalId) s += ' external ID';
  if (f.onlyIf) s += ` if ${f.onlyIf}`;
  return f.source === undefined ? s : `${s} <- ${f.source}`;
}

// ---- SPEC.md section 2, transcribed ------------------------------------------------------------

const KEY = 'Text(50) unique external ID <- key';

/** 2.1: common fields of Segment, Project, Company and Team. */
const COMMON: Record<string, string> = {
  SvcId__c: KEY,
  CreatedAt__c: 'DateTime <- record.created_at',
  UpdatedAt__c: 'DateTime <- record.updated_at',
  Title__c: 'Text(255) <- record.title',
  Description__c: 'LongTextArea(32768) html <- record.description',
  TargetAmount__c: 'Number(18,0) <- record.target_amount',
  EndDate__c: 'DateTime <- record.end_date',
  URL__c: 'LongTextArea(32768) <- record.url',
  ExternalReference__c: 'Text(255) <- record.external_reference',
  TotalAmount__c: 'Number(10,2) <- record.total_amount',
  TotalDonations__c: 'Number(18,0) <- record.total_donations',
};

const CONSENT: Record<string, string> = {
  ConsentURL__c: 'LongTextArea(32768) <- consent.url',
  ConsentText__c: 'LongTextArea(32768) <- consent.consent_text',
  ConsentTermsConditions__c: 'Text(255) <- consent.terms_conditions_version',
};

const EXPECTED_FIELDS: Record<ObjectType, Record<string, string>> = {
  // 2.2: exactly the common fields
  segment: { ...COMMON },
  // 2.3
  project: {
    ...COMMON,
    Visible__c: 'Checkbox default true <- record.visible',
    Closed__c: 'Checkbox <- record.closed',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
  // 2.4
  company: {
    ...COMMON,
    Visible__c: 'Checkbox <- record.visible',
    Closed__c: 'Checkbox <- record.closed',
    ActivityName__c: 'Text(255) <- record.activity.name',
    CompanyPackageTitle__c: 'Text(255) <- record.package.title',
    Svc_Project__c: 'Lookup(Svc_Project__c)',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
  // 2.5
  team: {
    ...COMMON,
    Visible__c: 'Checkbox <- record.visible',
    Closed__c: 'Checkbox <- record.closed',
    Svc_Project__c: 'Lookup(Svc_Project__c)',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
  // 2.6
  action: {
    SvcId__c: KEY,
    CreatedAt__c: 'DateTime <- record.created_at',
    UpdatedAt__c: 'DateTime <- record.updated_at',
    FirstName__c: 'Text(255) <- record.first_name',
    Infix__c: 'Text(255) <- record.infix',
    LastName__c: 'Text(255) <- record.last_name',
    Email__c: 'Text(255) <- record.owner.email',
    Address__c: 'Text(255) <- user.address',
    Address2__c: 'Text(255) <- user.address2',
    Street__c: 'Text(255) <- user.street',
    HouseNumber__c: 'Text(255) <- user.house_number',
    HouseNumberAddition__c: 'Text(255) <- user.house_number_addition',
    Zipcode__c: 'Text(255) <- user.zipcode',
    City__c: 'Text(255) <- user.city',
    Country__c: 'Text(255) <- user.country',
    Phone__c: 'Text(255) <- user.phone',
    Gender__c: 'Text(255) <- user.gender',
    Birthday__c: 'Date <- user.birthday',
    Locale__c: 'Text(2) <- user.locale',
    Title__c: 'Text(255) <- record.title',
    Description__c: 'LongTextArea(32768) html <- record.description',
    FundraiserPage__c: 'Checkbox <- record.fundraiser_page',
    URL__c: 'LongTextArea(32768) if record.fundraiser_page <- record.url',
    TargetAmount__c: 'Number(18,0) <- record.target_amount',
    EndDate__c: 'DateTime <- record.end_date',
    ExternalReference__c: 'Text(255) <- record.external_reference',
    ActivityName__c: 'Text(255) <- record.activity.name',
    Visible__c: 'Checkbox <- record.visible',
    Closed__c: 'Checkbox <- record.closed',
    TotalAmount__c: 'Number(10,2) <- record.total_amount',
    TotalDonations__c: 'Number(18,0) <- record.total_donations',
    TeamCaptain__c: 'Checkbox <- record.team_captain',
    PreviousParticipations__c: 'Number(18,0) <- record.previous_participations',
    ...CONSENT,
    Svc_Team__c: 'Lookup(Svc_Team__c)',
    Svc_Company__c: 'Lookup(Svc_Company__c)',
    Svc_Project__c: 'Lookup(Svc_Project__c)',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
  // 2.7
  question: {
    SvcId__c: KEY,
    QuestionSvcId__c: 'Text(50) external ID <- Question_{record.id}',
    CreatedAt__c: 'DateTime <- record.created_at',
    UpdatedAt__c: 'DateTime <- record.updated_at',
    Question__c: 'LongTextArea(32768) <- record.question',
    Answer__c: 'LongTextArea(32768) <- record.answer',
    Svc_Action__c: 'Lookup(Svc_Action__c)',
  },
  // 2.8
  donation: {
    SvcId__c: KEY,
    CreatedAt__c: 'DateTime <- record.created_at',
    UpdatedAt__c: 'DateTime <- record.updated_at',
    FirstName__c: 'Text(255) <- record.first_name',
    Infix__c: 'Text(255) <- record.infix',
    LastName__c: 'Text(255) <- record.last_name',
    Company__c: 'Text(255) <- record.company',
    Email__c: 'Text(255) <- record.email',
    Phone__c: 'Text(255) <- record.phone',
    Gender__c: 'Text(255) <- record.gender',
    Birthday__c: 'DateTime <- record.birthday',
    Locale__c: 'Text(2) <- record.locale',
    Address__c: 'Text(255) <- record.address.address',
    Address2__c: 'Text(255) <- record.address.address2',
    Street__c: 'Text(255) <- record.address.street',
    HouseNumber__c: 'Text(255) <- record.address.house_number',
    HouseNumberAddition__c: 'Text(255) <- record.address.house_number_addition',
    Zipcode__c: 'Text(255) <- record.address.zipcode',
    City__c: 'Text(255) <- record.address.city',
    Country__c: 'Text(255) <- record.address.country',
    Currency__c: 'Text(3) <- record.currency',
    Amount__c: 'Number(10,2) <- record.donation_amount',
    TransactionCosts__c: 'Number(10,2) <- record.transaction_costs',
    TotalAmount__c: 'Number(10,2) <- record.total_amount',
    ReceivableAmount__c: 'Number(10,2) <- record.receivable_amount',
    InvoiceNumber__c: 'Text(255) <- record.invoicenumber',
    PaymentDate__c: 'DateTime <- record.payment_status_at',
    PaymentMethod__c: 'Text(255) <- record.payment_method',
    PaymentStatus__c: 'Text(255) <- record.payment_status',
    TransactionId__c: 'Text(255) <- record.transaction_id',
    AccountIBAN__c: 'Text(255) <- record.account_iban',
    AccountBIC__c: 'Text(255) <- record.account_bic',
    AccountName__c: 'Text(255) <- record.account_name',
    Message__c: 'LongTextArea(32768) <- record.message',
    Newsletter__c: 'Checkbox <- record.newsletter',
    Countable__c: 'Checkbox default true <- record.countable',
    RegistrationFee__c: 'Checkbox <- record.registration_fee',
    RegistrationFeeAmount__c: 'Number(10,2) <- record.registration_fee_amount',
    StartDonation__c: 'Checkbox <- record.start_donation',
    ExternalReference__c: 'Text(255) <- target.external_reference',
    ...CONSENT,
    TargetSvcId__c: 'Text(50) external ID <- parent.key',
    Svc_Action__c: 'Lookup(Svc_Action__c)',
    Svc_Team__c: 'Lookup(Svc_Team__c)',
    Svc_Company__c: 'Lookup(Svc_Company__c)',
    Svc_Project__c: 'Lookup(Svc_Project__c)',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
  // 2.9
  newsletter_subscription: {
    SvcId__c: KEY,
    CreatedAt__c: 'DateTime <- record.created_at',
    UpdatedAt__c: 'DateTime <- record.updated_at',
    FirstName__c: 'Text(255) <- record.first_name',
    Infix__c: 'Text(255) <- record.infix',
    LastName__c: 'Text(255) <- record.last_name',
    Email__c: 'Text(255) <- record.email',
    Locale__c: 'Text(2) <- record.locale',
    ExternalReference__c: 'Text(255) <- target.external_reference',
    ...CONSENT,
    Svc_Project__c: 'Lookup(Svc_Project__c)',
    Svc_Segment__c: 'Lookup(Svc_Segment__c)',
  },
};

const EXPECTED_OBJECTS: Record<ObjectType, { apiName: string; label: string; key: string; name: string[][]; consentType?: string }> = {
  segment: { apiName: 'Svc_Segment__c', label: 'Svc Segment', key: 'Segment_{record.id}', name: [['record.name']] },
  project: { apiName: 'Svc_Project__c', label: 'Svc Project', key: 'Project_{record.id}', name: [['record.title']] },
  company: { apiName: 'Svc_Company__c', label: 'Svc Company', key: 'Company_{record.id}', name: [['record.name']] },
  team: { apiName: 'Svc_Team__c', label: 'Svc Team', key: 'Team_{record.id}', name: [['record.name']] },
  action: {
    apiName: 'Svc_Action__c',
    label: 'Svc Action',
    key: 'Action_{record.id}',
    name: [['record.first_name', 'record.infix', 'record.last_name']],
    consentType: 'terms_conditions',
  },
  question: {
    apiName: 'Svc_ActionQuestion__c',
    label: 'Svc Action Question',
    key: 'ActionQuestion_{action.id}.{record.id}',
    name: [['record.question']],
  },
  donation: {
    apiName: 'Svc_Donation__c',
    label: 'Svc Donation',
    key: 'Donation_{record.id}',
    name: [['record.company'], ['record.first_name', 'record.infix', 'record.last_name']],
    consentType: 'terms_conditions',
  },
  newsletter_subscription: {
    apiName: 'Svc_NewsletterSubscription__c',
    label: 'Svc Newsletter Subscription',
    key: 'NewsletterSubscription_{record.id}',
    name: [['record.email']],
    consentType: 'newsletter_subscription',
  },
};

/** The cascade tables of 2.3-2.9, most specific parent first: [type, id path, direct, inherited]. */
type Row = [ObjectType, string, string, string[]];
const PROJECT_ROW: Row = ['project', 'record.project_id', 'Svc_Project__c', ['Svc_Segment__c']];
const SEGMENT_ROW: Row = ['segment', 'record.segment_id', 'Svc_Segment__c', []];
const EXPECTED_PARENTS: Record<ObjectType, Row[]> = {
  segment: [],
  project: [SEGMENT_ROW],
  company: [PROJECT_ROW, SEGMENT_ROW],
  team: [PROJECT_ROW, SEGMENT_ROW],
  action: [
    ['team', 'record.team_id', 'Svc_Team__c', ['Svc_Project__c', 'Svc_Segment__c']],
    ['company', 'record.company_id', 'Svc_Company__c', ['Svc_Project__c', 'Svc_Segment__c']],
    PROJECT_ROW,
    SEGMENT_ROW,
  ],
  question: [['action', 'action.id', 'Svc_Action__c', []]],
  donation: [
    ['action', 'record.action_id', 'Svc_Action__c', ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c']],
    ['team', 'record.team_id', 'Svc_Team__c', ['Svc_Project__c', 'Svc_Segment__c']],
    ['company', 'record.company_id', 'Svc_Company__c', ['Svc_Project__c', 'Svc_Segment__c']],
    PROJECT_ROW,
    SEGMENT_ROW,
  ],
  newsletter_subscription: [PROJECT_ROW, SEGMENT_ROW],
};

// ---- the covering fixture of each object -------------------------------------------------------

function covering(type: ObjectType): MappedRecord {
  switch (type) {
    case 'segment':
      return asRecord(mapRecord('segment', full('segment')));
    case 'project':
      return asRecord(mapRecord('project', full('project')));
    case 'company':
      return asRecord(mapRecord('company', full('company')));
    case 'team':
      return asRecord(mapRecord('team', full('team')));
    case 'action':
      return asRecord(mapRecord('action', full('action'), { user: full('user') }));
    case 'question':
      return asRecord(mapQuestions(full('action'))[0]);
    case 'donation':
      return asRecord(mapRecord('donation', full('donation'), { targetExternalReference: 'Customer Campaign 1021AA1-11' }));
    case 'newsletter_subscription':
      return asRecord(mapRecord('newsletter_subscription', full('newsletter_subscription'), { targetExternalReference: 'Project Ref 3' }));
  }
}

describe('schema = SPEC.md section 2', () => {
  it('holds the eight objects in parent-first order', () => {
    expect(OBJECT_TYPES).toEqual(['segment', 'project', 'team', 'company', 'action', 'question', 'donation', 'newsletter_subscription']);
    expect(SCHEMAS.map((s) => s.type)).toEqual([...OBJECT_TYPES]);
    expect(KEY_FIELD).toBe('SvcId__c');
    expect(NAME_FIELD).toBe('Name');
    expect(NAME_LENGTH).toBe(80);
  });

  describe.each([...OBJECT_TYPES])('%s', (type) => {
    const schema = SCHEMA[type];

    it('has the SPEC API name, label, key template, Name rule and consent type', () => {
      const expected = EXPECTED_OBJECTS[type];
      expect({
        apiName: schema.apiName,
        label: schema.label,
        key: schema.key,
        name: schema.name,
        ...(schema.consentType ? { consentType: schema.consentType } : {}),
      }).toEqual(expected);
      expect(schema.type).toBe(type);
    });

    it('has exactly the SPEC fields, each with its type, size, flags and source', () => {
      const names = schema.fields.map((f) => f.name);
      expect(new Set(names).size).toBe(names.length);
      const actual = Object.fromEntries(schema.fields.map((f) => [f.name, describeField(f)]));
      expect(actual).toEqual(EXPECTED_FIELDS[type]);
    });

    it('has exactly the SPEC parent rules, most specific first', () => {
      expect(schema.parents.map((p): Row => [p.type, p.idPath, p.direct, p.inherit])).toEqual(EXPECTED_PARENTS[type]);
    });

    it('sets every lookup field through a parent rule, and every parent rule names a lookup of the object', () => {
      const lookups = lookupFields(schema)
        .map((f) => f.name)
        .sort();
      const byRules = [...new Set(schema.parents.flatMap((p) => [p.direct, ...p.inherit]))].sort();
      expect(byRules).toEqual(lookups);
      for (const f of lookupFields(schema)) {
        // a lookup is named after the object it points to, and has no API source
        expect(f.type).toEqual({ kind: 'lookup', to: f.name });
        expect(f.source).toBeUndefined();
      }
      for (const p of schema.parents) expect(p.direct).toBe(SCHEMA[p.type].apiName);
    });

    it('is covered: the covering fixture maps to a value for every non-lookup field and for Name', () => {
      const record = covering(type);
      const uncovered = schema.fields
        .filter((f) => f.type.kind !== 'lookup')
        .filter((f) => record.fields[f.name] === undefined || record.fields[f.name] === null)
        .map((f) => f.name);
      expect(uncovered).toEqual([]);
      expect(typeof record.fields[NAME_FIELD]).toBe('string');
      // and nothing outside the schema is sent, lookups included (the CRM writer sets those)
      const allowed = new Set(writableFieldNames(schema).filter((n) => !lookupFields(schema).some((l) => l.name === n)));
      expect(Object.keys(record.fields).filter((k) => !allowed.has(k))).toEqual([]);
      expect(record.warnings).toEqual([]);
    });
  });
});
