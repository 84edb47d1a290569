/**
 * What a webhook event asks the worker to do (SPEC 6.2/6.3), decided once, at receipt, and
 * stored with the event so the worker never re-interprets raw messages.
 */
import { parseObjectType, type ObjectRef } from '../../model/objects.js';
import type { WebhookMessage } from './webhookMessage.js';

export type EventIntent =
  /** Fetch and write this object (create, update, confirm, move, counters, sign-ups, questions). */
  | { kind: 'sync'; ref: ObjectRef }
  /** users.update: re-sync the actions this user is known to own (action_owners table). */
  | { kind: 'owner'; userId: number }
  /** Nothing to mirror: answered 200 and recorded so the platform does not retry it. */
  | { kind: 'ignored'; reason: string };

export interface ClassifyOptions {
  /**
   * Application names (case-insensitive) whose events are synced; others are recorded ignored.
   * Undefined accepts every application. Set it when the collection platform posts to the same
   * URL: its donation ids are not ids of the fundraising API this tool reads.
   */
  applications?: readonly string[] | undefined;
  /** SVC_SITE_ID: events that name another site are recorded ignored (events without site_id pass). */
  siteId?: number | undefined;
}

/** Every event type SPEC.md 6.2 and 6.3 name (both applications): the fixed set a metric label may take. */
const SPEC_EVENT_TYPES: ReadonlySet<string> = new Set([
  'actions.create',
  'actions.move',
  'actions.update',
  'companies.create',
  'companies.update',
  'counters.update',
  'donations.move',
  'donations.update',
  'donation_forms.create',
  'donation_forms.publish',
  'donation_forms.update',
  'news.create',
  'news.update',
  'newsletter_subscriptions.update',
  'orders.update',
  'projects.confirm',
  'projects.create',
  'projects.move',
  'projects.update',
  'questions.update',
  'segments.create',
  'segments.update',
  'sign_ups.create',
  'teams.create',
  'teams.move',
  'teams.update',
  'users.update',
  'collection_boxes.create',
  'groups.create',
  'urgent_calls.create',
]);

/** An event type as a metric label: one of the spec's (lower case), else `other`, so senders cannot grow the label set. */
export const eventTypeLabel = (eventType: string): string => {
  const t = eventType.trim().toLowerCase();
  return SPEC_EVENT_TYPES.has(t) ? t : 'other';
};

/** Verbs that mean "the object changed: fetch it again". `move` too: the engine re-links descendants. */
const SYNC_VERBS = new Set(['create', 'update', 'confirm', 'move']);

export function classifyEvent(message: WebhookMessage, options: ClassifyOptions = {}): EventIntent {
  const { applications, siteId } = options;
  if (siteId !== undefined && message.siteId !== undefined && message.siteId !== siteId) {
    return { kind: 'ignored', reason: `site ${message.siteId} is not this mirror's site (SVC_SITE_ID ${siteId})` };
  }
  if (applications !== undefined) {
    const app = message.application.toLowerCase();
    if (!applications.some((a) => a.toLowerCase() === app)) {
      return { kind: 'ignored', reason: `application ${message.application} is not synced` };
    }
  }

  const event = message.eventType.trim().toLowerCase();
  const dot = event.lastIndexOf('.');
  const resource = dot > 0 ? event.slice(0, dot) : event;
  const verb = dot > 0 ? event.slice(dot + 1) : '';

  if (resource === 'users') {
    if (verb === 'update') return { kind: 'owner', userId: message.objectId };
    return { kind: 'ignored', reason: `event ${message.eventType} has no effect on mirrored objects` };
  }

  const type = parseObjectType(message.objectType);

  if (resource === 'questions') {
    // Assumption: object_type/object_id name the object the questions belong to (SPEC 6.2:
    // "extra questions for an object"). Only action questions are mirrored (SPEC 2.7), and they
    // are written from the action's response, so the action is re-synced.
    if (verb !== 'update') return { kind: 'ignored', reason: `event ${message.eventType} is not handled` };
    if (type === 'action') return { kind: 'sync', ref: { type, id: message.objectId } };
    return { kind: 'ignored', reason: `questions of ${message.objectType} are not mirrored` };
  }

  if (!SYNC_VERBS.has(verb)) {
    return { kind: 'ignored', reason: `event ${message.eventType} is not handled` };
  }
  // counters.update and sign_ups.create name a different resource than the object, so the object
  // always comes from object_type; news, orders, donation forms and the collection platform's own
  // objects (collection boxes, groups, urgent calls) have no mirror and fall out here.
  if (type === undefined) {
    return { kind: 'ignored', reason: `object type ${message.objectType} is not mirrored` };
  }
  return { kind: 'sync', ref: { type, id: message.objectId } };
}
