/** `svc-sync object <type> <id>` end to end: the built CLI against the fake platform and the emulator. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation, ApiNewsletterSubscription } from '../../src/model/apiRecords.js';
import {
  cliJson,
  donationSynced,
  expectEnvelope,
  expectLinked,
  keyOf,
  questionKey,
  questionSynced,
  removeDir,
  subscriptionEntity,
  tempCwd,
  totals,
  writeCalls,
  type Envelope,
  type SiteRecord,
} from './helpers.js';

describe('object <type> <id>', () => {
  let stack: Stack;
  let cwd: string;
  let a: ApiDonation;
  let b: ApiDonation;
  let c: ApiNewsletterSubscription;
  let d: ApiNewsletterSubscription;
  let cEntity: number;
  let dEntity: number;

  beforeAll(async () => {
    stack = await startStack({ site: { donations: 80, newsletterSubscriptions: 10 } });
    cwd = tempCwd('object');
    const site = stack.platform.site;
    // A: a donation to an action of a team, the action with answered questions.
    const withAnswers = new Set(site.action.filter((x) => (x.questions ?? []).some(questionSynced)).map((x) => x.id));
    const found = site.donation.find((x) => donationSynced(x) && typeof x.action_id === 'number' && typeof x.team_id === 'number' && withAnswers.has(x.action_id));
    if (!found) throw new Error('site has no donation to a team action with answered questions');
    a = found;
    // B: a donation to a company under another project of the same segment (the segment will be in Salesforce).
    const toCompany = site.donation.find(
      (x) => donationSynced(x) && x.action_id == null && x.team_id == null && typeof x.company_id === 'number' && x.segment_id === a.segment_id && x.project_id !== a.project_id,
    );
    if (!toCompany) throw new Error('site has no company donation in the same segment');
    b = toCompany;
    // Subscriptions name their entity in any of the platform's forms: read it as the spec says.
    const entityOf = (x: ApiNewsletterSubscription): { type: 'project' | 'segment'; id: number } | undefined => subscriptionEntity(site, x as unknown as SiteRecord);
    const byProject = site.newsletter_subscription.find((x) => {
      const e = entityOf(x);
      return e?.type === 'project' && e.id !== a.project_id && e.id !== b.project_id;
    });
    const bySegment = site.newsletter_subscription.find((x) => entityOf(x)?.type === 'segment');
    if (!byProject || !bySegment) throw new Error('site lacks newsletter subscriptions of both kinds');
    c = byProject;
    d = bySegment;
    cEntity = entityOf(c)?.id as number;
    dEntity = entityOf(d)?.id as number;
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('`object donation` writes the donation and its missing parents, every lookup set, the action with its questions', async () => {
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['object', 'donation', String(a.id)], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'object', false);
    const s = run.body.result.summary;
    expect(s.Svc_Segment__c.inserted).toBe(1);
    expect(s.Svc_Project__c.inserted).toBe(1);
    expect(s.Svc_Team__c.inserted).toBe(1);
    expect(s.Svc_Company__c.inserted).toBe(0);
    expect(s.Svc_Action__c.inserted).toBe(1);
    expect(s.Svc_Donation__c.inserted).toBe(1);
    const action = stack.platform.site.action.find((x) => x.id === a.action_id);
    const answered = (action?.questions ?? []).filter(questionSynced);
    expect(answered.length).toBeGreaterThan(0);
    expect(s.Svc_ActionQuestion__c.inserted).toBe(answered.length);
    expect(totals(run.body.result).failed).toBe(0);

    expectLinked(stack, stack.platform.site, 'donation', a.id);
    const donation = stack.salesforce.get('Svc_Donation__c', keyOf('donation', a.id));
    // Donation to an action: Svc_Action__c direct, team/project/segment inherited, all set.
    expect(donation?.Svc_Action__c).toBe(stack.salesforce.get('Svc_Action__c', keyOf('action', a.action_id as number))?.Id);
    expect(donation?.Svc_Team__c).toBe(stack.salesforce.get('Svc_Team__c', keyOf('team', a.team_id as number))?.Id);
    expect(donation?.Svc_Project__c).toBe(stack.salesforce.get('Svc_Project__c', keyOf('project', a.project_id as number))?.Id);
    expect(donation?.Svc_Segment__c).toBe(stack.salesforce.get('Svc_Segment__c', keyOf('segment', a.segment_id as number))?.Id);
    expect(donation?.TargetSvcId__c).toBe(keyOf('action', a.action_id as number));
    const actionId = stack.salesforce.get('Svc_Action__c', keyOf('action', a.action_id as number))?.Id;
    for (const q of answered) expect(stack.salesforce.get('Svc_ActionQuestion__c', questionKey(a.action_id as number, q.id))?.Svc_Action__c).toBe(actionId);

    // Each record fetched once, by id; the action's owner for the personal details.
    expect(stack.platform.requests.byId).toEqual({ donations: 1, actions: 1, teams: 1, projects: 1, segments: 1, users: 1 });
    expect(stack.platform.requests.listTotal).toBe(0);
  });

  it('`object donations` (plural) writes only the parents Salesforce lacks: the segment already there is not fetched', async () => {
    stack.platform.resetCounts();
    const run = await cliJson(stack, ['object', 'donations', String(b.id)], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'object', false);
    const s = run.body.result.summary;
    expect(s.Svc_Segment__c.inserted + s.Svc_Segment__c.updated).toBe(0);
    expect(s.Svc_Project__c.inserted).toBe(1);
    expect(s.Svc_Company__c.inserted).toBe(1);
    expect(s.Svc_Donation__c.inserted).toBe(1);
    expectLinked(stack, stack.platform.site, 'donation', b.id);
    const donation = stack.salesforce.get('Svc_Donation__c', keyOf('donation', b.id));
    expect(donation?.Svc_Company__c).toBe(stack.salesforce.get('Svc_Company__c', keyOf('company', b.company_id as number))?.Id);
    expect(donation?.Svc_Segment__c).toBe(stack.salesforce.get('Svc_Segment__c', keyOf('segment', b.segment_id as number))?.Id);
    expect(donation?.Svc_Action__c ?? null).toBeNull();
    expect(stack.platform.requests.byId).toEqual({ donations: 1, companies: 1, projects: 1 });
  });

  it('`object newsletter-subscriptions` (kebab plural) links a subscription to its project and inherits the segment', async () => {
    const run = await cliJson(stack, ['object', 'newsletter-subscriptions', String(c.id)], cwd);
    expect(run.code).toBe(0);
    expectEnvelope(run, 'object', false);
    expect(run.body.result.summary.Svc_NewsletterSubscription__c.inserted).toBe(1);
    expect(run.body.result.summary.Svc_Project__c.inserted).toBe(1);
    expectLinked(stack, stack.platform.site, 'newsletter_subscription', c.id);
    const rec = stack.salesforce.get('Svc_NewsletterSubscription__c', keyOf('newsletter_subscription', c.id));
    const project = stack.salesforce.get('Svc_Project__c', keyOf('project', cEntity));
    expect(rec?.Svc_Project__c).toBe(project?.Id);
    expect(typeof rec?.Svc_Segment__c).toBe('string');
    expect(rec?.Svc_Segment__c).toBe(project?.Svc_Segment__c);
  });

  it('`object NewsletterSubscription` (Pascal) links a subscription to its segment', async () => {
    const run = await cliJson(stack, ['object', 'NewsletterSubscription', String(d.id)], cwd);
    expect(run.code).toBe(0);
    expect(run.body.result.summary.Svc_NewsletterSubscription__c.inserted).toBe(1);
    expectLinked(stack, stack.platform.site, 'newsletter_subscription', d.id);
    const rec = stack.salesforce.get('Svc_NewsletterSubscription__c', keyOf('newsletter_subscription', d.id));
    expect(rec?.Svc_Segment__c).toBe(stack.salesforce.get('Svc_Segment__c', keyOf('segment', dEntity))?.Id);
    expect(rec?.Svc_Project__c ?? null).toBeNull();
  });

  it('a second run of each reports unchanged and makes no upsert call', async () => {
    const before = writeCalls(stack);
    const cases: Array<[string, number, string]> = [
      ['donation', a.id, 'Svc_Donation__c'],
      ['donations', b.id, 'Svc_Donation__c'],
      ['newsletter-subscriptions', c.id, 'Svc_NewsletterSubscription__c'],
      ['NewsletterSubscription', d.id, 'Svc_NewsletterSubscription__c'],
    ];
    const bodies: Envelope[] = [];
    for (const [type, id, object] of cases) {
      const run = await cliJson(stack, ['object', type, String(id)], cwd);
      expect(run.code).toBe(0);
      const t = totals(run.body.result);
      expect({ type, inserted: t.inserted, updated: t.updated, failed: t.failed }).toEqual({ type, inserted: 0, updated: 0, failed: 0 });
      expect(run.body.result.summary[object].unchanged).toBe(1);
      expect(run.body.result.records).toEqual([]);
      bodies.push(run.body);
    }
    expect(bodies).toHaveLength(4);
    expect(writeCalls(stack)).toBe(before);
  });
});
