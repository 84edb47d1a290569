/**
 * The keys `keys qualify` moves beyond the mirror's (SITES.md, "The gift projection in a shared
 * org"): the gift side's key fields of the donation model the connection projects into, read
 * from mapping/gifts/keyFields.ts, and the run log's error keys. A donor key is the site's only
 * when it is a per-donation one (`D:Donation_4`); person, organisation and pool keys are shared.
 */
import { NPC_KEY_FIELDS, NPSP_KEY_FIELDS } from '../../mapping/gifts/keyFields.js';
import type { KeySource } from './keyFields.js';

const DONOR_KEY = 'SvcDonorKey__c';

/** The gift-side objects and key fields of `model` (`auto`: both models', each object once). */
export function giftKeySources(model: 'npc' | 'npsp' | 'auto'): KeySource[] {
  const tables = model === 'npc' ? [NPC_KEY_FIELDS] : model === 'npsp' ? [NPSP_KEY_FIELDS] : [NPC_KEY_FIELDS, NPSP_KEY_FIELDS];
  const byObject = new Map<string, KeySource>();
  for (const f of tables.flat()) {
    if (f.type.kind === 'checkbox' || byObject.has(f.object)) continue;
    const donor = f.field === DONOR_KEY;
    byObject.set(f.object, {
      object: f.object,
      fields: [{ name: f.field, length: f.type.length, ...(donor ? { after: 'D:' } : {}) }],
      // Fixed text: field names from the table, no input.
      where: donor ? `${f.field} LIKE 'D:%'` : `${f.field} != null`,
    });
  }
  return [...byObject.values()];
}
