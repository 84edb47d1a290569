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
    const withProject = site.newsletter_subscription.filter((n) => n.project_id).length;
    expect(withProject).toBe(10);
    expect(site.newsletter_subscription.every((n) => n.consents?.[0]?.consent_type === 'newsletter_subscription')).toBe(true);
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
