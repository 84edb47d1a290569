/**
 * The stored donor links (PROJECTION.md §1.3 step 1, §6.3): donor key -> Account Id, in a small
 * JSON file beside the run state, owner-only and written whole (model/privateFile.ts). The links
 * only save calls: a missing, unreadable or foreign file is no error (the donors are found again
 * by key and email), and what is wrong with a file that is there is said as a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../../model/privateFile.js';
import type { DonorLinks } from './donors.js';

const LINKS_FILE = 'donor-links.json';
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
const MAX_KEY = 255;

/** The links file beside a state file (`.svc-sync/state.json` -> `.svc-sync/donor-links.json`). */
export const donorLinksBeside = (stateFile: string): string => path.join(path.dirname(stateFile), LINKS_FILE);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The links a file holds, or why it holds none svc-sync wrote. */
function parse(text: string): Map<string, string> | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isRecord(data) || data.version !== 1 || !isRecord(data.links)) return 'not {"version": 1, "links": {...}}';
  const links = new Map<string, string>();
  for (const [k, v] of Object.entries(data.links)) {
    if (k === '' || k.length > MAX_KEY || typeof v !== 'string' || !SALESFORCE_ID.test(v)) return 'a link is not a donor key with a Salesforce Id';
    links.set(k, v);
  }
  return links;
}

export class FileDonorLinks implements DonorLinks {
  private changed = false;

  private constructor(
    readonly file: string,
    private readonly links: Map<string, string>,
    /** What is wrong with the file found (said once as a warning), if anything. */
    readonly problem?: string,
  ) {}

  static open(file: string): FileDonorLinks {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT') return new FileDonorLinks(file, new Map());
      return new FileDonorLinks(file, new Map(), `donor links ${file} cannot be read (${code}): ignored, donors are found again by key and email`);
    }
    const parsed = parse(text);
    if (typeof parsed === 'string') return new FileDonorLinks(file, new Map(), `donor links ${file} are not ones svc-sync wrote (${parsed}): ignored, donors are found again by key and email`);
    return new FileDonorLinks(file, parsed);
  }

  get(key: string): string | undefined {
    return this.links.get(key);
  }

  set(key: string, id: string): void {
    if (this.links.get(key) === id) return;
    this.links.set(key, id);
    this.changed = true;
  }

  get size(): number {
    return this.links.size;
  }

  /** Writes the file when a link changed (a dry run never calls this); false when it could not be written. */
  save(): boolean {
    if (!this.changed) return true;
    try {
      writePrivateFile(this.file, `${JSON.stringify({ version: 1, links: Object.fromEntries(this.links) })}\n`);
      this.changed = false;
      return true;
    } catch {
      return false;
    }
  }
}
