/** parseObjectType: the object type names of the command line, the API and the webhooks. */
import { describe, expect, it } from '@jest/globals';
import { LEVEL, SCHEMA } from '../../src/mapping/schema.js';
import { OBJECT_TYPES, parseObjectType } from '../../src/model/objects.js';

describe('parseObjectType', () => {
  it.each([
    ['donation', 'donation'],
    ['donations', 'donation'],
    ['Donation', 'donation'],
    ['newsletter_subscription', 'newsletter_subscription'],
    ['newsletter-subscriptions', 'newsletter_subscription'],
    ['NewsletterSubscription', 'newsletter_subscription'],
    ['newsletter_subscriptions', 'newsletter_subscription'],
    ['companies', 'company'],
    ['Company', 'company'],
    ['teams', 'team'],
    ['team', 'team'],
    ['segments', 'segment'],
    ['projects', 'project'],
    ['actions', 'action'],
    ['  Actions ', 'action'],
  ])('accepts %j as %s', (input, expected) => {
    expect(parseObjectType(input)).toBe(expected);
  });

  it.each([
    '',
    'donor',
    'users',
    'user',
    'orders',
    'question',
    'questions',
    'teamss',
    'segmentation',
    'newsletter',
    'subscription',
    'donation_forms',
    'constructor',
    'constructors',
    'toString',
    '__proto__',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
  ])('rejects %j', (input) => {
    expect(parseObjectType(input)).toBeUndefined();
  });
});

describe('LEVEL', () => {
  it('is derived from the parent rules: segment, project, team = company = subscription, action, question = donation', () => {
    expect(OBJECT_TYPES.map((t) => LEVEL[t])).toEqual([0, 1, 2, 2, 3, 4, 4, 2]);
  });

  it('puts every parent above its children, and the write order lists parents first', () => {
    for (const type of OBJECT_TYPES) {
      for (const rule of SCHEMA[type].parents) {
        expect(LEVEL[rule.type]).toBeLessThan(LEVEL[type]);
        expect(OBJECT_TYPES.indexOf(rule.type)).toBeLessThan(OBJECT_TYPES.indexOf(type));
      }
    }
  });
});
