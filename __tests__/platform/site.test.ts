import { describe, expect, it } from '@jest/globals';
import { generateSite, money } from '../../fixtures/platform/site.js';

describe('generated site', () => {
  const site = generateSite({ seed: 9, segments: 2, projectsPerSegment: 2, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: 400, newsletterSubscriptions: 20 });

  it('is deterministic per seed', () => {
    expect(generateSite({ seed: 9, donations: 30 })).toEqual(generateSite({ seed: 9, donations: 30 }));
    expect(generateSite({ seed: 9, donations: 30 })).not.toEqual(generateSite({ seed: 10, donations: 30 }));
  });

  it('links every level as the real API does', () => {
    expect(site.segment).toHaveLength(2);
    expect(site.project).toHaveLength(4);
    expect(site.team).toHaveLength(8);
    expect(site.company).toHaveLength(4);
    const actions = new Map(site.action.map((a) => [a.id, a]));
    const projects = new Map(site.project.map((p) => [p.id, p]));
    const onActions = site.donation.filter((x) => x.action_id);
    expect(onActions.length).toBeGreaterThan(0);
    expect(site.action.length).toBeGreaterThan(0);
    for (const d of onActions) {
      const a = actions.get(d.action_id as number);
      expect(a).toBeDefined();
      expect([d.team_id, d.company_id, d.project_id, d.segment_id]).toEqual([a?.team_id, a?.company_id, a?.project_id, a?.segment_id]);
    }
    for (const a of site.action) expect(projects.get(a.project_id as number)?.segment_id).toBe(a.segment_id);
    const users = new Set(site.user.map((u) => u.id));
    for (const a of site.action) expect(users.has(a.owner?.id as number)).toBe(true);
    // Half the subscriptions on a project, half on a segment, each in the form its turn gives.
    const kinds = site.newsletter_subscription.map((n) => {
      const type = n.entity?.entity_type ?? n.entity_type ?? (n.project_id !== undefined ? 'project' : 'segment');
      return type.trim().toLowerCase();
    });
    expect(kinds.filter((k) => k === 'project')).toHaveLength(10);
    expect(kinds.filter((k) => k === 'segment')).toHaveLength(10);
    expect(site.newsletter_subscription.every((n) => n.consents?.[0]?.consent_type === 'newsletter_subscription')).toBe(true);
  });

  it('gives subscriptions their entity in every form: nested, top-level, project_id / segment_id; any case, ids as strings', () => {
    const subs = site.newsletter_subscription;
    expect(subs.filter((n) => n.entity).length).toBeGreaterThan(0);
    expect(subs.filter((n) => !n.entity && n.entity_type).length).toBeGreaterThan(0);
    expect(subs.filter((n) => !n.entity && !n.entity_type && (n.project_id !== undefined || n.segment_id !== undefined)).length).toBeGreaterThan(0);
    const types = new Set(subs.map((n) => n.entity?.entity_type ?? n.entity_type).filter((t): t is string => typeof t === 'string'));
    for (const t of ['project', 'Segment', 'PROJECT', ' Segment ']) expect(types).toContain(t);
    expect(subs.some((n) => typeof n.entity?.entity_id === 'string' || typeof n.entity_id === 'string' || typeof n.project_id === 'string')).toBe(true);
    expect(subs.every((n) => typeof n.id === 'number')).toBe(true);
  });

  it('adds the unlinkable subscriptions only when asked, after the others, leaving the rest of the site as it was', () => {
    const plain = generateSite({ seed: 9, donations: 30 });
    const more = generateSite({ seed: 9, donations: 30, unlinkableSubscriptions: 7 });
    expect(more.newsletter_subscription.slice(0, plain.newsletter_subscription.length)).toEqual(plain.newsletter_subscription);
    expect({ ...more, newsletter_subscription: [] }).toEqual({ ...plain, newsletter_subscription: [] });
    const extra = more.newsletter_subscription.slice(plain.newsletter_subscription.length);
    expect(extra).toHaveLength(7);
    expect(extra.map((n) => n.entity?.entity_type ?? n.entity_type ?? n.project_id ?? null)).toEqual(['Action', 'Site', 'project', 'Segment', null, 'n/a', 'Project']);
  });

  it('has the value shapes of the reference files and the variety the filters need', () => {
    const statuses = new Set(site.donation.map((d) => d.payment_status));
    expect([...statuses].sort()).toEqual(['chargedback', 'paid', 'pending', 'refunded']);
    expect(site.donation.filter((d) => d.payment_status === 'paid').length).toBeGreaterThan(300);
    expect(site.donation.some((d) => d.total_amount === '0.0')).toBe(true);
    expect(site.donation.some((d) => d.address)).toBe(true);
    expect(site.donation.every((d) => typeof d.total_amount === 'string' && /^\d+\.\d{1,2}$/.test(d.total_amount))).toBe(true);
    expect(site.donation.every((d) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(d.created_at as string))).toBe(true);
    expect(site.user.filter((u) => u.birthday).every((u) => /^\d{4}-\d{2}-\d{2}$/.test(u.birthday as string))).toBe(true);
    expect(site.action.some((a) => a.questions?.some((q) => !q.answer || q.answer.trim() === ''))).toBe(true);
    expect(money(25.4)).toBe('25.4');
    expect(money(15)).toBe('15.0');
    expect(money(0.45)).toBe('0.45');
  });
});
