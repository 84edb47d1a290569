/**
 * The campaign step (PROJECTION.md §3, §6.1 step 3, N13): the campaigns the batch's gifts need,
 * with their ancestors, upserted on SvcCampaignKey__c top-down one level per call, only those
 * whose fields differ from what the org holds. A campaign whose parent failed is not written.
 */
import type { CrmRecord } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';
import { CAMPAIGN_DEPTH, campaignFields } from '../../mapping/gifts/campaign.js';
import type { TreeRow } from './campaignRows.js';
import type { ProjectionRow } from './outcome.js';
import { byKey, changedFields, readIn } from './reads.js';
import { sendPending, type StepResult } from './upsertChanged.js';

const CAMPAIGN_FIELDS = ['Id', 'SvcCampaignKey__c', 'Name', 'ParentId', 'IsActive', 'StartDate', 'EndDate', 'ExpectedRevenue'];

/** Each campaign's Id (undefined: a dry run's new campaign), and those that could not be written, with why (a failed parent too). */
type CampaignStep = StepResult;

interface Level {
  tree: ReadonlyMap<string, TreeRow>;
  existing: ReadonlyMap<string, CrmRecord>;
  timeZone: string;
  dryRun: boolean;
  pageGone?: ((key: string) => boolean) | undefined;
}

/** Writes the campaigns of `keys` (every ancestor included by the caller) that differ from the org's. */
export async function writeCampaigns(
  sink: GiftSink,
  tree: ReadonlyMap<string, TreeRow>,
  all: ReadonlySet<string>,
  opts: { timeZone: string; dryRun: boolean; known?: ReadonlyMap<string, string>; pageGone?: ((key: string) => boolean) | undefined },
): Promise<CampaignStep> {
  const step: CampaignStep = { ids: new Map(), failed: new Map(), rows: [] };
  // A campaign known written and current (campaignState.ts): its Id, no read, no write.
  for (const [key, id] of opts.known ?? []) {
    if (!all.has(key)) continue;
    step.ids.set(key, id);
    step.rows.push({ object: 'Campaign', key, action: 'unchanged' });
  }
  const keys = new Set([...all].filter((k) => !opts.known?.has(k)));
  if (keys.size === 0) return step;
  const existing = byKey(await readIn(sink, 'Campaign', CAMPAIGN_FIELDS, 'SvcCampaignKey__c', keys), 'SvcCampaignKey__c');
  const depths = [...new Set([...keys].map((k) => CAMPAIGN_DEPTH[(tree.get(k) as TreeRow).level]))].sort((a, b) => a - b);
  for (const depth of depths) {
    const level = [...keys].filter((k) => CAMPAIGN_DEPTH[(tree.get(k) as TreeRow).level] === depth);
    await writeLevel(sink, level, { tree, existing, ...opts }, step);
  }
  return step;
}

async function writeLevel(sink: GiftSink, keys: string[], c: Level, step: CampaignStep): Promise<void> {
  const send: CrmRecord[] = [];
  const sent = new Map<string, ProjectionRow>();
  for (const key of keys) {
    const t = c.tree.get(key) as TreeRow;
    const current = c.existing.get(key.toLowerCase());
    const parentError = t.parentKey === undefined ? undefined : step.failed.get(t.parentKey);
    if (parentError !== undefined) {
      step.failed.set(key, { code: 'CAMPAIGN_FAILED', message: `parent campaign ${t.parentKey ?? ''} failed: ${parentError.message}` });
      step.rows.push({ object: 'Campaign', key, action: 'fail', reason: 'CAMPAIGN_FAILED' });
      continue;
    }
    const desired = campaignFields(t.row, key, c.timeZone);
    // §3.2: a page gone from the platform keeps its campaign, inactive (its mirror row stays until --delete-orphans).
    if (desired.IsActive === true && c.pageGone?.(key) === true) desired.IsActive = false;
    const parentId = t.parentKey === undefined ? undefined : step.ids.get(t.parentKey);
    if (parentId !== undefined) desired.ParentId = parentId;
    const changed = changedFields(desired, current);
    const id = typeof current?.Id === 'string' ? current.Id : undefined;
    if (changed.length === 0) {
      step.ids.set(key, id);
      step.rows.push({ object: 'Campaign', key, action: 'unchanged' });
      continue;
    }
    const row: ProjectionRow = { object: 'Campaign', key, action: current ? 'update' : 'insert', fields: changed };
    if (c.dryRun) {
      step.ids.set(key, id);
      step.rows.push(row);
      continue;
    }
    // An update sends only what differs: a field the org holds as svc-sync would write it stays untouched.
    send.push(current ? { SvcCampaignKey__c: key, ...Object.fromEntries(changed.map((f) => [f, desired[f] ?? null])) } : desired);
    sent.set(key.toLowerCase(), row);
  }
  await sendPending(sink, { object: 'Campaign', keyField: 'SvcCampaignKey__c' }, send, sent, step);
}
