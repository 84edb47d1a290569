/**
 * One test per mirrored object (SPEC.md 2.2-2.9): a full fixture record, every field filled, and
 * the exact CRM record it maps to (the whole fields object, the parent reference, the warnings).
 */
import { describe, expect, it } from '@jest/globals';
import { mapQuestions, mapRecord } from '../../src/mapping/map.js';
import { asRecord, full } from './helpers.js';

const USER = full('user');
const TERMS_TEXT = "Ik accepteer de <a href='/algemene-voorwaarden' class='theme-text-color' target='_blank'>Algemene voorwaarden</a>.";

describe('Svc_Segment__c (SPEC 2.2)', () => {
  it('maps the full segment fixture to the exact record, top level: no parent', () => {
    const r = asRecord(mapRecord('segment', full('segment')));
    expect(r.type).toBe('segment');
    expect(r.object).toBe('Svc_Segment__c');
    expect(r.key).toBe('Segment_12');
    expect(r.fields).toEqual({
      Name: 'Segment 2',
      SvcId__c: 'Segment_12',
      CreatedAt__c: '2015-11-17T16:32:03.000Z',
      UpdatedAt__c: '2015-11-17T16:32:27.000Z',
      Title__c: 'Aut est maxime nostrum.',
      Description__c: 'Maiores ut velit fugiat eos.\nQuae est nostrum rerum & aut.',
      TargetAmount__c: 2685,
      EndDate__c: '2015-12-31T23:00:00.000Z',
      URL__c: 'https://segment-2.demo1.kentaa.nl/',
      ExternalReference__c: 'Customer Campaign 1021AA1-11',
      TotalAmount__c: 1234.5,
      TotalDonations__c: 7,
    });
    expect(r.parent).toBeNull();
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_Project__c (SPEC 2.3)', () => {
  it('maps the full project fixture to the exact record with its segment parent', () => {
    const r = asRecord(mapRecord('project', full('project')));
    expect(r.key).toBe('Project_1');
    expect(r.object).toBe('Svc_Project__c');
    expect(r.fields).toEqual({
      Name: 'Dignissimos provident rerum enim alias magni asperna...',
      SvcId__c: 'Project_1',
      CreatedAt__c: '2015-08-26T14:49:36.000Z',
      UpdatedAt__c: '2015-10-12T16:27:43.000Z',
      Title__c: 'Dignissimos provident rerum enim alias magni asperna...',
      Description__c: 'Fugiat\nFugiat et nulla mollitia.\nUt omnis adipisci et.\nConsequatur est.',
      TargetAmount__c: 250000,
      EndDate__c: '2015-10-28T00:00:00.000Z',
      URL__c: 'https://demo1.kentaa.nl/project/dignissimos-provident',
      ExternalReference__c: 'Customer Campaign 1021AA1-11',
      TotalAmount__c: 1250,
      TotalDonations__c: 18,
      Visible__c: false,
      Closed__c: true,
    });
    expect(r.parent).toEqual({ type: 'segment', object: 'Svc_Segment__c', id: 2, key: 'Segment_2', direct: 'Svc_Segment__c', inherit: [] });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_Company__c (SPEC 2.4)', () => {
  it('maps the full company fixture to the exact record with its project parent', () => {
    const r = asRecord(mapRecord('company', full('company')));
    expect(r.key).toBe('Company_1');
    expect(r.object).toBe('Svc_Company__c');
    expect(r.fields).toEqual({
      Name: 'Asperiores beatae voluptate qui.',
      SvcId__c: 'Company_1',
      CreatedAt__c: '2015-08-26T14:51:35.000Z',
      UpdatedAt__c: '2015-10-12T16:27:43.000Z',
      Title__c: 'Vero aspernatur dolores et excepturi.',
      Description__c: 'Cum odio est.\nRatione cum harum.',
      TargetAmount__c: 2000,
      EndDate__c: '2016-06-30T22:00:00.000Z',
      URL__c: 'https://demo1.kentaa.nl/company/asperiores-beatae-voluptate-qui',
      ExternalReference__c: 'Company Ref 1',
      TotalAmount__c: 225,
      TotalDonations__c: 4,
      Visible__c: true,
      Closed__c: true,
      ActivityName__c: 'Activity name',
      CompanyPackageTitle__c: 'Package title',
    });
    expect(r.parent).toEqual({
      type: 'project',
      object: 'Svc_Project__c',
      id: 3,
      key: 'Project_3',
      direct: 'Svc_Project__c',
      inherit: ['Svc_Segment__c'],
    });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_Team__c (SPEC 2.5)', () => {
  it('maps the full team fixture to the exact record with its project parent', () => {
    const r = asRecord(mapRecord('team', full('team')));
    expect(r.key).toBe('Team_1');
    expect(r.object).toBe('Svc_Team__c');
    expect(r.fields).toEqual({
      Name: 'Asperiores beatae voluptate qui.',
      SvcId__c: 'Team_1',
      CreatedAt__c: '2015-08-26T14:51:35.000Z',
      UpdatedAt__c: '2015-10-12T16:27:43.000Z',
      Title__c: 'Vero aspernatur dolores et excepturi.',
      Description__c: 'Cum odio est. Consequuntur occaecati.',
      TargetAmount__c: 2000,
      // "2016-01-01T12:00:00+01:00" in UTC
      EndDate__c: '2016-01-01T11:00:00.000Z',
      URL__c: 'https://demo1.kentaa.nl/team/asperiores-beatae-voluptate-qui',
      ExternalReference__c: 'Team Ref 7',
      TotalAmount__c: 225,
      TotalDonations__c: 4,
      Visible__c: true,
      Closed__c: false,
    });
    expect(r.parent).toEqual({
      type: 'project',
      object: 'Svc_Project__c',
      id: 3,
      key: 'Project_3',
      direct: 'Svc_Project__c',
      inherit: ['Svc_Segment__c'],
    });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_Action__c (SPEC 2.6)', () => {
  it('maps the full action fixture plus its owner user record to the exact record', () => {
    const r = asRecord(mapRecord('action', full('action'), { user: USER }));
    expect(r.key).toBe('Action_1');
    expect(r.object).toBe('Svc_Action__c');
    expect(r.fields).toEqual({
      Name: 'John van Doe',
      SvcId__c: 'Action_1',
      CreatedAt__c: '2015-08-26T14:50:14.000Z',
      UpdatedAt__c: '2015-10-12T16:27:43.000Z',
      FirstName__c: 'John',
      Infix__c: 'van',
      LastName__c: 'Doe',
      Email__c: 'john.doe@kentaa.nl',
      Address__c: 'Jansbuitensingel 29',
      Address2__c: '2nd floor',
      Street__c: 'Jansbuitensingel',
      HouseNumber__c: '29',
      HouseNumberAddition__c: 'A',
      Zipcode__c: '6811AD',
      City__c: 'Arnhem',
      Country__c: 'NL',
      Phone__c: '0262616240',
      Gender__c: 'male',
      Birthday__c: '1990-05-01',
      Locale__c: 'nl',
      Title__c: 'Lorem ipsum',
      Description__c: 'Dolorum animi qui nihil iure.\nRerum eius et quo.',
      FundraiserPage__c: true,
      URL__c: 'https://demo1.kentaa.nl/actie/john-doe',
      TargetAmount__c: 1000,
      EndDate__c: '2016-05-01T10:00:00.000Z',
      ExternalReference__c: 'Customer Campaign 1021AA1-11',
      ActivityName__c: 'Running',
      Visible__c: true,
      Closed__c: false,
      TotalAmount__c: 125,
      TotalDonations__c: 2,
      TeamCaptain__c: true,
      PreviousParticipations__c: 1,
      ConsentURL__c: 'https://demo1.kentaa.nl/meedoen/wie-ben-jij',
      ConsentText__c: TERMS_TEXT,
      ConsentTermsConditions__c: 'V2 22-06-2018 13:09',
    });
    expect(r.parent).toEqual({
      type: 'team',
      object: 'Svc_Team__c',
      id: 4,
      key: 'Team_4',
      direct: 'Svc_Team__c',
      inherit: ['Svc_Project__c', 'Svc_Segment__c'],
    });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_ActionQuestion__c (SPEC 2.7)', () => {
  it('maps the question of the full action fixture to the exact record with its action parent', () => {
    const results = mapQuestions(full('action'));
    expect(results).toHaveLength(1);
    const r = asRecord(results[0]);
    expect(r.type).toBe('question');
    expect(r.object).toBe('Svc_ActionQuestion__c');
    expect(r.key).toBe('ActionQuestion_1.2');
    expect(r.fields).toEqual({
      Name: 'What is your age?',
      SvcId__c: 'ActionQuestion_1.2',
      QuestionSvcId__c: 'Question_2',
      CreatedAt__c: '2015-08-26T14:50:16.000Z',
      UpdatedAt__c: '2015-08-26T14:50:20.000Z',
      Question__c: 'What is your age?',
      Answer__c: '42',
    });
    expect(r.parent).toEqual({ type: 'action', object: 'Svc_Action__c', id: 1, key: 'Action_1', direct: 'Svc_Action__c', inherit: [] });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_Donation__c (SPEC 2.8)', () => {
  it('maps the full donation fixture plus the target external reference to the exact record', () => {
    const r = asRecord(mapRecord('donation', full('donation'), { targetExternalReference: 'Customer Campaign 1021AA1-11' }));
    expect(r.key).toBe('Donation_1');
    expect(r.object).toBe('Svc_Donation__c');
    expect(r.fields).toEqual({
      Name: 'Kentaa B.V.',
      SvcId__c: 'Donation_1',
      CreatedAt__c: '2016-03-30T14:41:48.000Z',
      UpdatedAt__c: '2016-03-30T14:46:25.000Z',
      FirstName__c: 'John',
      Infix__c: 'van',
      LastName__c: 'Doe',
      Company__c: 'Kentaa B.V.',
      Email__c: 'john.doe@kentaa.nl',
      Phone__c: '0262616240',
      Gender__c: 'male',
      Birthday__c: '1990-05-01T00:00:00.000Z',
      Locale__c: 'nl',
      Address__c: 'Jansbuitensingel 29',
      Address2__c: '2nd floor',
      Street__c: 'Jansbuitensingel',
      HouseNumber__c: '29',
      HouseNumberAddition__c: 'A',
      Zipcode__c: '6811AD',
      City__c: 'Arnhem',
      Country__c: 'NL',
      Currency__c: 'EUR',
      Amount__c: 15,
      TransactionCosts__c: 0.4,
      TotalAmount__c: 25.4,
      ReceivableAmount__c: 24,
      InvoiceNumber__c: 'T2016.0001.0000001',
      PaymentDate__c: '2016-03-30T14:46:25.000Z',
      PaymentMethod__c: 'ideal',
      PaymentStatus__c: 'paid',
      TransactionId__c: 'B5C7B7BCAF1ADF6E2032C7CF56969876',
      AccountIBAN__c: 'NL91ABNA0417164300',
      AccountBIC__c: 'ABNANL2A',
      AccountName__c: 'J. van Doe',
      Message__c: 'Good luck! <3',
      Newsletter__c: true,
      Countable__c: true,
      RegistrationFee__c: true,
      RegistrationFeeAmount__c: 10,
      StartDonation__c: false,
      ExternalReference__c: 'Customer Campaign 1021AA1-11',
      ConsentURL__c: 'https://demo1.kentaa.nl/donate',
      ConsentText__c: TERMS_TEXT,
      ConsentTermsConditions__c: 'V2 22-06-2018 13:09',
      TargetSvcId__c: 'Action_1',
    });
    expect(r.parent).toEqual({
      type: 'action',
      object: 'Svc_Action__c',
      id: 1,
      key: 'Action_1',
      direct: 'Svc_Action__c',
      inherit: ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c'],
    });
    expect(r.warnings).toEqual([]);
  });
});

describe('Svc_NewsletterSubscription__c (SPEC 2.9)', () => {
  it('maps the full subscription fixture (real API project_id form) to the exact record', () => {
    const r = asRecord(mapRecord('newsletter_subscription', full('newsletter_subscription'), { targetExternalReference: 'Project Ref 3' }));
    expect(r.key).toBe('NewsletterSubscription_1');
    expect(r.object).toBe('Svc_NewsletterSubscription__c');
    expect(r.fields).toEqual({
      Name: 'john.doe@kentaa.nl',
      SvcId__c: 'NewsletterSubscription_1',
      CreatedAt__c: '2016-03-07T13:55:43.000Z',
      UpdatedAt__c: '2016-03-07T13:55:43.000Z',
      FirstName__c: 'John',
      Infix__c: 'van',
      LastName__c: 'Doe',
      Email__c: 'john.doe@kentaa.nl',
      Locale__c: 'nl',
      ExternalReference__c: 'Project Ref 3',
      ConsentURL__c: 'https://demo1.kentaa.nl',
      ConsentText__c: 'Ja, ik wil de <b>nieuwsbrief</b> ontvangen',
      ConsentTermsConditions__c: 'V2 22-06-2018 13:09',
    });
    expect(r.parent).toEqual({
      type: 'project',
      object: 'Svc_Project__c',
      id: 3,
      key: 'Project_3',
      direct: 'Svc_Project__c',
      inherit: ['Svc_Segment__c'],
    });
    expect(r.warnings).toEqual([]);
  });
});
