/**
 * Parents from the mirror: a webhook batch on a warm org takes the parents it needs for the
 * cascade (lookups, the target's external reference) from the records Salesforce already holds,
 * and asks the platform only for a parent the mirror lacks or one that changed in the same batch.
 * Every case ends with the whole mirror compared against a full sync (a dry run that would write
 * nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Settings } from '../../src/config/settings.js';
import { settingsOf } from '../../src/config/load.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import type { ObjectRef } from '../../src/model/objects.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { expectMirrorExact as mirrorExact, fullSync as fullSyncOf } from '../support/mirror.js';

let stack: Stack;
let settings: Settings;

const PARENT_COLLECTIONS = ['segments', 'projects', 'teams', 'companies', 'actions', 'users'];

const fullSync = (dryRun: boolean): Promise<SyncEngine> => fullSyncOf(settings, dryRun);
const expectMirrorExact = (): Promise<void> => mirrorExact(settings);

/** One webhook batch through the real processor, as the worker hands it over (changedSince: just before the changes). */
async function batch(refs: ObjectRef[], changedSince: string): Promise<{ statuses: string[]; collections: string[] }> {
  stack.platform.resetCounts();
  const result = await createEngineProcessor(composeConnection(settings)).process(refs, { changedSince });
  return { statuses: result.outcomes.map((o) => o.status), collections: stack.platform.requests.log.map((e) => String(e.collection)) };
}

const paidOn = (pick: (d: ApiDonation) => boolean): ApiDonation[] =>
  stack.platform.site.donation.filter((d) => ['paid', 'refunded', 'chargedback'].includes(String(d.payment_status)) && Number(d.total_amount) !== 0 && pick(d));

const sf = (object: string, key: string): Record<string, unknown> => {
  const r = stack.salesforce.get(object, key);
  if (!r) throw new Error(`${key} is not in Salesforce`);
  return r;
};

beforeAll(async () => {
  stack = await startStack({ site: { seed: 7, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 150, newsletterSubscriptions: 12 } });
  settings = settingsOf({ ...stack.env, SVC_TIMEOUT_MS: '5000' });
  // The warm org: a full sync has mirrored the site.
  await fullSync(false);
});

afterAll(async () => {
  await stack.close();
});

describe('a webhook batch on a warm org', () => {
  it('reads unchanged parents from the mirror: only the changed collections are listed, no parent, no owner', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const donations = paidOn((d) => typeof d.action_id === 'number').slice(0, 4);
    const onProject = paidOn((d) => d.action_id == null && d.team_id == null && d.company_id == null && typeof d.project_id === 'number').slice(0, 2);
    const subscription = stack.platform.site.newsletter_subscription[0];
    for (const d of [...donations, ...onProject]) stack.platform.update('donation', d.id, { message: `from the mirror ${d.id}` });
    stack.platform.update('newsletter_subscription', subscription.id, { first_name: 'Mirrored' });

    const refs: ObjectRef[] = [...donations, ...onProject].map((d) => ({ type: 'donation', id: d.id }));
    refs.push({ type: 'newsletter_subscription', id: subscription.id });
    const { statuses, collections } = await batch(refs, since);

    expect(statuses.every((s) => s === 'done')).toBe(true);
    expect(collections.filter((c) => PARENT_COLLECTIONS.includes(c))).toEqual([]);
    for (const d of donations) {
      const action = sf('Svc_Action__c', `Action_${d.action_id}`);
      expect(sf('Svc_Donation__c', `Donation_${d.id}`)).toMatchObject({ Message__c: `from the mirror ${d.id}`, Svc_Action__c: action.Id, Svc_Segment__c: action.Svc_Segment__c });
    }
    // The target's external reference comes from the parent's mirrored record.
    for (const d of onProject) {
      const project = sf('Svc_Project__c', `Project_${d.project_id}`);
      expect(sf('Svc_Donation__c', `Donation_${d.id}`).ExternalReference__c ?? null).toBe(project.ExternalReference__c ?? null);
    }
    expect(sf('Svc_NewsletterSubscription__c', `NewsletterSubscription_${subscription.id}`).FirstName__c).toBe('Mirrored');
    await expectMirrorExact();
  });

  it('fetches a parent that changed in the same batch, and links its child to the new state', async () => {
    const site = stack.platform.site;
    const donation = paidOn((d) => typeof d.action_id === 'number' && site.action.some((a) => a.id === d.action_id && typeof a.team_id === 'number'))[0];
    const action = site.action.find((a) => a.id === donation.action_id);
    if (!action) throw new Error('no action');
    const otherTeam = site.team.find((t) => t.id !== action.team_id && t.project_id !== site.team.find((x) => x.id === action.team_id)?.project_id);
    if (!otherTeam) throw new Error('no team under another project');
    const since = new Date(Date.now() - 1000).toISOString();
    // The action moves to a team under another project and gets a new external reference; its donation changes too.
    stack.platform.update('action', action.id, { team_id: otherTeam.id, project_id: otherTeam.project_id, segment_id: otherTeam.segment_id, external_reference: 'moved-action-ref' });
    stack.platform.update('donation', donation.id, { message: 'with its parent' });

    const { statuses, collections } = await batch(
      [
        { type: 'donation', id: donation.id },
        { type: 'action', id: action.id },
      ],
      since,
    );

    expect(statuses).toEqual(['done', 'done']);
    // The changed action is read from the platform (with its owner), not from the mirror.
    expect(collections).toContain('actions');
    const team = sf('Svc_Team__c', `Team_${otherTeam.id}`);
    expect(sf('Svc_Action__c', `Action_${action.id}`)).toMatchObject({ Svc_Team__c: team.Id, Svc_Project__c: team.Svc_Project__c });
    expect(sf('Svc_Donation__c', `Donation_${donation.id}`)).toMatchObject({
      Message__c: 'with its parent',
      ExternalReference__c: 'moved-action-ref',
      Svc_Team__c: team.Id,
      Svc_Project__c: team.Svc_Project__c,
      Svc_Segment__c: team.Svc_Segment__c,
    });
    await expectMirrorExact();
  });

  it("a parent's own change, arriving after its child's, reaches the child: the mirror's copy was stale only until then", async () => {
    const site = stack.platform.site;
    const donation = paidOn((d) => typeof d.action_id === 'number')[5];
    const action = site.action.find((a) => a.id === donation.action_id);
    if (!action) throw new Error('no action');
    const since = new Date(Date.now() - 1000).toISOString();
    stack.platform.update('action', action.id, { external_reference: 'late-ref' });
    stack.platform.update('donation', donation.id, { message: 'before its parent' });

    // The donation's event comes first: its target is read from the mirror, as it was.
    const first = await batch([{ type: 'donation', id: donation.id }], since);
    expect(first.collections.filter((c) => PARENT_COLLECTIONS.includes(c))).toEqual([]);
    expect(sf('Svc_Donation__c', `Donation_${donation.id}`).ExternalReference__c).not.toBe('late-ref');
    // Then the action's own event: written, and the reference its donations copy follows.
    const second = await batch([{ type: 'action', id: action.id }], since);
    expect(second.statuses).toEqual(['done']);
    expect(sf('Svc_Donation__c', `Donation_${donation.id}`)).toMatchObject({ Message__c: 'before its parent', ExternalReference__c: 'late-ref' });
    await expectMirrorExact();
  });

  it('fetches a parent the mirror lacks from the platform, writes it first and links the child', async () => {
    const site = stack.platform.site;
    const donation = paidOn((d) => typeof d.team_id === 'number' && d.action_id == null)[0];
    const model = site.team.find((t) => t.id === donation?.team_id);
    if (!donation || !model) throw new Error('no donation on a team');
    // A team new on the platform, not mirrored yet; the donation moves to it.
    const newTeam = { ...model, id: 1_900, name: 'New team', external_reference: 'new-team-ref', updated_at: new Date().toISOString() };
    stack.platform.add('team', newTeam);
    const since = new Date(Date.now() - 1000).toISOString();
    stack.platform.update('donation', donation.id, { team_id: newTeam.id, message: 'parent not mirrored' });

    const { statuses, collections } = await batch([{ type: 'donation', id: donation.id }], since);

    expect(statuses).toEqual(['done']);
    expect(collections).toContain('teams');
    // Only the team: its own parents are in the mirror.
    expect(collections.filter((c) => ['segments', 'projects', 'companies', 'actions', 'users'].includes(c))).toEqual([]);
    const team = sf('Svc_Team__c', 'Team_1900');
    expect(team.Svc_Project__c).toBe(sf('Svc_Project__c', `Project_${model.project_id}`).Id);
    expect(sf('Svc_Donation__c', `Donation_${donation.id}`)).toMatchObject({
      Message__c: 'parent not mirrored',
      ExternalReference__c: 'new-team-ref',
      Svc_Team__c: team.Id,
      Svc_Project__c: team.Svc_Project__c,
      Svc_Segment__c: team.Svc_Segment__c,
    });
    await expectMirrorExact();
  });
});
