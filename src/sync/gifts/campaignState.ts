/**
 * The campaigns the projection knows are written and current (PROJECTION.md §6.3 `campaign_hash`):
 * per campaign key, its Id and a digest of what svc-sync wrote (the fields from its mirror row and
 * the mirror row's parent). A gift's target campaign whose digest is unchanged needs no read of its
 * ancestors' mirror rows and no Campaign read: its Id is taken from here. Kept beside the run
 * state, owner-only and written whole; lost or unreadable, the next run reads and compares instead.
 * A full run (`sync --all`) does not trust it but keeps it up to date.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { campaignFields, parentRowId } from '../../mapping/gifts/campaign.js';
import type { TreeRow } from './campaignRows.js';
import { isRecord, KeptMap, SALESFORCE_ID, SHA256_HEX } from './keptMap.js';

const FILE = 'projected-campaigns.json';
const KEY = /^(Segment|Project|Team|Company|Action)_\d+$/;

export const campaignsBeside = (stateFile: string): string => path.join(path.dirname(stateFile), FILE);

interface Known {
  id: string;
  digest: string;
}

const knownOf = (k: string, v: unknown): Known | undefined =>
  KEY.test(k) && isRecord(v) && typeof v.id === 'string' && SALESFORCE_ID.test(v.id) && typeof v.digest === 'string' && SHA256_HEX.test(v.digest) ? { id: v.id, digest: v.digest } : undefined;

export class KnownCampaigns {
  /** False in a full run: every campaign is compared with the org (the digests still kept). */
  trusted = true;

  private constructor(
    private readonly known: KeptMap<Known>,
    private readonly timeZone: string,
  ) {}

  static open(file: string, timeZone: string): KnownCampaigns {
    const kept = new KeptMap<Known>(file, {
      what: 'projected campaigns',
      field: 'campaigns',
      without: 'the campaigns are read and compared',
      entryIs: 'a campaign key with its Id and digest',
      strict: false,
      entry: knownOf,
      same: (a, b) => a.id === b.id && a.digest === b.digest,
    });
    return new KnownCampaigns(kept, timeZone);
  }

  /** What is wrong with the file found (said once as a warning), if anything. */
  get problem(): string | undefined {
    return this.known.problem;
  }

  /** What svc-sync writes for the campaign of a mirror row, and under which parent row. */
  digest(t: TreeRow): string {
    const fields = campaignFields(t.row, t.key, this.timeZone);
    const sorted = Object.keys(fields)
      .sort()
      .map((k) => [k, fields[k] ?? null]);
    return createHash('sha256')
      .update(JSON.stringify({ fields: sorted, parent: parentRowId(t.level, t.row) ?? null }))
      .digest('hex');
  }

  /** The campaign's Id when it was written as its mirror row now says; undefined otherwise. */
  current(t: TreeRow): string | undefined {
    if (!this.trusted) return undefined;
    const k = this.known.get(t.key);
    return k !== undefined && k.digest === this.digest(t) ? k.id : undefined;
  }

  /**
   * The campaign's Id without reading its mirror row: the writer and the parents hook keep the
   * digest current whenever the mirror writes the row; a full run checks it against the row.
   */
  idOf(key: string): string | undefined {
    return this.trusted ? this.known.get(key)?.id : undefined;
  }

  set(t: TreeRow, id: string): void {
    this.known.set(t.key, { id, digest: this.digest(t) });
  }

  forget(key: string): void {
    this.known.delete(key);
  }

  save(): boolean {
    return this.known.save();
  }
}
