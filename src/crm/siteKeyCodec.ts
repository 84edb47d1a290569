/**
 * Site-qualified keys at the org's edge (SITES.md): with SVC_SITE_KEYS the sink writes every key
 * as `<site_id>:<key>` and hands back only its own site's records, their keys bare again. The
 * engine, audit and serve above it keep today's keys, so one site's run can neither see nor touch
 * another site's records in a shared org, and a bare key (or another site's) is never its record.
 */
import type { CrmRecord, UpsertOutcome } from '../model/crmRecords.js';
import { KEY_VALUED_FIELDS, ownBareKey, qualifyKey, sitePrefixFilter } from '../model/siteKeys.js';

export class SiteKeyCodec {
  constructor(readonly siteId: number) {}

  /** A record as the org holds it: its key and key-valued fields qualified. */
  toOrg(record: CrmRecord): CrmRecord {
    const out: CrmRecord = { ...record };
    for (const f of KEY_VALUED_FIELDS) {
      const v = out[f];
      if (typeof v === 'string' && v !== '') out[f] = qualifyKey(this.siteId, v);
    }
    return out;
  }

  /** Keys as the org holds them. */
  keysToOrg(keys: readonly string[]): string[] {
    return keys.map((k) => qualifyKey(this.siteId, k));
  }

  /** A key-valued field's values qualified for a read by them; other fields' values (Ids, emails) as they are. */
  valuesToOrg(field: string, values: readonly string[]): string[] {
    return KEY_VALUED_FIELDS.includes(field) ? this.keysToOrg(values) : [...values];
  }

  /** The site's own rows, their keys bare; another site's and bare-keyed rows are dropped. */
  fromOrg<R extends CrmRecord>(rows: readonly R[]): R[] {
    const out: R[] = [];
    for (const row of rows) {
      const key = typeof row.SvcId__c === 'string' ? ownBareKey(this.siteId, row.SvcId__c) : undefined;
      if (key === undefined) continue;
      const bare: CrmRecord = { ...row, SvcId__c: key };
      for (const f of KEY_VALUED_FIELDS) {
        const v = bare[f];
        // Another site's value in a key field of ours stays as it is: a hand edit, shown as drift.
        if (f !== 'SvcId__c' && typeof v === 'string') bare[f] = ownBareKey(this.siteId, v) ?? v;
      }
      out.push(bare as R);
    }
    return out;
  }

  /** An upsert outcome under the key the engine gave. */
  outcomeFromOrg(o: UpsertOutcome): UpsertOutcome {
    return { ...o, key: ownBareKey(this.siteId, o.key) ?? o.key };
  }

  /** The SOQL condition on the external id that keeps a read to this site. */
  filter(): string {
    return sitePrefixFilter(this.siteId);
  }
}
