/**
 * The stored donor links (PROJECTION.md §1.3 step 1, §6.3): donor key -> Account Id, in a small
 * JSON file beside the run state, owner-only and written whole (model/privateFile.ts). The links
 * only save calls: a missing, unreadable or foreign file is no error (the donors are found again
 * by key and email), and what is wrong with a file that is there is said as a warning.
 */
import path from 'node:path';
import type { DonorLinks } from './donorContext.js';
import { KeptMap, SALESFORCE_ID } from './keptMap.js';

const LINKS_FILE = 'donor-links.json';
const MAX_KEY = 255;

/** The links file beside a state file (`.svc-sync/state.json` -> `.svc-sync/donor-links.json`). */
export const donorLinksBeside = (stateFile: string): string => path.join(path.dirname(stateFile), LINKS_FILE);

export class FileDonorLinks implements DonorLinks {
  private constructor(private readonly kept: KeptMap<string>) {}

  static open(file: string): FileDonorLinks {
    return new FileDonorLinks(
      new KeptMap<string>(file, {
        what: 'donor links',
        field: 'links',
        without: 'donors are found again by key and email',
        // One link that is not a key with an Id: the file is not ours, none of it is trusted.
        entryIs: 'a donor key with a Salesforce Id',
        strict: true,
        entry: (k, v) => (k !== '' && k.length <= MAX_KEY && typeof v === 'string' && SALESFORCE_ID.test(v) ? v : undefined),
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

  get(key: string): string | undefined {
    return this.kept.get(key);
  }

  set(key: string, id: string): void {
    this.kept.set(key, id);
  }

  get size(): number {
    return this.kept.size;
  }

  /** Writes the file when a link changed (a dry run never calls this); false when it could not be written. */
  save(): boolean {
    return this.kept.save();
  }
}
