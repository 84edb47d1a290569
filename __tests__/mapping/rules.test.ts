/**
 * One test (or a few) per general rule of SPEC.md 1.1 and issue 2 item 4, on the hostile fixtures
 * of fixtures/mapping/hostile and small inline records. Every assertion is on exact values.
 */
import { describe, expect, it } from '@jest/globals';
import { keyFor, questionKey } from '../../src/model/refs.js';
import { mapQuestions, mapRecord } from '../../src/mapping/map.js';
import type { ApiAction, ApiDonation, ApiNewsletterSubscription, ApiProject, ApiSegment } from '../../src/model/apiRecords.js';
import { EMOJI, asInvalid, asRecord, asSkip, fixture, full, hostile, isHighSurrogate, isLowSurrogate } from './helpers.js';

const USER = full('user');
const donation = (over: Partial<ApiDonation> = {}): ApiDonation => ({ id: 40, payment_status: 'paid', total_amount: '10.0', ...over });
const action = (over: Partial<ApiAction> = {}): ApiAction => ({
  id: 50,
  owner: { id: 2, first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl' },
  ...over,
});
const ADDRESS_FIELDS = ['Address__c', 'Address2__c', 'Street__c', 'HouseNumber__c', 'HouseNumberAddition__c', 'Zipcode__c', 'City__c', 'Country__c'];
const USER_FIELDS = [...ADDRESS_FIELDS, 'Phone__c', 'Gender__c', 'Birthday__c', 'Locale__c'];
const CONSENT_FIELDS = ['ConsentURL__c', 'ConsentText__c', 'ConsentTermsConditions__c'];

describe('key format: <Type>_<id> on SvcId__c', () => {
  it('gives every syncable type its prefixed key', () => {
    expect(keyFor('segment', 12)).toBe('Segment_12');
    expect(keyFor('project', 1)).toBe('Project_1');
    expect(keyFor('company', 1)).toBe('Company_1');
    expect(keyFor('team', 1)).toBe('Team_1');
    expect(keyFor('action', 1)).toBe('Action_1');
    expect(keyFor('donation', 1)).toBe('Donation_1');
    expect(keyFor('newsletter_subscription', 1)).toBe('NewsletterSubscription_1');
  });

  it('gives a question the composite key ActionQuestion_{action}.{question} and QuestionSvcId__c Question_{question}', () => {
    expect(questionKey(1, 2)).toBe('ActionQuestion_1.2');
    const [q] = mapQuestions(fixture('api/action.json', 'action'));
    const r = asRecord(q);
    expect(r.key).toBe('ActionQuestion_1.2');
    expect(r.fields.SvcId__c).toBe('ActionQuestion_1.2');
    expect(r.fields.QuestionSvcId__c).toBe('Question_2');
  });

  it('maps the reference responses (fixtures/api) to their keys, SvcId__c included', () => {
    const keys = [
      asRecord(mapRecord('segment', fixture('api/segment.json', 'segment'))),
      asRecord(mapRecord('project', fixture('api/project.json', 'project'))),
      asRecord(mapRecord('company', fixture('api/company.json', 'company'))),
      asRecord(mapRecord('team', fixture('api/team.json', 'team'))),
      asRecord(mapRecord('action', fixture('api/action.json', 'action'), { user: fixture('api/user.json', 'user') })),
      asRecord(mapRecord('donation', fixture('api/donation.json', 'donation'))),
      asRecord(mapRecord('newsletter_subscription', fixture('api/newsletter_subscription.json', 'newsletter_subscription'))),
    ].map((r) => [r.key, r.fields.SvcId__c]);
    expect(keys).toEqual([
      ['Segment_12', 'Segment_12'],
      ['Project_1', 'Project_1'],
      ['Company_1', 'Company_1'],
      ['Team_1', 'Team_1'],
      ['Action_1', 'Action_1'],
      ['Donation_1', 'Donation_1'],
      ['NewsletterSubscription_1', 'NewsletterSubscription_1'],
    ]);
  });

  it('keeps keys unique across types for the same platform id', () => {
    const keys = (['segment', 'project', 'company', 'team', 'action', 'donation', 'newsletter_subscription'] as const).map((t) => keyFor(t, 7));
    expect(new Set(keys).size).toBe(7);
  });

  it('reports a record without an id as invalid, not as a record keyed "undefined"', () => {
    const r = asInvalid(mapRecord('segment', JSON.parse('{"name":"No id"}') as ApiSegment));
    expect(r).toEqual({ kind: 'invalid', type: 'segment', object: 'Svc_Segment__c', key: '(no id)', error: { code: 'MISSING_ID', message: 'the record has no id' } });
  });
});

describe('Name field: per object, parts joined by one space, blank parts left out, cut to 80', () => {
  it('takes segment.name, project.title, company.name, team.name', () => {
    expect(asRecord(mapRecord('segment', { id: 1, name: 'Seg', title: 'Seg title' })).fields.Name).toBe('Seg');
    expect(asRecord(mapRecord('project', { id: 1, name: 'Proj name', title: 'Proj title' })).fields.Name).toBe('Proj title');
    expect(asRecord(mapRecord('company', { id: 1, name: 'Comp', title: 'Comp title' })).fields.Name).toBe('Comp');
    expect(asRecord(mapRecord('team', { id: 1, name: 'Team', title: 'Team title' })).fields.Name).toBe('Team');
  });

  it('joins action first_name, infix, last_name with one space, leaving blank parts out', () => {
    const name = (first: string | null, infix: string | null, last: string | null): unknown =>
      asRecord(mapRecord('action', action({ first_name: first, infix, last_name: last }), { user: USER })).fields.Name;
    expect(name('Jan', 'van', 'Dijk')).toBe('Jan van Dijk');
    expect(name('Jan', null, 'Dijk')).toBe('Jan Dijk');
    expect(name('Jan', '   ', 'Dijk')).toBe('Jan Dijk');
    expect(name('', 'van', 'Dijk')).toBe('van Dijk');
    expect(name(' Jan ', '', ' Dijk ')).toBe('Jan Dijk');
    expect(name(null, null, null)).toBeUndefined();
  });

  it('takes the question text for a question', () => {
    const [q] = mapQuestions(action({ questions: [{ id: 9, question: 'Shirt size?', answer: 'M' }] }));
    expect(asRecord(q).fields.Name).toBe('Shirt size?');
  });

  it('takes donation.company first, else the donor names', () => {
    expect(asRecord(mapRecord('donation', donation({ company: 'Acme', first_name: 'Jan', last_name: 'Dijk' }))).fields.Name).toBe('Acme');
    expect(asRecord(mapRecord('donation', donation({ company: null, first_name: 'Jan', infix: 'de', last_name: 'Dijk' }))).fields.Name).toBe('Jan de Dijk');
    // hostile: company is whitespace only, first_name padded
    const r = asRecord(mapRecord('donation', hostile('donation_consents', 'donation')));
    expect(r.fields.Name).toBe('Jan de Vries');
    expect(r.fields.Company__c).toBeUndefined();
    // no name at all: Name is blank, so it is left out like any blank value
    expect(asRecord(mapRecord('donation', donation())).fields.Name).toBeUndefined();
  });

  it('takes newsletter_subscription.email', () => {
    expect(asRecord(mapRecord('newsletter_subscription', hostile('newsletter_entity', 'newsletter_subscription'))).fields.Name).toBe('nina@example.org');
  });

  it('cuts a 300-character title to 80 for Name and to 255 for Title__c', () => {
    const rec = hostile('project_long_title', 'project');
    expect(rec.title).toHaveLength(300);
    const r = asRecord(mapRecord('project', rec));
    const digits = '0123456789'.repeat(30);
    expect(r.fields.Name).toBe(digits.slice(0, 80));
    expect(r.fields.Title__c).toBe(digits.slice(0, 255));
    expect((r.fields.Name as string).length).toBe(80);
    expect((r.fields.Title__c as string).length).toBe(255);
  });

  it('cuts the donor-name Name to 80 too', () => {
    const r = asRecord(mapRecord('donation', donation({ first_name: 'F'.repeat(50), last_name: 'L'.repeat(50) })));
    expect(r.fields.Name).toBe(`${'F'.repeat(50)} ${'L'.repeat(29)}`);
  });
});

describe('truncation in UTF-16 code units, an emoji at the limit dropped whole', () => {
  it('drops an emoji at code units 79/80 of Name (limit 80): Name is 79 units, no half pair', () => {
    const rec = hostile('segment_emoji', 'segment');
    const name = rec.name as string;
    expect(isHighSurrogate(name.charCodeAt(79)) && isLowSurrogate(name.charCodeAt(80))).toBe(true);
    const r = asRecord(mapRecord('segment', rec));
    expect(r.fields.Name).toBe('N'.repeat(79));
  });

  it('drops an emoji at code units 254/255 of a Text(255) field: 254 units remain', () => {
    const rec = hostile('segment_emoji', 'segment');
    const title = rec.title as string;
    expect(isHighSurrogate(title.charCodeAt(254)) && isLowSurrogate(title.charCodeAt(255))).toBe(true);
    expect(asRecord(mapRecord('segment', rec)).fields.Title__c).toBe('T'.repeat(254));
  });

  it('keeps an emoji that ends exactly at the limit (code units 253/254 of 255, 78/79 of 80)', () => {
    const seg = asRecord(mapRecord('segment', hostile('segment_emoji', 'segment')));
    expect(seg.fields.ExternalReference__c).toBe(`${'E'.repeat(253)}${EMOJI}`);
    expect((seg.fields.ExternalReference__c as string).length).toBe(255);

    const rec = hostile('action_emoji_name', 'action');
    const r = asRecord(mapRecord('action', rec, { user: USER }));
    expect(r.fields.Name).toBe(`${'A'.repeat(39)} ${'B'.repeat(38)}${EMOJI}`);
    expect((r.fields.Name as string).length).toBe(80);
    // the source field itself (Text(255)) is not cut at all
    expect(r.fields.LastName__c).toBe(`${'B'.repeat(38)}${EMOJI}tail`);
  });

  it('drops an emoji straddling 79/80 of a donation company Name, keeping Company__c whole', () => {
    const company = `${'C'.repeat(79)}${EMOJI}`;
    const r = asRecord(mapRecord('donation', donation({ company })));
    expect(r.fields.Name).toBe('C'.repeat(79));
    expect(r.fields.Company__c).toBe(company);
  });

  it('cuts Text(2) locale and Text(3) currency', () => {
    const d = asRecord(mapRecord('donation', hostile('donation_amounts', 'donation')));
    expect(d.fields.Locale__c).toBe('nl');
    expect(d.fields.Currency__c).toBe('EUR');
    const a = asRecord(mapRecord('action', action(), { user: { ...USER, locale: 'en-GB' } }));
    expect(a.fields.Locale__c).toBe('en');
    const n = asRecord(mapRecord('newsletter_subscription', { id: 3, email: 'x@example.org', locale: 'nl_NL' }));
    expect(n.fields.Locale__c).toBe('nl');
  });

  it('cuts the target external reference (Text(255)) of a donation', () => {
    const r = asRecord(mapRecord('donation', donation(), { targetExternalReference: 'R'.repeat(300) }));
    expect(r.fields.ExternalReference__c).toBe('R'.repeat(255));
  });
});

describe('HTML: only Description__c is stripped, before truncation', () => {
  it('strips the hostile HTML description exactly: entities, scripts, headings, lists, links, images, spaces, long line', () => {
    const r = asRecord(mapRecord('project', hostile('project_html', 'project')));
    const longLine = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    expect(r.fields.Description__c).toBe(['Big & Bold', 'Café €5 <tag> "quoted" \'single\' nbsp', 'first', 'second', 'uno', 'dos', 'Visit our site now.', 'lots of spaces', longLine].join('\n'));
  });

  it('keeps HTML in every other text field: Title__c, ExternalReference__c, Message__c, ConsentText__c', () => {
    const p = asRecord(mapRecord('project', hostile('project_html', 'project')));
    expect(p.fields.Title__c).toBe('<b>Bold</b> &amp; title');
    expect(p.fields.ExternalReference__c).toBe('<i>ref</i>');
    const d = asRecord(mapRecord('donation', hostile('donation_consents', 'donation')));
    expect(d.fields.Message__c).toBe('<p>Keep <b>this</b> &amp; that</p>');
    expect(d.fields.ConsentText__c).toBe('Ik accepteer de <a href="/av">voorwaarden</a>.');
    const n = asRecord(mapRecord('newsletter_subscription', hostile('newsletter_entity', 'newsletter_subscription')));
    expect(n.fields.ConsentText__c).toBe('Yes, <b>news</b>');
  });

  it('cuts a 40,000-character description to 32768 code units after stripping', () => {
    const rec = hostile('segment_long_description', 'segment');
    expect(rec.description).toHaveLength(40000);
    const r = asRecord(mapRecord('segment', rec));
    expect(r.fields.Description__c).toBe('x'.repeat(32768));
  });

  it('strips before it truncates: 8000 "&amp;" (40,000 characters) become 8000 "&", not 6553', () => {
    const rec = hostile('team_entity_description', 'team');
    expect(rec.description).toHaveLength(40000);
    expect(asRecord(mapRecord('team', rec)).fields.Description__c).toBe('&'.repeat(8000));
  });

  it('drops an emoji straddling the 32768 limit of a stripped description whole', () => {
    const rec = hostile('company_emoji_description', 'company');
    expect(rec.description).toHaveLength(40000);
    expect(asRecord(mapRecord('company', rec)).fields.Description__c).toBe('y'.repeat(32767));
  });

  it('leaves out a description that is only markup or script (blank after stripping)', () => {
    const r = asRecord(mapRecord('segment', { id: 1, name: 'S', description: '<p> </p><script>x()</script>&nbsp;' }));
    expect(r.fields.Description__c).toBeUndefined();
  });

  it('strips the action description too', () => {
    const r = asRecord(mapRecord('action', action({ description: '<h3>Why</h3><p>Because &hellip;</p>' }), { user: USER }));
    expect(r.fields.Description__c).toBe('Why\nBecause …');
  });
});

describe('DateTime as ISO 8601 date-time, Date as YYYY-MM-DD', () => {
  it('stores DateTime fields as UTC ISO 8601, offsets converted', () => {
    const r = asRecord(mapRecord('donation', hostile('donation_amounts', 'donation')));
    expect(r.fields.CreatedAt__c).toBe('2016-03-30T14:41:48.000Z');
    expect(r.fields.UpdatedAt__c).toBe('2016-03-30T14:46:25.000Z');
    expect(r.fields.PaymentDate__c).toBe('2016-03-30T14:46:25.000Z');
  });

  it('stores the user birthday of an action as a Date (YYYY-MM-DD)', () => {
    expect(asRecord(mapRecord('action', action(), { user: USER })).fields.Birthday__c).toBe('1990-05-01');
    // a date-time given for a Date field keeps the calendar date it was written with
    const r = asRecord(mapRecord('action', action(), { user: { ...USER, birthday: '1990-05-01T23:30:00+02:00' } }));
    expect(r.fields.Birthday__c).toBe('1990-05-01');
  });

  it('stores the donation Birthday__c as a DateTime (the spec says so)', () => {
    expect(asRecord(mapRecord('donation', hostile('donation_amounts', 'donation'))).fields.Birthday__c).toBe('1985-12-31T00:00:00.000Z');
  });

  it('reports a malformed date as an error for that record', () => {
    const r = asInvalid(mapRecord('segment', { id: 3, name: 'S', end_date: 'next Tuesday' }));
    expect(r.key).toBe('Segment_3');
    expect(r.error).toEqual({ code: 'INVALID_VALUE', message: 'EndDate__c: not a date-time: "next Tuesday"' });
  });
});

describe('numbers: Number(10,2) rounded to 2 decimals, Number(18,0) whole, out of precision is an error', () => {
  it('rounds the API amount strings half away from zero on the decimal digits', () => {
    const r = asRecord(mapRecord('donation', hostile('donation_amounts', 'donation')));
    expect(r.fields.Amount__c).toBe(12.35); // "12.345"
    expect(r.fields.TransactionCosts__c).toBe(1.01); // "1.005" (a binary float would give 1.00)
    expect(r.fields.TotalAmount__c).toBe(25.4); // "25.4"
    expect(r.fields.ReceivableAmount__c).toBe(0.13); // "0.125"
    expect(r.fields.RegistrationFeeAmount__c).toBe(99999999.99); // "99999999.994": 8 integer digits fit
  });

  it('stores Number(18,0) fields as whole numbers', () => {
    const r = asRecord(mapRecord('action', action({ target_amount: '2000.6', total_donations: '4', previous_participations: 3 }), { user: USER }));
    expect(r.fields.TargetAmount__c).toBe(2001);
    expect(r.fields.TotalDonations__c).toBe(4);
    expect(r.fields.PreviousParticipations__c).toBe(3);
  });

  it('makes an amount past Number(10,2) an error for that record, naming every field', () => {
    const r = asInvalid(mapRecord('donation', hostile('donation_out_of_range', 'donation')));
    expect(r).toEqual({
      kind: 'invalid',
      type: 'donation',
      object: 'Svc_Donation__c',
      key: 'Donation_21',
      error: {
        code: 'INVALID_VALUE',
        message: 'Amount__c: "123456789.00" does not fit Number(10,2); TotalAmount__c: "123456789.00" does not fit Number(10,2)',
      },
    });
  });

  it('makes an amount that rounds past the precision an error too ("99999999.995")', () => {
    const r = asInvalid(mapRecord('donation', donation({ receivable_amount: '99999999.995' })));
    expect(r.error.message).toBe('ReceivableAmount__c: "99999999.995" does not fit Number(10,2)');
  });

  it('makes a 19-digit Number(18,0) an error', () => {
    const r = asInvalid(mapRecord('project', { id: 4, title: 'P', target_amount: '1000000000000000000' }));
    expect(r.error.message).toBe('TargetAmount__c: "1000000000000000000" does not fit Number(18,0)');
  });

  it('makes a non-numeric amount an error', () => {
    const r = asInvalid(mapRecord('segment', { id: 5, name: 'S', total_amount: '12,50' }));
    expect(r.error).toEqual({ code: 'INVALID_VALUE', message: 'TotalAmount__c: not a number: "12,50"' });
  });
});

describe('blank values left out, checkboxes always sent', () => {
  it('leaves out null, undefined, "" and whitespace-only values; sends 0; defaults the checkboxes', () => {
    const r = asRecord(mapRecord('team', hostile('team_blanks', 'team')));
    expect(r.fields).toEqual({
      Name: 'Team Name',
      SvcId__c: 'Team_15',
      CreatedAt__c: '2015-08-26T14:51:35.000Z',
      TotalDonations__c: 0,
      Visible__c: false,
      Closed__c: false,
    });
  });

  it('sends project Visible__c true and Closed__c false when missing', () => {
    const r = asRecord(mapRecord('project', { id: 1, title: 'P' }));
    expect(r.fields).toEqual({ Name: 'P', SvcId__c: 'Project_1', Title__c: 'P', Visible__c: true, Closed__c: false });
    // an explicit false is kept, also for a default-true checkbox
    expect(asRecord(mapRecord('project', { id: 1, visible: false })).fields.Visible__c).toBe(false);
    expect(asRecord(mapRecord('project', { id: 1, visible: null })).fields.Visible__c).toBe(true);
  });

  it('sends company and team Visible__c/Closed__c false when missing', () => {
    expect(asRecord(mapRecord('company', { id: 1 })).fields).toEqual({ SvcId__c: 'Company_1', Visible__c: false, Closed__c: false });
    expect(asRecord(mapRecord('team', { id: 1 })).fields).toEqual({ SvcId__c: 'Team_1', Visible__c: false, Closed__c: false });
  });

  it('sends the action checkboxes false when missing', () => {
    const r = asRecord(mapRecord('action', { id: 60 }));
    expect(r.fields).toEqual({ SvcId__c: 'Action_60', FundraiserPage__c: false, Visible__c: false, Closed__c: false, TeamCaptain__c: false });
  });

  it('sends donation Countable__c true and the other checkboxes false when missing; an explicit false is kept', () => {
    const r = asRecord(mapRecord('donation', donation()));
    expect(r.fields).toEqual({
      SvcId__c: 'Donation_40',
      TotalAmount__c: 10,
      PaymentStatus__c: 'paid',
      Newsletter__c: false,
      Countable__c: true,
      RegistrationFee__c: false,
      StartDonation__c: false,
    });
    expect(asRecord(mapRecord('donation', donation({ countable: false }))).fields.Countable__c).toBe(false);
  });

  it('leaves out blank question timestamps and the subscription fields that are blank', () => {
    const n = asRecord(mapRecord('newsletter_subscription', { id: 8, email: 'a@b.c', first_name: ' ', infix: null, last_name: '', locale: '\t' }));
    expect(n.fields).toEqual({ Name: 'a@b.c', SvcId__c: 'NewsletterSubscription_8', Email__c: 'a@b.c' });
  });
});

describe('consent selection: granted, then the first of the relevant type', () => {
  it('skips a denied first entry and an entry of the wrong type (donation: terms_conditions)', () => {
    const r = asRecord(mapRecord('donation', hostile('donation_consents', 'donation')));
    expect(r.fields.ConsentURL__c).toBe('https://granted.example/');
    expect(r.fields.ConsentText__c).toBe('Ik accepteer de <a href="/av">voorwaarden</a>.');
    expect(r.fields.ConsentTermsConditions__c).toBe('V2 granted');
  });

  it('does the same for an action', () => {
    const r = asRecord(mapRecord('action', hostile('action_team_and_company', 'action'), { user: USER }));
    expect([r.fields.ConsentURL__c, r.fields.ConsentText__c, r.fields.ConsentTermsConditions__c]).toEqual(['https://granted.example/', 'Granted', 'V1']);
  });

  it('uses type newsletter_subscription for subscriptions, ignoring a granted terms_conditions entry', () => {
    const r = asRecord(mapRecord('newsletter_subscription', hostile('newsletter_entity', 'newsletter_subscription')));
    expect([r.fields.ConsentURL__c, r.fields.ConsentText__c, r.fields.ConsentTermsConditions__c]).toEqual(['https://news.example/', 'Yes, <b>news</b>', 'N1']);
  });

  it('sends no consent fields when no entry is granted and of the relevant type', () => {
    const onlyNews = donation({ consents: [{ consent_type: 'newsletter_subscription', consent_status: 'granted', url: 'u', consent_text: 't', terms_conditions_version: 'v' }] });
    const d = asRecord(mapRecord('donation', onlyNews));
    const onlyTerms: ApiNewsletterSubscription = { id: 9, email: 'a@b.c', consents: [{ consent_type: 'terms_conditions', consent_status: 'granted', url: 'u' }] };
    const n = asRecord(mapRecord('newsletter_subscription', onlyTerms));
    const deniedOnly = action({ consents: [{ consent_type: 'terms_conditions', consent_status: 'denied', url: 'u', consent_text: 't' }] });
    const a = asRecord(mapRecord('action', deniedOnly, { user: USER }));
    for (const r of [d, n, a]) for (const f of CONSENT_FIELDS) expect(r.fields[f]).toBeUndefined();
  });

  it('ignores a consents value that is not an array', () => {
    const r = asRecord(mapRecord('action', hostile('action_no_owner', 'action')));
    for (const f of CONSENT_FIELDS) expect(r.fields[f]).toBeUndefined();
  });
});

describe('donation filter: paid/refunded/chargedback and a non-zero total_amount', () => {
  it('skips a pending donation with its reason', () => {
    expect(asSkip(mapRecord('donation', donation({ payment_status: 'pending' })))).toEqual({
      kind: 'skip',
      type: 'donation',
      object: 'Svc_Donation__c',
      key: 'Donation_40',
      reason: "payment status not synced: payment_status 'pending' (synced: paid, refunded, chargedback)",
    });
  });

  it('skips a donation without a payment status', () => {
    expect(asSkip(mapRecord('donation', donation({ payment_status: null }))).reason).toBe('payment status not synced: payment_status is blank (synced: paid, refunded, chargedback)');
  });

  it('skips a zero total_amount, as a string or a number, and a missing one', () => {
    expect(asSkip(mapRecord('donation', donation({ total_amount: '0.0' }))).reason).toBe('zero total amount: total_amount is 0.0');
    expect(asSkip(mapRecord('donation', donation({ total_amount: 0 }))).reason).toBe('zero total amount: total_amount is 0');
    expect(asSkip(mapRecord('donation', donation({ total_amount: null }))).reason).toBe('zero total amount: total_amount is blank');
  });

  it('syncs paid, refunded and chargedback donations', () => {
    expect(asRecord(mapRecord('donation', donation({ payment_status: 'paid' }))).fields.PaymentStatus__c).toBe('paid');
    expect(asRecord(mapRecord('donation', hostile('donation_consents', 'donation'))).fields.PaymentStatus__c).toBe('refunded');
    expect(asRecord(mapRecord('donation', hostile('donation_amounts', 'donation'))).fields.PaymentStatus__c).toBe('chargedback');
  });
});

describe('questions with a blank answer are skipped with a reason', () => {
  it('skips "", whitespace and null answers and maps the answered question', () => {
    const results = mapQuestions(hostile('action_team_and_company', 'action'));
    expect(results.map((r) => [r.kind, r.key])).toEqual([
      ['skip', 'ActionQuestion_11.1'],
      ['skip', 'ActionQuestion_11.2'],
      ['skip', 'ActionQuestion_11.3'],
      ['record', 'ActionQuestion_11.4'],
    ]);
    expect(results.slice(0, 3).map((r) => asSkip(r).reason)).toEqual(['blank answer', 'blank answer', 'blank answer']);
    expect(asRecord(results[3]).fields).toEqual({
      Name: 'Shirt size?',
      SvcId__c: 'ActionQuestion_11.4',
      QuestionSvcId__c: 'Question_4',
      CreatedAt__c: '2015-08-26T14:50:16.000Z',
      UpdatedAt__c: '2015-08-26T14:50:20.000Z',
      Question__c: 'Shirt size?',
      Answer__c: 'XL',
    });
  });

  it('maps no questions for an action without any', () => {
    expect(mapQuestions(action())).toEqual([]);
    expect(mapQuestions(action({ questions: null }))).toEqual([]);
  });
});

describe('action URL__c only when fundraiser_page is true', () => {
  it('leaves URL__c out when fundraiser_page is false, even with a url', () => {
    const r = asRecord(mapRecord('action', hostile('action_team_and_company', 'action'), { user: USER }));
    expect(r.fields.FundraiserPage__c).toBe(false);
    expect(r.fields.URL__c).toBeUndefined();
  });

  it('leaves URL__c out when fundraiser_page is missing', () => {
    expect(asRecord(mapRecord('action', action({ url: 'https://x.example/' }), { user: USER })).fields.URL__c).toBeUndefined();
  });

  it('sends URL__c when fundraiser_page is true', () => {
    const r = asRecord(mapRecord('action', hostile('action_no_owner', 'action')));
    expect(r.fields.FundraiserPage__c).toBe(true);
    expect(r.fields.URL__c).toBe('https://demo1.kentaa.nl/actie/ghost');
  });
});

describe('donation address fields only when the address is present', () => {
  it('sends no address field without an address (missing or null)', () => {
    for (const rec of [hostile('donation_consents', 'donation'), donation({ address: null })]) {
      const r = asRecord(mapRecord('donation', rec));
      for (const f of ADDRESS_FIELDS) expect(r.fields[f]).toBeUndefined();
    }
  });

  it('sends the address parts that are present, never the donor fields of the same name at top level', () => {
    const rec = JSON.parse(
      JSON.stringify({ ...donation(), city: 'Top-level city', address: { address: 'Main St 1', zipcode: '1234AB', city: 'Utrecht', country: 'NL', street: '  ' } }),
    ) as ApiDonation;
    const r = asRecord(mapRecord('donation', rec));
    expect(ADDRESS_FIELDS.map((f) => r.fields[f])).toEqual(['Main St 1', undefined, undefined, undefined, undefined, '1234AB', 'Utrecht', 'NL']);
  });
});

describe('donation target: the most specific of action, team, company, project, segment', () => {
  const ids = { action_id: 7, team_id: 4, company_id: 1, project_id: 3, segment_id: 2 };
  const cases: [Partial<ApiDonation>, string][] = [
    [ids, 'Action_7'],
    [{ ...ids, action_id: null }, 'Team_4'],
    [{ ...ids, action_id: null, team_id: null }, 'Company_1'],
    [{ project_id: 3, segment_id: 2 }, 'Project_3'],
    [{ segment_id: 2 }, 'Segment_2'],
  ];

  it.each(cases)('%j -> TargetSvcId__c %s', (over, key) => {
    const r = asRecord(mapRecord('donation', donation(over)));
    expect(r.fields.TargetSvcId__c).toBe(key);
    expect(r.parent?.key).toBe(key);
  });

  it('sets TargetSvcId__c to the target key even when the target could not be found (no external reference)', () => {
    const r = asRecord(mapRecord('donation', donation(ids), { targetExternalReference: null }));
    expect(r.fields.TargetSvcId__c).toBe('Action_7');
    expect(r.fields.ExternalReference__c).toBeUndefined();
  });

  it('still syncs a donation without any target: no TargetSvcId__c, no parent', () => {
    const r = asRecord(mapRecord('donation', donation()));
    expect(r.fields.TargetSvcId__c).toBeUndefined();
    expect(r.parent).toBeNull();
  });
});

describe('action parent: team before company, no fallback', () => {
  it('hangs an action with both team_id and company_id from the team', () => {
    const r = asRecord(mapRecord('action', hostile('action_team_and_company', 'action'), { user: USER }));
    expect(r.parent).toEqual({ type: 'team', object: 'Svc_Team__c', id: 4, key: 'Team_4', direct: 'Svc_Team__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] });
  });

  it('names only the most specific parent: no less specific id is carried as a fallback', () => {
    const r = asRecord(mapRecord('action', action({ company_id: 1, project_id: 3, segment_id: 2 }), { user: USER }));
    expect(r.parent).toEqual({ type: 'company', object: 'Svc_Company__c', id: 1, key: 'Company_1', direct: 'Svc_Company__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] });
    // no lookup field is ever in the mapped fields: the CRM writer sets them from the parent's CRM record
    for (const f of ['Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c']) expect(r.fields[f]).toBeUndefined();
  });
});

describe('action owner: user fields from GET /users/:owner_id, else a warning', () => {
  it('maps an action whose owner user is 404 (extras.user null) without user fields, with a warning', () => {
    const r = asRecord(mapRecord('action', full('action'), { user: null }));
    for (const f of USER_FIELDS) expect(r.fields[f]).toBeUndefined();
    // Email__c comes from action.owner, not the user record: still there
    expect(r.fields.Email__c).toBe('john.doe@kentaa.nl');
    expect(r.fields.Name).toBe('John van Doe');
    expect(r.warnings).toEqual(['owner user 2 could not be fetched: user fields left out']);
  });

  it('maps an action without an owner without user fields and Email__c, with a warning', () => {
    const r = asRecord(mapRecord('action', hostile('action_no_owner', 'action'), { user: USER }));
    for (const f of [...USER_FIELDS, 'Email__c']) expect(r.fields[f]).toBeUndefined();
    expect(r.fields.Name).toBe('Ghost Writer');
    expect(r.warnings).toEqual(['action has no owner: user fields left out']);
    expect(r.parent?.key).toBe('Segment_2');
  });
});

describe('newsletter subscription entity: entity_type + entity_id (SPEC) or project_id / segment_id (real API)', () => {
  const base: ApiNewsletterSubscription = { id: 5, email: 'a@b.c' };

  it.each<[string, ApiNewsletterSubscription, string]>([
    ['entity Segment 2', { ...base, entity_type: 'Segment', entity_id: 2 }, 'Segment_2'],
    ['entity project 3', { ...base, entity_type: 'project', entity_id: 3 }, 'Project_3'],
    ['project_id 3', { ...base, project_id: 3 }, 'Project_3'],
    ['segment_id 2', { ...base, segment_id: 2 }, 'Segment_2'],
    ['project_id 3 and segment_id 2', { ...base, project_id: 3, segment_id: 2 }, 'Project_3'],
  ])('%s -> %s', (_label, rec, key) => {
    expect(asRecord(mapRecord('newsletter_subscription', rec)).parent?.key).toBe(key);
  });

  it('takes the hostile entity form (Segment, capitalised) to a segment parent', () => {
    const r = asRecord(mapRecord('newsletter_subscription', hostile('newsletter_entity', 'newsletter_subscription')));
    expect(r.parent).toEqual({ type: 'segment', object: 'Svc_Segment__c', id: 2, key: 'Segment_2', direct: 'Svc_Segment__c', inherit: [] });
  });

  it('lets the entity form win when both forms are given (resolution of an open point of the spec)', () => {
    const r = asRecord(mapRecord('newsletter_subscription', { ...base, entity_type: 'segment', entity_id: 2, project_id: 3 }));
    expect(r.parent?.key).toBe('Segment_2');
  });

  it('has no parent without an entity, and says so', () => {
    const r = asRecord(mapRecord('newsletter_subscription', base));
    expect(r.parent).toBeNull();
    expect(r.parentProblem).toMatch(/^no entity/);
  });

  it('links the nested entity of the issue report: project 2 and Project 13', () => {
    const four = JSON.parse('{ "id": 4, "entity": { "entity_type": "project", "entity_id": 2 }, "email": "a@b.c" }') as ApiNewsletterSubscription;
    const six = JSON.parse('{ "id": 6, "entity": { "entity_type": "Project", "entity_id": 13 }, "email": "d@e.f" }') as ApiNewsletterSubscription;
    expect(asRecord(mapRecord('newsletter_subscription', four)).parent?.key).toBe('Project_2');
    expect(asRecord(mapRecord('newsletter_subscription', six)).parent?.key).toBe('Project_13');
  });
});

describe('ExternalReference__c of donations and subscriptions: the target entity, from extras', () => {
  it('takes extras.targetExternalReference, never an external_reference on the record itself', () => {
    const withOwn = JSON.parse(JSON.stringify({ ...donation({ project_id: 3 }), external_reference: 'OWN' })) as ApiDonation;
    expect(asRecord(mapRecord('donation', withOwn, { targetExternalReference: 'Project Ref 3' })).fields.ExternalReference__c).toBe('Project Ref 3');
    expect(asRecord(mapRecord('donation', withOwn)).fields.ExternalReference__c).toBeUndefined();

    const sub = JSON.parse(JSON.stringify({ id: 6, email: 'a@b.c', segment_id: 2, external_reference: 'OWN' })) as ApiNewsletterSubscription;
    expect(asRecord(mapRecord('newsletter_subscription', sub, { targetExternalReference: 'Seg Ref' })).fields.ExternalReference__c).toBe('Seg Ref');
    expect(asRecord(mapRecord('newsletter_subscription', sub, { targetExternalReference: '   ' })).fields.ExternalReference__c).toBeUndefined();
  });

  it('keeps the own external_reference of an action and of the entities', () => {
    const p: ApiProject = { id: 1, title: 'P', external_reference: 'P-REF' };
    expect(asRecord(mapRecord('project', p)).fields.ExternalReference__c).toBe('P-REF');
    expect(asRecord(mapRecord('action', action({ external_reference: 'A-REF' }), { user: USER })).fields.ExternalReference__c).toBe('A-REF');
  });
});
