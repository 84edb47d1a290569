/**
 * For the tests of the gift projection in a shared org (SITES.md): one site's gift side of an NPC
 * org as plain comparable rows, its keys without the site prefix and every lookup as the key of
 * the record it points at, so a shared org's part of a site can be held against the org that site
 * writes alone.
 */
import type { NpcOrg, NpcRecord } from '../../fixtures/salesforce/npc.js';

/** Each gift-side object's key field. */
export const GIFT_KEYS: Readonly<Record<string, string>> = {
  Campaign: 'SvcCampaignKey__c',
  GiftTransaction: 'SvcGiftKey__c',
  GiftSoftCredit: 'SvcSoftCreditKey__c',
  GiftRefund: 'SvcRefundKey__c',
};

/** Fields the org sets itself (the record type's Id differs between two emulators). */
const SYSTEM = new Set(['Id', 'IsDeleted', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'PersonContactId', 'RecordTypeId']);

/**
 * A key as the site knows it, or undefined when it is not the site's: `prefix` '' means bare keys
 * only (an org one site wrote alone). Donor keys from email and name (and the pool) are shared.
 */
function bareOf(object: string, key: string, prefix: string): string | undefined {
  if (object === 'Account') {
    if (!key.startsWith('D:')) return key;
    const own = bareOf('GiftTransaction', key.slice(2), prefix);
    return own === undefined ? undefined : `D:${own}`;
  }
  if (prefix === '') return /^\d+:/.test(key) ? undefined : key;
  return key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
}

const keyOfRecord = (object: string, r: NpcRecord): string => String(r[object === 'Account' ? 'SvcDonorKey__c' : (GIFT_KEYS[object] as string)] ?? r.Id);

/** The site's Campaigns, gifts, soft credits and refunds, and the Accounts they point at. */
export function siteGiftRows(npc: NpcOrg, prefix: string): Record<string, Array<Record<string, unknown>>> {
  const objects = ['Account', ...Object.keys(GIFT_KEYS)];
  const keyOfId = new Map<string, string>();
  for (const o of objects) for (const r of npc.records(o)) keyOfId.set(r.Id, `${o}/${bareOf(o, keyOfRecord(o, r), prefix) ?? `foreign ${keyOfRecord(o, r)}`}`);
  const rowOf = (object: string, r: NpcRecord): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (const [f, v] of Object.entries(r)) {
      if (SYSTEM.has(f) || v === null || v === undefined) continue;
      if (typeof v === 'string' && keyOfId.has(v)) row[f] = `->${keyOfId.get(v)}`;
      else if (typeof v === 'string' && (f === GIFT_KEYS[object] || f === 'SvcDonorKey__c')) row[f] = bareOf(object, v, prefix);
      else row[f] = v;
    }
    return row;
  };
  const out: Record<string, Array<Record<string, unknown>>> = {};
  const donors = new Set<string>();
  for (const o of Object.keys(GIFT_KEYS)) {
    const own = npc.records(o).filter((r) => bareOf(o, keyOfRecord(o, r), prefix) !== undefined);
    for (const r of own) for (const f of ['DonorId', 'RecipientId']) if (typeof r[f] === 'string') donors.add(r[f] as string);
    out[o] = own.map((r) => rowOf(o, r)).sort((a, b) => String(a[GIFT_KEYS[o] as string]).localeCompare(String(b[GIFT_KEYS[o] as string])));
  }
  out.Account = npc
    .records('Account')
    .filter((r) => donors.has(r.Id))
    .map((r) => rowOf('Account', r))
    .sort((a, b) => String(a.SvcDonorKey__c).localeCompare(String(b.SvcDonorKey__c)));
  return out;
}
