/**
 * A gift's campaign tree (PROJECTION.md §3, appendix N13), from the mirror's own rows: one Campaign
 * per segment, project, team, company and action a gift needs, keyed by the mirror key. Pure: the
 * writer reads the rows and writes; this decides the fields and each campaign's parent row.
 */
import type { CrmRecord, CrmValue } from '../../model/crmRecords.js';
import type { SyncableType } from '../../model/objects.js';
import { truncate } from '../convert.js';
import { localDate } from './amounts.js';

/** The mirror objects a campaign is made from, by level, top-down. */
const CAMPAIGN_LEVELS = ['segment', 'project', 'team', 'company', 'action'] as const;
export type CampaignLevel = (typeof CAMPAIGN_LEVELS)[number];

/** Depth in the tree: teams and companies share a level (§6.1: segment, project, team+company, action). */
export const CAMPAIGN_DEPTH: Readonly<Record<CampaignLevel, number>> = { segment: 0, project: 1, team: 2, company: 2, action: 3 };

/** A level's parent lookups on its mirror row, most specific first (SPEC 2.6 order; §3.1). */
export const PARENT_LOOKUPS: Readonly<Record<CampaignLevel, readonly string[]>> = {
  segment: [],
  project: ['Svc_Segment__c'],
  team: ['Svc_Project__c', 'Svc_Segment__c'],
  company: ['Svc_Project__c', 'Svc_Segment__c'],
  action: ['Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c'],
};

/** The mirror row fields a campaign reads (segments have no Visible__c / Closed__c: N13 defaults). */
export function campaignRowFields(level: CampaignLevel): string[] {
  const flags = level === 'segment' ? [] : ['Visible__c', 'Closed__c'];
  return ['Id', 'SvcId__c', 'Name', 'CreatedAt__c', 'EndDate__c', 'TargetAmount__c', ...flags, ...PARENT_LOOKUPS[level]];
}

export const isCampaignLevel = (type: SyncableType): type is CampaignLevel => (CAMPAIGN_LEVELS as readonly string[]).includes(type);

/** The parent row's Id: the first lookup set. The mirror's cascade already left a missing parent blank (no fall-through, A10). */
export function parentRowId(level: CampaignLevel, row: Readonly<CrmRecord>): string | undefined {
  for (const f of PARENT_LOOKUPS[level]) {
    const v = row[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * The mirror row's own name, or undefined when it has none: blank, or the row's Id, which
 * Salesforce stores as the Name of a custom-object record inserted without one (a project
 * without a title, an action without a name).
 */
function rowName(row: Readonly<CrmRecord>): string | undefined {
  const name = typeof row.Name === 'string' ? row.Name.trim() : '';
  const id = typeof row.Id === 'string' ? row.Id : '';
  if (name === '' || (id !== '' && (name === id || name === id.slice(0, 15)))) return undefined;
  return name;
}

const flag = (v: CrmValue | undefined, absent: boolean): boolean => (typeof v === 'boolean' ? v : absent);

/**
 * The Campaign fields of one mirror row (N13): Name (blank -> the key), IsActive = visible (absent
 * = true) and not closed (absent = false), StartDate/EndDate as calendar dates in the gift time
 * zone, ExpectedRevenue = the target rounded to units. ParentId is the writer's (an Id).
 */
export function campaignFields(row: Readonly<CrmRecord>, key: string, timeZone: string): CrmRecord {
  const name = rowName(row) ?? key;
  const out: CrmRecord = { SvcCampaignKey__c: key, Name: truncate(name, 80), IsActive: flag(row.Visible__c, true) && !flag(row.Closed__c, false) };
  const start = localDate(typeof row.CreatedAt__c === 'string' ? row.CreatedAt__c : undefined, timeZone);
  if (start !== undefined) out.StartDate = start;
  const end = localDate(typeof row.EndDate__c === 'string' ? row.EndDate__c : undefined, timeZone);
  if (end !== undefined) out.EndDate = end;
  const target = typeof row.TargetAmount__c === 'number' ? row.TargetAmount__c : typeof row.TargetAmount__c === 'string' ? Number(row.TargetAmount__c) : NaN;
  if (Number.isFinite(target)) out.ExpectedRevenue = Math.round(target);
  return out;
}
