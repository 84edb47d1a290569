/**
 * Owners kept: an action's owner fields Salesforce holds under the same owner (its email) stand
 * in `serve` until a users.update comes, and `serve` remembers what it wrote, so a batch with an
 * action's change need not read the user: a burst one event at a time costs the filtered list
 * pages of the changed collections and nothing else. Each case goes through the
 * receiver, the queue and the worker with the real engine, counts the fake platform's requests
 * (it serves one API key) and ends with the whole mirror compared against a full sync (a dry run
 * that would write nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import type { Settings } from '../../src/config/settings.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import type { ApiAction, ApiUser } from '../../src/model/apiRecords.js';
import type { SyncableType } from '../../src/model/objects.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { OwnerIds, ownersFileIn } from '../../src/sync/mirror/ownerIds.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { startReceiver, type Receiver } from '../../src/webhook/receiver/server.js';
import { startWorker, type Worker } from '../../src/webhook/worker/worker.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { expectMirrorExact as mirrorExact, fullSync as fullSyncOf } from '../support/mirror.js';
import { postJson, tempQueue, type TempDir } from './helpers.js';

let stack: Stack;
let settings: Settings;
let dir: TempDir;
let queue: SqliteQueue;
let worker: Worker;
let receiver: Receiver;

const EVENT: Record<SyncableType | 'user', { objectType: string; event: string }> = {
  segment: { objectType: 'Segment', event: 'segments.update' },
  project: { objectType: 'Project', event: 'projects.update' },
  team: { objectType: 'Team', event: 'teams.update' },
  company: { objectType: 'Company', event: 'companies.update' },
  action: { objectType: 'Action', event: 'actions.update' },
  donation: { objectType: 'Donation', event: 'donations.update' },
  newsletter_subscription: { objectType: 'NewsletterSubscription', event: 'newsletter_subscriptions.update' },
  user: { objectType: 'User', event: 'users.update' },
};

const fullSync = (dryRun: boolean): Promise<SyncEngine> => fullSyncOf(settings, dryRun);
const expectMirrorExact = (): Promise<void> => mirrorExact(settings);

/** Events posted one at a time (each waiting for its answer), then one worker batch; the platform requests it made, by collection. */
async function deliver(events: Array<{ type: SyncableType | 'user'; id: number }>): Promise<{ requests: number; collections: string[]; done: number; skipped: number; failed: number }> {
  stack.platform.resetCounts();
  for (const e of events) {
    const body = { object_type: EVENT[e.type].objectType, object_id: e.id, event_type: EVENT[e.type].event, application: 'Kentaa', site_id: 6 };
    expect((await postJson(`${receiver.url}/webhooks`, body)).status).toBe(200);
  }
  const batch = await worker.runOnce();
  if (batch === undefined) throw new Error('no batch ran');
  expect(await worker.runOnce()).toBeUndefined();
  return {
    requests: stack.platform.requests.total,
    collections: stack.platform.requests.log.map((e) => `${e.kind} ${String(e.collection)}`),
    done: batch.done,
    skipped: batch.skipped,
    failed: batch.failed,
  };
}

const paidDonations = (): number[] =>
  stack.platform.site.donation.filter((d) => ['paid', 'refunded', 'chargedback'].includes(String(d.payment_status)) && Number(d.total_amount) !== 0).map((d) => d.id);

const sf = (object: string, key: string): Record<string, unknown> => {
  const r = stack.salesforce.get(object, key);
  if (!r) throw new Error(`${key} is not in Salesforce`);
  return r;
};

const userOf = (action: ApiAction): ApiUser => {
  const user = stack.platform.site.user.find((u) => u.id === action.owner?.id);
  if (!user) throw new Error(`action ${action.id} has no owner on the platform`);
  return user;
};

const ownerLink = (u: ApiUser): ApiAction['owner'] => ({ id: u.id, first_name: u.first_name, infix: u.infix, last_name: u.last_name, email: u.email });

/** serve's options for a connection whose state folder is the test's: its profile and owners file there. */
const inStateDir = (): { platform: { profileFile: string } } => ({ platform: { profileFile: path.join(dir.dir, 'platform-profile.json') } });

/** The burst's records: donations, actions and subscriptions the org mirrors. */
let burst: Array<{ type: SyncableType; id: number; field: string }>;
/** Actions the warm-up batch syncs: not in the burst, so the burst starts with no owner kept. */
let warmActions: ApiAction[];

beforeAll(async () => {
  stack = await startStack({ site: { seed: 11, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 200, newsletterSubscriptions: 16 } });
  dir = tempQueue();
  settings = settingsOf(loadRaw({ env: { ...stack.env, SVC_TIMEOUT_MS: '5000' }, cwd: dir.dir }));
  // The warm org: a full sync has mirrored the site, and recorded whose fields each action holds (as `sync` does).
  const synced = await fullSync(false);
  expect(synced.report.failed).toBe(0);
  new OwnerIds(ownersFileIn(dir.dir)).record(synced).save();
  const site = stack.platform.site;
  warmActions = site.action.slice(0, 3);
  burst = [
    ...paidDonations()
      .slice(0, 60)
      .map((id) => ({ type: 'donation' as const, id, field: 'message' })),
    ...site.action.slice(3, 13).map((a) => ({ type: 'action' as const, id: a.id, field: 'title' })),
    ...site.newsletter_subscription.slice(0, 10).map((s) => ({ type: 'newsletter_subscription' as const, id: s.id, field: 'first_name' })),
  ];
  queue = new SqliteQueue(dir.db);
  worker = startWorker({ queue, processor: createEngineProcessor(composeConnection(settings, inStateDir())), loop: false, settleMs: 0, log: () => undefined });
  receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
  // serve has been running: a batch has read unfiltered list pages (their shapes are known) and
  // some owners, none of the burst's.
  const warm = await createEngineProcessor(composeConnection(settings, inStateDir())).process([
    ...warmActions.map((a) => ({ type: 'action' as const, id: a.id })),
    ...paidDonations()
      .slice(-3)
      .map((id) => ({ type: 'donation' as const, id })),
    ...site.newsletter_subscription.slice(-3).map((s) => ({ type: 'newsletter_subscription' as const, id: s.id })),
  ]);
  expect(warm.outcomes.every((o) => o.status === 'done')).toBe(true);
});

afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
  await queue?.close();
  await stack?.close();
  dir?.cleanup();
});

describe('a burst one event at a time', () => {
  it('reads no owner: actions a sync wrote and the same records changed again cost the three filtered list pages, <= 0.05 requests per event', async () => {
    const events = [...burst, ...burst.slice(0, 27)];
    for (const round of [1, 2]) {
      for (const e of burst) stack.platform.update(e.type, e.id, { [e.field]: `round ${round} ${e.id}` });
      const queried = stack.salesforce.queries().length;
      const result = await deliver(events);
      expect(result).toMatchObject({ done: events.length, failed: 0 });
      // The burst's actions are read once in Salesforce: by the owner check, whose read the
      // write's diff reuses. (Another query reads the donations' parent actions, to link them.)
      const burstAction = `'Action_${burst.find((e) => e.type === 'action')?.id ?? 0}'`;
      expect(
        stack.salesforce
          .queries()
          .slice(queried)
          .filter((q) => /\bFROM Svc_Action__c\b/.test(q) && q.includes(burstAction)),
      ).toHaveLength(1);
      // Round 1 meets actions the full sync wrote: Salesforce holds them under the same owner, so
      // no user is read (this receiver still learns the action list's shape, by id).
      expect(result.collections.filter((c) => c.endsWith(' users'))).toEqual([]);
      if (round === 2) {
        expect(result.collections.sort()).toEqual(['list actions', 'list donations', 'list newsletter-subscriptions']);
        expect(result.requests / events.length).toBeLessThanOrEqual(0.05);
      }
      for (const e of burst) {
        const object = { donation: 'Svc_Donation__c', action: 'Svc_Action__c', newsletter_subscription: 'Svc_NewsletterSubscription__c' }[e.type as string] as string;
        const key = `${{ donation: 'Donation', action: 'Action', newsletter_subscription: 'NewsletterSubscription' }[e.type as string] as string}_${e.id}`;
        const field = { message: 'Message__c', title: 'Title__c', first_name: 'FirstName__c' }[e.field] as string;
        expect(sf(object, key)[field]).toBe(`round ${round} ${e.id}`);
      }
    }
    await expectMirrorExact();
  });

  it("reads the user again when the user's own change is in the same batch", async () => {
    const action = stack.platform.site.action[5] as ApiAction;
    const user = userOf(action);
    stack.platform.update('user', user.id, { city: 'Changed in the batch', phone: '+31 20 555 0101' });
    stack.platform.update('action', action.id, { title: 'with its owner' });

    const result = await deliver([
      { type: 'action', id: action.id },
      { type: 'user', id: user.id },
    ]);

    expect(result).toMatchObject({ failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'with its owner', City__c: 'Changed in the batch', Phone__c: '+31 20 555 0101' });
    await expectMirrorExact();
  });

  it('reads the user when the mirror lacks the action it wrote (deleted in Salesforce)', async () => {
    const site = stack.platform.site;
    const action = site.action[6] as ApiAction;
    const user = userOf(action);
    const key = `Action_${action.id}`;
    // The deletion clears the lookups of its donations: their own events come with the action's.
    expect(stack.salesforce.deleteRecord('Svc_Action__c', key)).toBe(true);
    stack.platform.update('action', action.id, { title: 'written again' });
    const donations = site.donation.filter((d) => d.action_id === action.id).map((d) => ({ type: 'donation' as const, id: d.id }));

    const result = await deliver([{ type: 'action', id: action.id }, ...donations]);

    expect(result).toMatchObject({ failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', key)).toMatchObject({ Title__c: 'written again', Email__c: user.email });
    await expectMirrorExact();
  });

  it("reads the user when another run wrote another owner's fields since", async () => {
    const site = stack.platform.site;
    // An action of the burst whose owner has a city (a blank would not clear the other's).
    const action = site.action.slice(7, 13).find((a) => typeof userOf(a).city === 'string') as ApiAction;
    const owner = userOf(action);
    const other = site.user.find((u) => u.id !== owner.id && u.email !== owner.email && typeof u.city === 'string' && u.city !== owner.city);
    if (!other) throw new Error('no other user');
    // The action passes to another user and a sync (not serve) writes it; then it comes back.
    stack.platform.update('action', action.id, { owner: ownerLink(other) });
    const sync = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), { dryRun: false, force: false, strictParents: false, batchSize: 500 });
    await sync.syncRefs([{ type: 'action', id: action.id }]);
    expect(sf('Svc_Action__c', `Action_${action.id}`).City__c).toBe(other.city);
    stack.platform.update('action', action.id, { owner: ownerLink(owner), title: 'back to its owner' });

    const result = await deliver([{ type: 'action', id: action.id }]);

    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'back to its owner', Email__c: owner.email, City__c: owner.city });
    await expectMirrorExact();
  });

  it('reads the user when an owner field was edited by hand in Salesforce since it was written', async () => {
    const action = stack.platform.site.action.slice(8, 13).find((a) => typeof userOf(a).city === 'string') as ApiAction;
    const owner = userOf(action);
    const key = `Action_${action.id}`;
    stack.salesforce.editRecord('Svc_Action__c', key, { City__c: 'Edited by hand' });
    stack.platform.update('action', action.id, { title: 'after a hand edit' });

    const result = await deliver([{ type: 'action', id: action.id }]);

    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', key)).toMatchObject({ Title__c: 'after a hand edit', City__c: owner.city });
    await expectMirrorExact();
  });

  it('reads the user again in the next batch when it could not be read in the last one', async () => {
    const site = stack.platform.site;
    const action = site.action.slice(8, 13).find((a) => typeof userOf(a).city === 'string') as ApiAction;
    const owner = { ...userOf(action) };
    // The owner's users.update comes while the user answers 404: the batch reads it and cannot,
    // so the action is written without its owner fields, and nothing is kept of them.
    expect(stack.platform.remove('user', owner.id)).toBe(true);
    stack.platform.update('action', action.id, { title: 'owner not found' });
    const first = await deliver([
      { type: 'action', id: action.id },
      { type: 'user', id: owner.id },
    ]);
    expect(first).toMatchObject({ failed: 0 });
    expect(first.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`).Title__c).toBe('owner not found');
    stack.platform.add('user', owner);
    stack.platform.update('action', action.id, { title: 'owner back' });

    const second = await deliver([{ type: 'action', id: action.id }]);

    expect(second).toMatchObject({ done: 1, failed: 0 });
    expect(second.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'owner back', City__c: owner.city });
    await expectMirrorExact();
  });

  it("reads the user when Salesforce holds the action under another owner's email", async () => {
    const site = stack.platform.site;
    // An action serve has not written, passed to another user on the platform.
    const action = site.action.slice(13).find((a) => typeof userOf(a).city === 'string') as ApiAction;
    const other = site.user.find((u) => u.id !== userOf(action).id && u.email !== userOf(action).email && typeof u.city === 'string');
    if (!other) throw new Error('no other user');
    stack.platform.update('action', action.id, { owner: ownerLink(other), title: 'passed on' });

    const result = await deliver([{ type: 'action', id: action.id }]);

    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'passed on', Email__c: other.email, City__c: other.city });
    await expectMirrorExact();
  });
});

describe('two platform users with one email (issue 37, row 5)', () => {
  it("an action passed from one to the other: the new owner's fields are read, not kept from the mirror under the shared email", async () => {
    const site = stack.platform.site;
    // An action serve has not written (a sync wrote it), and another user of the site.
    const action = site.action.slice(13).find((a) => typeof userOf(a).city === 'string' && typeof userOf(a).email === 'string') as ApiAction;
    const first = userOf(action);
    const second = site.user.find((u) => u.id !== first.id && typeof u.city === 'string' && u.city !== first.city && typeof u.phone === 'string' && u.phone !== first.phone);
    if (!second) throw new Error('no second user');
    stack.platform.update('user', second.id, { email: first.email });
    const shared = site.user.find((u) => u.id === second.id)!;
    stack.platform.update('action', action.id, { owner: ownerLink(shared), title: 'same email, another user' });

    const result = await deliver([{ type: 'action', id: action.id }]);

    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'same email, another user', Email__c: first.email, City__c: shared.city, Phone__c: shared.phone });
    await expectMirrorExact();
  });
});

describe('users.update for a user whose actions serve has not written', () => {
  /** A user whose actions no batch of this serve has met (a sync wrote them), with a city. */
  async function unmetOwner(): Promise<{ user: ApiUser; actions: ApiAction[] }> {
    const site = stack.platform.site;
    const met = new Set([...site.action.slice(0, 14)].map((a) => a.owner?.id));
    for (const user of site.user) {
      const actions = site.action.filter((a) => a.owner?.id === user.id);
      if (met.has(user.id) || typeof user.city !== 'string' || actions.length === 0) continue;
      if ((await queue.actionsOwnedBy(user.id)).length === 0) return { user, actions };
    }
    throw new Error('no unmet owner');
  }

  it("re-syncs them, found in Salesforce under the user's email, and then knows them", async () => {
    const { user, actions } = await unmetOwner();
    expect(await queue.actionsOwnedBy(user.id)).toEqual([]);
    stack.platform.update('user', user.id, { city: 'Moved away', phone: '+31 20 555 0102' });

    const result = await deliver([{ type: 'user', id: user.id }]);

    expect(result).toMatchObject({ done: 1, skipped: 0, failed: 0 });
    for (const a of actions) expect(sf('Svc_Action__c', `Action_${a.id}`)).toMatchObject({ City__c: 'Moved away', Phone__c: '+31 20 555 0102' });
    expect((await queue.actionsOwnedBy(user.id)).sort()).toEqual(actions.map((a) => a.id).sort());
    await expectMirrorExact();
  });

  it('skips a user no action in Salesforce names, having read the user once', async () => {
    const site = stack.platform.site;
    const donor: ApiUser = { ...(site.user[0] as ApiUser), id: 99_001, email: 'donor.without.page@example.org' };
    stack.platform.add('user', donor);

    const result = await deliver([{ type: 'user', id: donor.id }]);

    expect(result).toMatchObject({ done: 0, skipped: 1, failed: 0 });
    expect(result.collections).toEqual(['byId users']);
  });

  it('leaves the actions of a user whose email changed to their own next change, which reads the user', async () => {
    const { user, actions } = await unmetOwner();
    const action = actions[0] as ApiAction;
    const email = `new.${String(user.email)}`;
    stack.platform.update('user', user.id, { email, city: 'New address' });
    stack.platform.update('action', action.id, { owner: ownerLink({ ...user, email }) });

    // Salesforce holds the actions under the old email: none is found under the new one.
    expect(await deliver([{ type: 'user', id: user.id }])).toMatchObject({ skipped: 1, failed: 0 });
    stack.platform.update('action', action.id, { title: 'after the new email' });
    const result = await deliver([{ type: 'action', id: action.id }]);

    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(result.collections.filter((c) => c.endsWith(' users')).length).toBeGreaterThan(0);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Title__c: 'after the new email', Email__c: email, City__c: 'New address' });
  });
});
