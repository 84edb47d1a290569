/**
 * The mirror rows a gift's campaign tree is made from (PROJECTION.md §0, §3, N13): the target's
 * Svc_* row, then its ancestors by the Ids its lookups hold, one query per object and round. The
 * platform is not asked: the mirror wrote these rows in this run or an earlier one. An action's
 * row also carries its owner, the fundraiser (N12), as the mirror copied it from the user.
 */
import type { ApiUser } from '../../model/apiRecords.js';
import type { CrmRecord } from '../../model/crmRecords.js';
import type { GiftSink } from '../../model/ports.js';
import { refOfKey } from '../../model/refs.js';
import { SCHEMA } from '../../mapping/schema.js';
import { campaignRowFields, isCampaignLevel, parentRowId, PARENT_LOOKUPS, type CampaignLevel } from '../../mapping/gifts/campaign.js';
import type { FundraiserInput } from './donors.js';
import { readIn } from './reads.js';

/** The owner fields of an action's mirror row (SPEC 2.6: from the action and its user). */
export const OWNER_FIELDS = [
  'FirstName__c',
  'Infix__c',
  'LastName__c',
  'Email__c',
  'Phone__c',
  'Birthday__c',
  'Address__c',
  'Address2__c',
  'Street__c',
  'HouseNumber__c',
  'HouseNumberAddition__c',
  'Zipcode__c',
  'City__c',
  'Country__c',
];

export interface TreeRow {
  level: CampaignLevel;
  key: string;
  row: CrmRecord;
  /** The parent campaign's key; absent at the top or when the mirror row has no parent. */
  parentKey?: string | undefined;
}

const LEVEL_OF_LOOKUP: Readonly<Record<string, CampaignLevel>> = { Svc_Segment__c: 'segment', Svc_Project__c: 'project', Svc_Team__c: 'team', Svc_Company__c: 'company' };

const fieldsOf = (level: CampaignLevel): string[] => [...campaignRowFields(level), ...(level === 'action' ? OWNER_FIELDS : [])];

/**
 * The rows of the targets (by key) and of all their ancestors; a target the mirror lacks is absent.
 * `known`: a target whose campaign is written and current (campaignState.ts) needs no ancestor.
 */
export async function readCampaignTree(sink: GiftSink, targetKeys: Iterable<string>, known: (t: TreeRow) => boolean = () => false): Promise<Map<string, TreeRow>> {
  const byId = new Map<string, TreeRow>();
  const add = (level: CampaignLevel, rows: CrmRecord[]): void => {
    for (const row of rows) if (typeof row.Id === 'string' && typeof row.SvcId__c === 'string') byId.set(row.Id, { level, key: row.SvcId__c, row });
  };
  const targets = new Map<CampaignLevel, string[]>();
  for (const key of new Set(targetKeys)) {
    const ref = refOfKey(key);
    if (ref && isCampaignLevel(ref.type)) targets.set(ref.type, [...(targets.get(ref.type) ?? []), key]);
  }
  for (const [level, keys] of targets) add(level, await readIn(sink, SCHEMA[level].apiName, fieldsOf(level), 'SvcId__c', keys));
  // Ancestors: every lookup a row holds (an action's row holds its whole cascade), until none is new.
  for (;;) {
    const wanted = new Map<CampaignLevel, Set<string>>();
    for (const t of byId.values()) {
      if (known(t)) continue;
      for (const f of PARENT_LOOKUPS[t.level]) {
        const id = t.row[f];
        const level = LEVEL_OF_LOOKUP[f];
        if (typeof id === 'string' && id !== '' && level && !byId.has(id)) wanted.set(level, (wanted.get(level) ?? new Set<string>()).add(id));
      }
    }
    if (wanted.size === 0) break;
    const before = byId.size;
    for (const [level, ids] of wanted) add(level, await readIn(sink, SCHEMA[level].apiName, fieldsOf(level), 'Id', ids));
    // A lookup to a row that is gone (deleted since) ends the walk rather than asking again.
    if (byId.size === before) break;
  }
  const byKey = new Map<string, TreeRow>();
  for (const t of byId.values()) {
    const parentId = parentRowId(t.level, t.row);
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    byKey.set(t.key, { ...t, ...(parent ? { parentKey: parent.key } : {}) });
  }
  return byKey;
}

/** The keys of a campaign and its ancestors, top first. */
export function chainOf(tree: ReadonlyMap<string, TreeRow>, key: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = key; at !== undefined && !chain.includes(at); at = tree.get(at)?.parentKey) {
    if (!tree.has(at)) break;
    chain.unshift(at);
  }
  return chain;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** N12: the action's owner as the mirror holds it (names and email, and the user's phone, birthday and address). */
export function fundraiserOf(action: TreeRow): FundraiserInput {
  const r = action.row;
  const owner = { first_name: text(r.FirstName__c), infix: text(r.Infix__c), last_name: text(r.LastName__c), email: text(r.Email__c) };
  // The mirror row holds no user id; nothing downstream reads one.
  const user: ApiUser = {
    id: 0,
    ...owner,
    phone: text(r.Phone__c),
    birthday: text(r.Birthday__c),
    address: text(r.Address__c),
    address2: text(r.Address2__c),
    street: text(r.Street__c),
    house_number: text(r.HouseNumber__c),
    house_number_addition: text(r.HouseNumberAddition__c),
    zipcode: text(r.Zipcode__c),
    city: text(r.City__c),
    country: text(r.Country__c),
  };
  return { owner, user };
}
