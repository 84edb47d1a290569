/**
 * Campaigns follow their mirror rows (PROJECTION.md §3.2): when the mirror updates a segment,
 * project, team, company or action whose campaign exists, the campaign (with the parents
 * it now has) is brought up to date: a rename, a move, a page closed. A campaign no gift needs yet
 * is not created here (lazy, §3.1).
 */
import type { GiftSink } from '../../model/ports.js';
import { chainOf, readCampaignTree } from './campaignRows.js';
import { writeCampaigns } from './campaigns.js';
import type { KnownCampaigns } from './campaignState.js';
import { keepCampaigns } from './projectBatch.js';
import { readIn } from './reads.js';

type CampaignStep = Awaited<ReturnType<typeof writeCampaigns>>;

export async function refreshCampaigns(sink: GiftSink, keys: readonly string[], timeZone: string, state?: KnownCampaigns): Promise<Pick<CampaignStep, 'rows' | 'failed'>> {
  // One query when none of them has a campaign (a first sync, or pages without gifts).
  const existing = (await readIn(sink, 'Campaign', ['Id', 'SvcCampaignKey__c'], 'SvcCampaignKey__c', keys)).flatMap((r) => (typeof r.SvcCampaignKey__c === 'string' ? [r.SvcCampaignKey__c] : []));
  if (existing.length === 0) return { rows: [], failed: new Map() };
  const tree = await readCampaignTree(sink, existing);
  const chains = new Set(existing.flatMap((k) => chainOf(tree, k)));
  const step = await writeCampaigns(sink, tree, chains, { timeZone, dryRun: false });
  // What the campaigns now hold, so the next gifts to them need no read.
  keepCampaigns(state, tree, step);
  for (const key of step.failed.keys()) state?.forget(key);
  return step;
}
