import { describe, expect, it } from '@jest/globals';
import { classifyEvent } from '../../src/sync/input/webhookEvents.js';
import { parseWebhookBody, type WebhookMessage } from '../../src/sync/input/webhookMessage.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json; charset=utf-8';

function reasonOf(contentType: string | undefined, body: string): string {
  const r = parseWebhookBody(contentType, body);
  if (r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r.message)}`);
  return r.reason;
}

describe('parseWebhookBody', () => {
  it('reads form parameters with a charset parameter', () => {
    const r = parseWebhookBody(`${FORM}; charset=UTF-8`, 'object_type=Donation&object_id=12&event_type=donations.update&application=Kentaa&site_id=3');
    expect(r).toEqual({ ok: true, message: { objectType: 'Donation', objectId: 12, eventType: 'donations.update', application: 'Kentaa', siteId: 3 } });
  });

  it('reads JSON with numbers or numeric strings, ignoring unknown keys', () => {
    const a = parseWebhookBody(JSON_TYPE, JSON.stringify({ object_type: 'Action', object_id: 5, event_type: 'actions.update', application: 'Kentaa', site_id: 9, extra: true }));
    const b = parseWebhookBody('application/json', JSON.stringify({ object_type: 'Action', object_id: '5', event_type: 'actions.update', application: 'Kentaa', site_id: '9' }));
    expect(a).toEqual(b);
    expect(a.ok && a.message.objectId).toBe(5);
  });

  it('reads a subscription named in either body format, its id a number or a numeric string', () => {
    const json = parseWebhookBody(JSON_TYPE, JSON.stringify({ object_type: 'NewsletterSubscription', object_id: '500004', event_type: 'newsletter_subscriptions.update', application: 'Kentaa' }));
    const form = parseWebhookBody(FORM, 'object_type=newsletter_subscription&object_id=500004&event_type=newsletter_subscriptions.update&application=Kentaa');
    for (const r of [json, form]) {
      if (!r.ok) throw new Error(r.reason);
      expect(classifyEvent(r.message)).toEqual({ kind: 'sync', ref: { type: 'newsletter_subscription', id: 500004 } });
    }
  });

  it('accepts a missing site_id and guesses the format when Content-Type is absent', () => {
    const r = parseWebhookBody(undefined, '{"object_type":"Team","object_id":1,"event_type":"teams.create","application":"Kentaa"}');
    expect(r.ok && r.message).toEqual({ objectType: 'Team', objectId: 1, eventType: 'teams.create', application: 'Kentaa' });
    const f = parseWebhookBody(undefined, 'object_type=Team&object_id=1&event_type=teams.create&application=Kentaa');
    expect(f.ok).toBe(true);
  });

  it.each([
    ['empty body', FORM, '', 'body is empty'],
    ['bad JSON', JSON_TYPE, '{"object_type":', 'body is not valid JSON'],
    ['JSON array', JSON_TYPE, '[1]', 'JSON body must be an object'],
    ['unsupported type', 'text/plain', 'x', 'unsupported content type text/plain'],
    ['no object_type', FORM, 'object_id=1&event_type=a.update&application=K', 'object_type is missing'],
    ['numeric object_type', JSON_TYPE, '{"object_type":3,"object_id":1,"event_type":"a.update","application":"K"}', 'object_type must be a string'],
    ['no object_id', FORM, 'object_type=Donation&event_type=a.update&application=K', 'object_id is missing'],
    ['zero object_id', FORM, 'object_type=Donation&object_id=0&event_type=a.update&application=K', 'object_id must be a positive integer'],
    ['fractional object_id', JSON_TYPE, '{"object_type":"Donation","object_id":1.5,"event_type":"a.update","application":"K"}', 'object_id must be a positive integer'],
    ['text object_id', FORM, 'object_type=Donation&object_id=abc&event_type=a.update&application=K', 'object_id must be a positive integer'],
    ['no event_type', FORM, 'object_type=Donation&object_id=1&application=K', 'event_type is missing'],
    ['blank application', FORM, 'object_type=Donation&object_id=1&event_type=a.update&application=%20', 'application is empty'],
    ['bad site_id', FORM, 'object_type=Donation&object_id=1&event_type=a.update&application=K&site_id=x', 'site_id must be a positive integer'],
    ['a site_id of -1', JSON_TYPE, '{"object_type":"Donation","object_id":1,"event_type":"donations.update","application":"K","site_id":-1}', 'site_id must be a positive integer'],
  ])('rejects %s with a precise reason', (_name, type, body, reason) => {
    expect(reasonOf(type, body)).toContain(reason);
  });
});

const msg = (objectType: string, eventType: string, objectId = 4, application = 'Kentaa'): WebhookMessage => ({ objectType, objectId, eventType, application });

describe('classifyEvent', () => {
  it.each([
    ['Donation', 'donations.update', 'donation'],
    ['Action', 'actions.create', 'action'],
    ['Project', 'projects.confirm', 'project'],
    ['Project', 'projects.move', 'project'],
    ['Team', 'teams.move', 'team'],
    ['Donation', 'donations.move', 'donation'],
    ['Company', 'sign_ups.create', 'company'],
    ['Segment', 'counters.update', 'segment'],
    ['NewsletterSubscription', 'newsletter_subscriptions.update', 'newsletter_subscription'],
    ['newsletter_subscriptions', 'newsletter_subscriptions.update', 'newsletter_subscription'],
    ['newsletter_subscription', 'newsletter_subscriptions.update', 'newsletter_subscription'],
    ['Newsletter Subscription', 'newsletter_subscriptions.update', 'newsletter_subscription'],
    ['newsletter-subscriptions', 'newsletter_subscriptions.update', 'newsletter_subscription'],
    ['NEWSLETTER_SUBSCRIPTIONS', 'Newsletter_Subscriptions.Update', 'newsletter_subscription'],
    ['Action', 'questions.update', 'action'],
  ])('%s %s syncs a %s', (objectType, eventType, type) => {
    expect(classifyEvent(msg(objectType, eventType))).toEqual({ kind: 'sync', ref: { type, id: 4 } });
  });

  it("users.update re-syncs the owner's actions", () => {
    expect(classifyEvent(msg('User', 'users.update', 77))).toEqual({ kind: 'owner', userId: 77 });
  });

  it.each([
    ['News', 'news.create'],
    ['Order', 'orders.update'],
    ['Order', 'sign_ups.create'],
    ['DonationForm', 'donation_forms.publish'],
    ['DonationForm', 'donation_forms.create'],
    ['CollectionBox', 'collection_boxes.create'],
    ['Group', 'groups.create'],
    ['UrgentCall', 'urgent_calls.create'],
    ['Project', 'questions.update'],
    ['Donation', 'donations.delete'],
  ])('%s %s is ignored with a reason', (objectType, eventType) => {
    const intent = classifyEvent(msg(objectType, eventType));
    expect(intent.kind).toBe('ignored');
    expect(intent.kind === 'ignored' && intent.reason.length).toBeGreaterThan(0);
  });

  it('ignores applications outside the configured list, case-insensitively', () => {
    const options = { applications: ['kentaa'] };
    expect(classifyEvent(msg('Donation', 'donations.update', 4, 'Kentaa'), options).kind).toBe('sync');
    expect(classifyEvent(msg('Donation', 'donations.update', 4, 'Collection'), options)).toEqual({ kind: 'ignored', reason: 'application Collection is not synced' });
  });

  it('SVC_SITE_ID: events of another site are ignored with the reason; events of the site, or without site_id, pass', () => {
    const options = { siteId: 6 };
    expect(classifyEvent({ ...msg('Donation', 'donations.update'), siteId: 7 }, options)).toEqual({ kind: 'ignored', reason: "site 7 is not this mirror's site (SVC_SITE_ID 6)" });
    expect(classifyEvent({ ...msg('Donation', 'donations.update'), siteId: 6 }, options).kind).toBe('sync');
    expect(classifyEvent(msg('Donation', 'donations.update'), options).kind).toBe('sync');
  });
});

describe('names of Object.prototype in a webhook', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('object_type %s is an unmirrored type, never a prototype member', (objectType) => {
    expect(classifyEvent(msg(objectType, 'donations.update'))).toEqual({ kind: 'ignored', reason: `object type ${objectType} is not mirrored` });
  });

  it('form fields named after prototype members are read as plain fields', () => {
    const r = parseWebhookBody(FORM, '__proto__=x&constructor=y&object_type=Donation&object_id=3&event_type=donations.update&application=K');
    expect(r).toEqual({ ok: true, message: { objectType: 'Donation', objectId: 3, eventType: 'donations.update', application: 'K' } });
  });

  it('a JSON field named "reason" is a field, not a parse failure', () => {
    const r = parseWebhookBody(JSON_TYPE, JSON.stringify({ reason: 'forged', object_type: 'Donation', object_id: 3, event_type: 'donations.update', application: 'K' }));
    expect(r.ok).toBe(true);
  });
});
