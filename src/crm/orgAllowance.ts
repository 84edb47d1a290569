/**
 * The org's daily API allowance is the org's, not a connection's (SITES.md decision 2): the
 * connections of one org share it. Each connection's guard (api.ts) goes by the freshest reading
 * any of them took: in this process (a `serve` holding both) through a map, and across processes
 * (cron runs of each, a `sync` beside a `serve`) through one small file per org in the
 * deployment's state folder, `allowance-<org>.json`, written whole (temp file, rename), owner-only,
 * and neither read nor written when that folder could be changed by another user. Platform
 * budgets stay per connection (platform/rateLimit.ts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { orgKey } from '../model/orgId.js';
import { writableByOthers } from '../model/ownerOnly.js';
import { writePrivateFile } from '../model/privateFile.js';

export interface AllowanceReading {
  used: number;
  limit: number;
  /** When it was read (ms since the epoch). */
  at: number;
}

/** A reading that arrived from another connection of the org, or from this one. */
type SharedReading = AllowanceReading & { elsewhere: boolean };

/** How often the file is read again: the guard runs before every call. */
const FILE_READ_MS = 1000;
/** How often it is written at most: every response brings a reading. */
const FILE_WRITE_MS = 1000;
/** A reading dated ahead of this machine's clock by more than this is not one of ours. */
const CLOCK_SLACK_MS = 60_000;

const inProcess = new Map<string, AllowanceReading>();
/** Folders judged once per process: the file is used only in one no other user can change. */
const trusted = new Map<string, boolean>();

/**
 * The key of an org as the session knows it: its instance's origin, with its id when the login gave
 * one (hashed: a file name). Logins to one org reach one instance; an id alone would join two
 * orgs a copy of one another's id (a test double, a restored sandbox record) never shares.
 */
export function allowanceKey(orgId: string | undefined, instanceUrl: () => string): string | undefined {
  let origin: string;
  try {
    origin = new URL(instanceUrl()).origin.toLowerCase();
  } catch {
    return undefined;
  }
  return createHash('sha256')
    .update(`${orgId === undefined ? '' : orgKey(orgId)}\n${origin}`)
    .digest('hex')
    .slice(0, 24);
}

function readingOf(data: unknown): AllowanceReading | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const { used, limit, at } = data as Record<string, unknown>;
  const when = typeof at === 'string' ? Date.parse(at) : NaN;
  if (typeof used !== 'number' || typeof limit !== 'number' || !Number.isFinite(when) || used < 0 || limit <= 0) return undefined;
  if (when > Date.now() + CLOCK_SLACK_MS) return undefined;
  return { used, limit, at: when };
}

const fresher = (a: AllowanceReading | undefined, b: AllowanceReading | undefined): AllowanceReading | undefined => (a === undefined ? b : b === undefined || a.at >= b.at ? a : b);

export class OrgAllowance {
  private fileRead: { at: number; reading: AllowanceReading | undefined } | undefined;
  private pending: { file: string; reading: AllowanceReading } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wroteAt = 0;

  /** `key`: the org, once the session knows it; `dir`: the deployment's state folder (none: this process only). */
  constructor(
    private readonly key: () => string | undefined,
    private readonly dir: string | undefined,
  ) {}

  private file(key: string): string | undefined {
    if (this.dir === undefined) return undefined;
    const dir = path.resolve(this.dir);
    let ok = trusted.get(dir);
    if (ok === undefined) trusted.set(dir, (ok = process.platform === 'win32' || writableByOthers(dir) === undefined));
    return ok ? path.join(dir, `allowance-${key}.json`) : undefined;
  }

  /**
   * A reading this connection took: kept for the others of its org (best effort: a full disk never
   * stops a call). The file is written at most once a FILE_WRITE_MS (a run's first reading at
   * once); a later one waits for the end of that time, so a burst of calls costs one write.
   */
  note(reading: AllowanceReading): void {
    const key = this.key();
    if (key === undefined) return;
    if (fresher(inProcess.get(key), reading) === reading) inProcess.set(key, reading);
    const file = this.file(key);
    if (file === undefined) return;
    this.pending = { file, reading };
    const wait = this.wroteAt + FILE_WRITE_MS - Date.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait).unref();
  }

  private flush(): void {
    const p = this.pending;
    this.pending = undefined;
    this.timer = undefined;
    if (p === undefined) return;
    this.wroteAt = Date.now();
    try {
      if (fresher(this.readFile(p.file, true), p.reading) !== p.reading) return;
      writePrivateFile(p.file, `${JSON.stringify({ used: p.reading.used, limit: p.reading.limit, at: new Date(p.reading.at).toISOString() })}\n`);
      this.fileRead = { at: Date.now(), reading: p.reading };
    } catch {
      // The state folder cannot be written: the run says so where its progress is saved.
    }
  }

  /** The freshest reading of the org: this connection's own, or one another connection took. */
  freshest(own: AllowanceReading | undefined): SharedReading | undefined {
    const key = this.key();
    const file = key === undefined ? undefined : this.file(key);
    const others = fresher(key === undefined ? undefined : inProcess.get(key), file === undefined ? undefined : this.readFile(file, false));
    const best = fresher(own, others);
    return best === undefined ? undefined : { ...best, elsewhere: best !== own };
  }

  private readFile(file: string, now: boolean): AllowanceReading | undefined {
    if (!now && this.fileRead !== undefined && Date.now() - this.fileRead.at < FILE_READ_MS) return this.fileRead.reading;
    let reading: AllowanceReading | undefined;
    try {
      reading = readingOf(JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch {
      reading = undefined; // None yet, or not one of ours: no reading.
    }
    this.fileRead = { at: Date.now(), reading };
    return reading;
  }
}
