/**
 * What the projection last wrote per donation (PROJECTION.md §6.3 `gift_hash`): a digest of the
 * donation as the platform sent it and of the settings that shape its records, kept beside the run
 * state, owner-only and written whole. A donation whose digest is unchanged is not projected again
 * (no read, no write). The file only saves calls: lost or unreadable, the next run compares with
 * the org instead and reaches the same records.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ApiDonation } from '../../model/apiRecords.js';
import { writePrivateFile } from '../../model/privateFile.js';

const FILE = 'projected-gifts.json';
const DIGEST = /^[0-9a-f]{64}$/;
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
  private changed = false;

  private constructor(
    readonly file: string,
    private readonly digests: Map<string, string>,
    /** What is wrong with the file found (said once as a warning), if anything. */
    readonly problem?: string,
  ) {}

  static open(file: string): ProjectedGifts {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return new ProjectedGifts(file, new Map(), code === 'ENOENT' ? undefined : `projected gifts ${file} cannot be read (${code}): ignored, every donation is compared with the org`);
    }
    try {
      const data = JSON.parse(text) as { version?: unknown; digests?: unknown };
      if (data.version !== 1 || typeof data.digests !== 'object' || data.digests === null || Array.isArray(data.digests)) throw new Error('shape');
      const digests = new Map<string, string>();
      for (const [k, v] of Object.entries(data.digests)) if (/^Donation_\d+$/.test(k) && typeof v === 'string' && DIGEST.test(v)) digests.set(k, v);
      return new ProjectedGifts(file, digests);
    } catch {
      return new ProjectedGifts(file, new Map(), `projected gifts ${file} are not ones svc-sync wrote: ignored, every donation is compared with the org`);
    }
  }

  /** The digest of a donation under the settings that shape its records. */
  static digest(d: ApiDonation, settings: unknown): string {
    return createHash('sha256')
      .update(`${WRITER_VERSION}\n${canonicalJson(settings)}\n${canonicalJson(d)}`)
      .digest('hex');
  }

  /** The donation was projected as it is now, with nothing left to do. */
  done(key: string, digest: string): boolean {
    return this.digests.get(key) === digest;
  }

  set(key: string, digest: string): void {
    if (this.digests.get(key) === digest) return;
    this.digests.set(key, digest);
    this.changed = true;
  }

  /** Forgets a donation (it failed, or is to be compared again). */
  forget(key: string): void {
    if (this.digests.delete(key)) this.changed = true;
  }

  /** Writes the file when something changed (a dry run never calls this); false when it could not be written. */
  save(): boolean {
    if (!this.changed) return true;
    try {
      writePrivateFile(this.file, `${JSON.stringify({ version: 1, digests: Object.fromEntries(this.digests) })}\n`);
      this.changed = false;
      return true;
    } catch {
      return false;
    }
  }
}
