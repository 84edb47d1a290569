/** What memory-nodes.ts needs around its runs: a sample of the mirror checked, and serve's queue filled and watched. */
import { mapRecord } from '../src/mapping/map.js';
import { prng } from '../fixtures/platform/site.js';
import type { Stack } from '../fixtures/stack.js';
import { SCHEMA } from '../src/mapping/schema.js';
import { classifyEvent } from '../src/sync/webhookEvents.js';
import type { WebhookMessage } from '../src/sync/webhookMessage.js';
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

/**
 * A queue file filled with `count` donations.update events, one per donation of the site (each
 * changed on the platform first, so serve writes), in commits of 500 as bursts of requests make
 * them. Returns the number queued.
 */
export async function fillQueue(stack: Stack, file: string, count: number): Promise<number> {
  const q = await openQueue({ kind: 'sqlite', path: file }, { create: true });
  const donations = stack.platform.site.donation.slice(0, count);
  try {
    for (let i = 0; i < donations.length; i += 500) {
      const chunk = donations.slice(i, i + 500).map((d) => {
        stack.platform.update('donation', d.id, { last_name: `${String(d.last_name ?? '')} (queued)` });
        const raw = JSON.stringify({ object_type: 'Donation', object_id: d.id, event_type: 'donations.update', application: 'Kentaa' });
        const m: WebhookMessage = { objectType: 'Donation', objectId: d.id, eventType: 'donations.update', application: 'Kentaa' };
        return { message: m, intent: classifyEvent(m), raw };
      });
      await q.enqueueMany(chunk);
    }
  } finally {
    await q.close();
  }
  return donations.length;
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
