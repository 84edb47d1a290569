/** The metrics label of an ignored webhook: a fixed word for every reason the receiver gives, never the reason's own values. */
import { expect, it } from '@jest/globals';
import { classifyEvent } from '../../src/sync/input/webhookEvents.js';
import type { WebhookMessage } from '../../src/sync/input/webhookMessage.js';
import { ignoreKind } from '../../src/webhook/receiver/ignoreReason.js';

const message = (over: Partial<WebhookMessage>): WebhookMessage =>
  ({ objectType: 'Donation', objectId: 5, eventType: 'donations.update', application: 'Kentaa', siteId: 6, ...over }) as WebhookMessage;
const reasonOf = (m: WebhookMessage, opts: Parameters<typeof classifyEvent>[1] = {}): string => {
  const intent = classifyEvent(m, opts);
  if (intent.kind !== 'ignored') throw new Error(`not ignored: ${intent.kind}`);
  return intent.reason;
};

it.each([
  ['another site', reasonOf(message({ siteId: 9 }), { siteId: 6 }), 'other_site'],
  ['another application', reasonOf(message({ application: 'Collect' }), { applications: ['Kentaa'] }), 'application'],
  ['an event type not handled', reasonOf(message({ eventType: 'donations.destroy' })), 'event_type'],
  ['a users event with no effect', reasonOf(message({ eventType: 'users.create' })), 'event_type'],
  ['an object type not mirrored', reasonOf(message({ objectType: 'CollectionBox' })), 'object_type'],
  ['questions of an object not mirrored', reasonOf(message({ eventType: 'questions.update', objectType: 'Donation' })), 'object_type'],
  ['no site_id under several connections', 'no site_id and no connection named in the path: cannot tell which connection it is (sites 6 (north), 7 (south))', 'no_site_id'],
  ["a site no connection's", "site 9 is no connection's site (sites 6 (north), 7 (south))", 'other_site'],
  ["another connection's site", "site 7 is not connection north's site (SVC_SITE_ID 6)", 'other_site'],
  ['anything else', 'a reason of a later release', 'other'],
])('%s', (_what, reason, kind) => {
  expect(ignoreKind(reason)).toBe(kind);
});
