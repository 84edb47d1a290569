/**
 * The engine processor over real HTTP: the fake platform and the Salesforce emulator from
 * fixtures/stack.ts, the real engine, and the outcomes the worker gets back per ref.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Settings } from '../../src/config/settings.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import type { ObjectRef } from '../../src/model/objects.js';
import { createPlatformSource } from '../../src/platform/source.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import type { ProcessOutcome } from '../../src/webhook/worker/worker.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { settingsOf as resolveSettings } from '../../src/config/load.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keysRead } from '../../src/mapping/keysRead.js';
import { profileFileFor } from '../../src/sync/compose.js';
import { writeProfile } from '../../src/sync/run/profileFile.js';

let stack: Stack;
let settings: Settings;

/** The stack's settings as the CLI resolves them, with a short timeout and, optionally, another API key. */
function settingsOf(s: Stack, apiKey = s.env.SVC_API_KEY as string): Settings {
  const resolved = resolveSettings({ ...s.env, SVC_API_KEY: apiKey, SVC_TIMEOUT_MS: '5000' });
  return { ...resolved, webhook: { ...resolved.webhook, queue: { kind: 'sqlite', path: ':memory:' }, settleMs: 0 } };
}

/** Donations the mapping writes (paid-like status, non-zero total). */
const syncable = (d: ApiDonation): boolean => ['paid', 'refunded', 'chargedback'].includes(String(d.payment_status)) && Number(d.total_amount) !== 0;

const byRef = (outcomes: ProcessOutcome[]): Map<string, ProcessOutcome> => new Map(outcomes.map((o) => [`${o.ref.type}:${o.ref.id}`, o]));

beforeAll(async () => {
  stack = await startStack({ site: { seed: 7, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 120, newsletterSubscriptions: 10 } });
  settings = settingsOf(stack);
});

afterAll(async () => {
  await stack.close();
});

describe('createEngineProcessor', () => {
  it('syncs a batch of donations with their missing parents and reports each ref done', async () => {
    const donations = stack.platform.site.donation.filter(syncable).slice(0, 25);
    const refs: ObjectRef[] = donations.map((d) => ({ type: 'donation', id: d.id }));
    const processor = createEngineProcessor(composeConnection(settings));

    const result = await processor.process(refs);

    expect(result.outcomes).toHaveLength(refs.length);
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true);
    for (const d of donations) {
      const stored = stack.salesforce.get('Svc_Donation__c', `Donation_${d.id}`);
      expect(stored).toBeDefined();
      // Parents were written first, so the direct lookup of each donation is set.
      expect(stored?.Svc_Segment__c).toEqual(expect.any(String));
    }
    // 25 donations are fetched by list scan or by id, never one request per donation and parent.
    expect(stack.platform.requests.byIdTotal).toBeLessThan(refs.length);
  });

  it('fetches a donation re-sent in a later batch again, and writes the change', async () => {
    const d = stack.platform.site.donation.filter(syncable)[0] as ApiDonation;
    const processor = createEngineProcessor(composeConnection(settings));
    expect((await processor.process([{ type: 'donation', id: d.id }])).outcomes[0]?.status).toBe('done');

    stack.platform.update('donation', d.id, { message: 'changed after the first batch' });
    const again = await processor.process([{ type: 'donation', id: d.id }]);

    expect(again.outcomes).toEqual([{ ref: { type: 'donation', id: d.id }, status: 'done' }]);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${d.id}`)?.Message__c).toBe('changed after the first batch');
  });

  it('reports a ref the platform answers 404 for as skipped, next to the others done', async () => {
    const d = stack.platform.site.donation.filter(syncable)[1] as ApiDonation;
    const processor = createEngineProcessor(composeConnection(settings));

    const result = await processor.process([
      { type: 'donation', id: d.id },
      { type: 'donation', id: 99_999_999 },
    ]);

    const outcomes = byRef(result.outcomes);
    expect(outcomes.get(`donation:${d.id}`)?.status).toBe('done');
    expect(outcomes.get('donation:99999999')).toEqual({ ref: { type: 'donation', id: 99_999_999 }, status: 'skipped', reason: expect.stringMatching(/not found/) });
  });

  it('reports a record the mapping filters out as skipped with its reason', async () => {
    const pending = stack.platform.site.donation.find((d) => d.payment_status === 'pending') as ApiDonation;
    const result = await createEngineProcessor(composeConnection(settings)).process([{ type: 'donation', id: pending.id }]);
    expect(result.outcomes).toEqual([{ ref: { type: 'donation', id: pending.id }, status: 'skipped', reason: expect.stringMatching(/payment status/) }]);
  });

  it('returns the owners of the actions it synced, for users.update', async () => {
    const actions = stack.platform.site.action.slice(0, 4);
    // The factory form: the caller builds the deps (a fresh source per batch).
    const sink = await SalesforceSink.connect(settings.salesforce);
    const processor = createEngineProcessor({ ...composeConnection(settings), deps: () => ({ source: createPlatformSource(settings.platform), sink }) });

    const result = await processor.process(actions.map((a) => ({ type: 'action', id: a.id })));

    expect(result.outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(result.owners).toEqual(expect.arrayContaining(actions.map((a) => ({ userId: a.owner?.id, actionId: a.id }))));
    for (const a of actions) expect(stack.salesforce.get('Svc_Action__c', `Action_${a.id}`)).toBeDefined();
  });

  it('starts from the platform profile sync kept in its directory: no request spent learning list shapes again', async () => {
    const cwd = process.cwd();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-processor-'));
    const since = new Date(Date.now() - 1000).toISOString();
    const subscriptions = stack.platform.site.newsletter_subscription.slice(0, 3);
    for (const s of subscriptions) stack.platform.update('newsletter_subscription', s.id, { first_name: `Profiled ${s.id}` });
    const refs: ObjectRef[] = subscriptions.map((s) => ({ type: 'newsletter_subscription', id: s.id }));
    const byIdRequests = (): number => stack.platform.requests.byId['newsletter-subscriptions'] ?? 0;
    process.chdir(dir);
    try {
      // No profile here: the filtered page carries every key the mapping reads (the link in whichever
      // form the platform sends it settles the link), so its records are taken as listed.
      stack.platform.resetCounts();
      expect((await createEngineProcessor(composeConnection(settings)).process(refs, { changedSince: since })).outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done']);
      expect(byIdRequests()).toBe(0);
      // What a sync learned and kept beside its state (.svc-sync/platform-profile.json): a claim
      // checked within the last day is not confirmed again.
      const learner = createPlatformSource(settings.platform, {}, undefined, { keysRead });
      for await (const page of learner.scan('newsletter_subscription', {})) void page;
      writeProfile(profileFileFor(undefined, '.svc-sync'), learner.profile());
      stack.platform.resetCounts();
      expect((await createEngineProcessor(composeConnection(settings)).process(refs, { changedSince: since })).outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done']);
      expect(byIdRequests()).toBe(0);
    } finally {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the whole batch on a fatal error (wrong API key), so the events stay queued', async () => {
    const d = stack.platform.site.donation.filter(syncable)[2] as ApiDonation;
    const processor = createEngineProcessor(composeConnection(settingsOf(stack, 'wrong-key')));

    const result = await processor.process([
      { type: 'donation', id: d.id },
      { type: 'donation', id: 99_999_998 },
    ]);

    expect(result.outcomes).toHaveLength(2);
    for (const o of result.outcomes) {
      expect(o.status).toBe('failed');
      expect(o.reason).toMatch(/401|403/);
    }
  });

  it('fails the whole batch when Salesforce refuses the session (auth error)', async () => {
    const broken: Settings = { ...settings, salesforce: { ...settings.salesforce, login: { method: 'access_token', session: { instanceUrl: stack.salesforce.url, accessToken: 'expired-token' } } } };
    const d = stack.platform.site.donation.filter(syncable)[3] as ApiDonation;
    const result = await createEngineProcessor(composeConnection(broken)).process([{ type: 'donation', id: d.id }]);
    expect(result.outcomes).toEqual([{ ref: { type: 'donation', id: d.id }, status: 'failed', reason: expect.stringMatching(/session/i) }]);
  });
});
