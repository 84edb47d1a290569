/** What memory-nodes.ts needs around its runs: a sample of the mirror checked, and serve's queue filled and watched. */
import { mapRecord } from '../src/mapping/map.js';
import { prng } from '../fixtures/platform/site.js';
import type { FakeRequestCounts } from '../fixtures/platform/server.js';
import type { EmulatorCalls } from '../fixtures/salesforce/emulator.js';
import type { Stack } from '../fixtures/stack.js';
import { SCHEMA } from '../src/mapping/schema.js';
import { classifyEvent } from '../src/sync/input/webhookEvents.js';
import type { WebhookMessage } from '../src/sync/input/webhookMessage.js';
import { openQueue } from '../src/webhook/queue/open.js';
import { KEY_FIELD } from '../src/model/refs.js';

/** Equal as Salesforce stores it: numbers by value, date-times by instant, everything else as text. */
function same(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number') return Number(actual) === expected;
  if (typeof expected === 'string' && /^\d{4}-\d\d-\d\dT/.test(expected)) return Date.parse(expected) === Date.parse(String(actual));
  return String(expected ?? '') === String(actual ?? '');
}

/**
 * `count` donations picked at random (seeded), each mapped as the engine maps it, compared field
 * by field with the row Salesforce holds (lookups and the target's reference left out: they need
 * the parents). "200/200 exact", or how many differ and the first difference.
 */
export async function checkSample(stack: Stack, count: number): Promise<string> {
  const donations = stack.platform.site.donation;
  const rnd = prng(7);
  const wanted = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < count * 20 && wanted.size < count; i++) {
    const d = donations[Math.floor(rnd() * donations.length)];
    if (d === undefined) continue;
    const mapped = mapRecord('donation', d);
    if (mapped.kind === 'record') wanted.set(mapped.key, mapped.fields);
  }
  const rows = new Map<string, Record<string, unknown>>();
  for (const row of stack.salesforce.records(SCHEMA.donation.apiName)) {
    const key = String(row[KEY_FIELD]);
    if (wanted.has(key)) rows.set(key, row);
  }
  let differ = 0;
  let first = '';
  for (const [key, fields] of wanted) {
    const row = rows.get(key);
    const wrong = row === undefined ? 'missing' : Object.entries(fields).find(([f, v]) => f !== 'ExternalReference__c' && !same(v, row[f]))?.[0];
    if (wrong === undefined) continue;
    differ++;
    first ||= `${key} ${wrong}`;
  }
  return differ === 0 ? `${wanted.size}/${wanted.size} exact` : `${differ}/${wanted.size} differ (${first})`;
}

/** What the queue was filled with: events, the distinct records they name, and those the platform no longer has. */
export interface QueuedShape {
  events: number;
  records: number;
  gone: number;
  byKind: Record<string, number>;
}

/** The share of each kind of event, in the order drawn (the rest: repeats of a record announced before). */
const MIX: Array<{ type: 'donation' | 'action' | 'newsletter_subscription'; objectType: string; event: string; field: string; share: number }> = [
  { type: 'donation', objectType: 'Donation', event: 'donations.update', field: 'last_name', share: 0.75 },
  { type: 'action', objectType: 'Action', event: 'actions.update', field: 'title', share: 0.08 },
  { type: 'newsletter_subscription', objectType: 'NewsletterSubscription', event: 'newsletter_subscriptions.update', field: 'first_name', share: 0.05 },
];
/** Of the donation events: the share whose donation is deleted on the platform after its event (a dangling reference: 404). */
const GONE_SHARE = 0.02;

/**
 * A queue file filled with `count` events of the shape a site sends: donations.update for
 * donations in order (75 %), actions.update and newsletter_subscriptions.update for records
 * picked at random (8 %, 5 %), and the rest repeats of a record announced before; each record is
 * changed on the platform before its event, so serve writes it, and 2 % of the donations
 * announced are deleted on the platform afterwards (their events name a record that is gone; the
 * site's own dangling parents, `siteFor`'s share, come on top). Events are stored one at a time,
 * each in its own commit with its own receipt time, as the receiver stores a delivery.
 */
export async function fillQueue(stack: Stack, file: string, count: number): Promise<QueuedShape> {
  const q = await openQueue({ kind: 'sqlite', path: file }, { create: true });
  const rnd = prng(49);
  const site = stack.platform.site;
  const nextDonation = { at: 0 };
  const announced: Array<{ kind: (typeof MIX)[number]; id: number }> = [];
  const distinct = new Set<string>();
  const byKind: Record<string, number> = {};
  const gone: number[] = [];
  const startAt = Date.now() - count * 10;
  try {
    for (let i = 0; i < count; i++) {
      let draw = rnd();
      let pick: { kind: (typeof MIX)[number]; id: number } | undefined;
      for (const kind of MIX) {
        if (draw >= kind.share) {
          draw -= kind.share;
          continue;
        }
        const list = site[kind.type] as Array<{ id: number }>;
        const record = kind.type === 'donation' ? list[nextDonation.at++ % list.length] : list[Math.floor(rnd() * list.length)];
        if (record !== undefined) pick = { kind, id: record.id };
        break;
      }
      pick ??= announced[Math.floor(rnd() * announced.length)] ?? { kind: MIX[0]!, id: site.donation[0]!.id };
      announced.push(pick);
      const key = `${pick.kind.type}:${pick.id}`;
      const label = `${pick.kind.event}${distinct.has(key) ? ' (repeat)' : ''}`;
      distinct.add(key);
      byKind[label] = (byKind[label] ?? 0) + 1;
      stack.platform.update(pick.kind.type, pick.id, { [pick.kind.field]: `queued ${i}` });
      if (pick.kind.type === 'donation' && rnd() < GONE_SHARE) gone.push(pick.id);
      const m: WebhookMessage = { objectType: pick.kind.objectType, objectId: pick.id, eventType: pick.kind.event, application: 'Kentaa' };
      const raw = JSON.stringify({ object_type: m.objectType, object_id: m.objectId, event_type: m.eventType, application: m.application });
      await q.enqueueMany([{ message: m, intent: classifyEvent(m), raw }], startAt + i * 10);
    }
  } finally {
    await q.close();
  }
  for (const id of gone) stack.platform.remove('donation', id);
  return { events: count, records: distinct.size, gone: gone.length, byKind };
}

/** Resolves once `count` events of the queue are finished (done, skipped or failed); polls its counts, bounded. */
export async function waitDrained(file: string, count: number, timeoutMs = 3_600_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    let finished = 0;
    try {
      const q = await openQueue({ kind: 'sqlite', path: file }, { create: false, access: 'read' });
      try {
        const c = await q.counts();
        finished = c.done + c.skipped + c.failed;
      } finally {
        await q.close();
      }
    } catch {
      // Busy for a moment (serve commits): asked again.
    }
    if (finished >= count) return;
    if (Date.now() - started > timeoutMs) throw new Error(`serve finished ${finished} of ${count} events in ${timeoutMs / 1000} s`);
  }
}

/**
 * serve's drain in one line: events/s, the platform requests and Salesforce calls it made (the
 * servers' own counts, start-up checks included), beside the naive figure, one sync per event:
 * a GET by id and an upsert for each (arithmetic, not run: 100,000 syncs would take hours).
 */
export function drainLine(shape: QueuedShape, fillSeconds: number, wallSeconds: number, platform: FakeRequestCounts, salesforce: EmulatorCalls): string {
  const per = (n: number): string => (n / shape.events).toFixed(4);
  const kinds = Object.entries(shape.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `serve drain: ${shape.events} events (${kinds}) for ${shape.records} records, ${shape.gone} of them deleted on the platform after their event; queued one commit each in ${fillSeconds.toFixed(0)} s`,
    `  drained in ${wallSeconds.toFixed(1)} s (serve's start included): ${(shape.events / wallSeconds).toFixed(0)} events/s`,
    `  platform requests ${platform.total} (list ${platform.listTotal}, by id ${platform.byIdTotal}): ${per(platform.total)} an event; naive ${shape.events} (1.0000)`,
    `  Salesforce calls ${salesforce.total} (query ${salesforce.query}, collections ${salesforce.collections}, bulk ${salesforce.bulk}, auth ${salesforce.auth}): ${per(salesforce.total)} an event; naive ${shape.events} upserts (1.0000)`,
  ].join('\n');
}
