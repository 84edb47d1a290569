/** Generated sites shared by the benches. */
import { prng, type SiteOptions } from '../fixtures/platform/site.js';
import type { Stack } from '../fixtures/stack.js';
import type { ResourceType } from '../src/model/apiRecords.js';

/** The benches' default site: 3 segments, 12 projects, 36 teams, 24 companies, 288 pages, 200 subscriptions and `donations`. */
export const defaultSite = (donations: number): SiteOptions => ({
  seed: 42,
  segments: 3,
  projectsPerSegment: 4,
  teamsPerProject: 3,
  companiesPerProject: 2,
  actionsPerParent: 4,
  donations,
  newsletterSubscriptions: 200,
});

/**
 * A site of about `size` records (questions, which ride inside actions, not counted): the shape of
 * bench/sync-full scaled up, so a larger site also has more projects, pages and people.
 */
export function siteFor(size: number, dangling: number, heavy = false): SiteOptions {
  const projectsPerSegment = Math.max(4, Math.round(size / 6_000));
  const segments = 3;
  const projects = segments * projectsPerSegment;
  // Per project: 3 teams, 2 companies, 4 actions under each team, company and the project itself.
  const parents = projects * (1 + 3 + 2) + segments;
  // The heavy shape has four times the fundraising pages (each with 10-30 KB of HTML and 5-10 questions).
  const actionsPerParent = heavy ? 16 : 4;
  const actions = projects * (3 + 2 + 1) * actionsPerParent;
  const users = Math.round(actions * 0.8);
  const newsletterSubscriptions = Math.round(size * 0.02);
  const donations = Math.max(100, size - parents - actions - users - newsletterSubscriptions);
  return { seed: 42, segments, projectsPerSegment, teamsPerProject: 3, companiesPerProject: 2, actionsPerParent, donations, newsletterSubscriptions, danglingParents: dangling, heavy };
}

/** Changes about `share` of every type's records on the platform (a title or a surname; updated_at bumps to now). */
export function changeShare(stack: Stack, share: number, seed: number): number {
  const rnd = prng(seed);
  const site = stack.platform.site;
  let changed = 0;
  for (const type of Object.keys(site) as ResourceType[]) {
    for (const record of [...site[type]] as unknown as Record<string, unknown>[]) {
      if (rnd() >= share) continue;
      const field = typeof record.title === 'string' ? 'title' : 'last_name';
      stack.platform.update(type, record.id as number, { [field]: `${String(record[field] ?? '')} (changed ${seed})` });
      changed++;
    }
  }
  return changed;
}
