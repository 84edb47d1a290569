/**
 * What the projection last wrote per donation (PROJECTION.md §6.3 `gift_hash`): a digest of the
 * donation as the platform sent it and of the settings that shape its records, kept beside the run
 * state, owner-only and written whole. A donation whose digest is unchanged is not projected again
 * (no read, no write). The file only saves calls: lost or unreadable, the next run compares with
 * the org instead and reaches the same records.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ApiDonation } from '../../model/apiRecords.js';
import { KeptMap, SHA256_HEX } from './keptMap.js';

const FILE = 'projected-gifts.json';
/** Changes when what a donation's records are made of changes: every digest of an older writer is stale. */
const WRITER_VERSION = 'npc-1';

/** The file beside a state file (`.svc-sync/state.json` -> `.svc-sync/projected-gifts.json`). */
export const projectedBeside = (stateFile: string): string => path.join(path.dirname(stateFile), FILE);

/** Keys in a fixed order, so the same record gives the same digest whatever order its fields came in. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class ProjectedGifts {
  private constructor(private readonly kept: KeptMap<string>) {}

  static open(file: string): ProjectedGifts {
    return new ProjectedGifts(
      new KeptMap<string>(file, {
        what: 'projected gifts',
        field: 'digests',
        without: 'every donation is compared with the org',
        entryIs: 'a donation key with a digest',
        strict: false,
        entry: (k, v) => (/^Donation_\d+$/.test(k) && typeof v === 'string' && SHA256_HEX.test(v) ? v : undefined),
        same: (a, b) => a === b,
      }),
    );
  }

  get file(): string {
    return this.kept.file;
  }

  /** What is wrong with the file found (said once as a warning), if anything. */
  get problem(): string | undefined {
    return this.kept.problem;
  }

  /** The digest of a donation under the settings that shape its records. */
  static digest(d: ApiDonation, settings: unknown): string {
    return createHash('sha256')
      .update(`${WRITER_VERSION}\n${canonicalJson(settings)}\n${canonicalJson(d)}`)
      .digest('hex');
  }

  /** The donation was projected as it is now, with nothing left to do. */
  done(key: string, digest: string): boolean {
    return this.kept.get(key) === digest;
  }

  set(key: string, digest: string): void {
    this.kept.set(key, digest);
  }

  /** Forgets a donation (it failed, or is to be compared again). */
  forget(key: string): void {
    this.kept.delete(key);
  }

  /** Writes the file when something changed (a dry run never calls this); false when it could not be written. */
  save(): boolean {
    return this.kept.save();
  }
}
