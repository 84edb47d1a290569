/**
 * The campaigns the projection knows are written and current (PROJECTION.md §6.3 `campaign_hash`):
 * per campaign key, its Id and a digest of what svc-sync wrote (the fields from its mirror row and
 * the mirror row's parent). A gift's target campaign whose digest is unchanged needs no read of its
 * ancestors' mirror rows and no Campaign read: its Id is taken from here. Kept beside the run
 * state, owner-only and written whole; lost or unreadable, the next run reads and compares instead.
 * A full run (`sync --all`) does not trust it but keeps it up to date.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { campaignFields, parentRowId } from '../../mapping/gifts/campaign.js';
import { writePrivateFile } from '../../model/privateFile.js';
import type { TreeRow } from './campaignRows.js';

const FILE = 'projected-campaigns.json';
const KEY = /^(Segment|Project|Team|Company|Action)_\d+$/;
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
const DIGEST = /^[0-9a-f]{64}$/;

export const campaignsBeside = (stateFile: string): string => path.join(path.dirname(stateFile), FILE);

interface Known {
  id: string;
  digest: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: string): Map<string, Known> {
  const out = new Map<string, Known>();
  const data: unknown = JSON.parse(text);
  if (!isRecord(data) || data.version !== 1 || !isRecord(data.campaigns)) return out;
  for (const [k, v] of Object.entries(data.campaigns)) {
    if (KEY.test(k) && isRecord(v) && typeof v.id === 'string' && SALESFORCE_ID.test(v.id) && typeof v.digest === 'string' && DIGEST.test(v.digest)) out.set(k, { id: v.id, digest: v.digest });
  }
  return out;
}

export class KnownCampaigns {
  private changed = false;
  /** False in a full run: every campaign is compared with the org (the digests still kept). */
  trusted = true;

  private constructor(
    readonly file: string,
    private readonly known: Map<string, Known>,
    private readonly timeZone: string,
  ) {}

  static open(file: string, timeZone: string): KnownCampaigns {
    try {
      return new KnownCampaigns(file, parse(fs.readFileSync(file, 'utf8')), timeZone);
    } catch {
      // Missing or not svc-sync's: only calls are lost, the campaigns are read and compared.
      return new KnownCampaigns(file, new Map(), timeZone);
    }
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
    const digest = this.digest(t);
    const k = this.known.get(t.key);
    if (k?.id === id && k.digest === digest) return;
    this.known.set(t.key, { id, digest });
    this.changed = true;
  }

  forget(key: string): void {
    if (this.known.delete(key)) this.changed = true;
  }

  save(): boolean {
    if (!this.changed) return true;
    try {
      writePrivateFile(this.file, `${JSON.stringify({ version: 1, campaigns: Object.fromEntries(this.known) })}\n`);
      this.changed = false;
      return true;
    } catch {
      return false;
    }
  }
}
