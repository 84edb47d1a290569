/**
 * Resumable progress of `sync`, kept in a small JSON file written atomically (temp + rename), so
 * an interrupted run resumes where it stopped and the next run continues from the last
 * completed watermark.
 */
import fs from 'node:fs';
import { echo } from '../../config/echo.js';
import { ConfigError } from '../../model/errors.js';
import { writePrivateFile } from '../../model/privateFile.js';
import { OBJECT_TYPES, type ObjectRef, type SyncableType } from '../../model/objects.js';
import { parsePositiveId, refOfKey } from '../../model/refs.js';

/** A parent a run found absent from the platform, and how: a 404 by id, or not on a complete list scan. */
export interface AbsentParent {
  key: string;
  by: 'id' | 'scan';
}

export interface RunProgress {
  /** When the interrupted run started: its watermark once it completes. */
  startedAt: string;
  /** The updated_after the run scans from; null for a full (--all) run. */
  since: string | null;
  types: SyncableType[];
  completed: SyncableType[];
  /** Pages of the type in progress whose records are written. */
  pagesDone: Partial<Record<SyncableType, number>>;
  /**
   * Parents the run found absent from the platform so far (a 404 by id, or not on a complete list
   * scan): a resumed run takes them as found instead of asking again for what is not there.
   */
  absent?: AbsentParent[];
}

export interface SyncState {
  version: 1;
  /**
   * Per type, the start of the last completed run that scanned it (less an overlap): the next
   * incremental run scans that type from here. Per type, so a `--types` run moves only its own.
   */
  watermarks?: Partial<Record<SyncableType, string>>;
  run?: RunProgress;
  /**
   * Records that failed: the next run syncs them again by id, whatever their updated_at, so the
   * watermark can move on without leaving them behind.
   */
  retry?: ObjectRef[];
}

/** Records updated while a run is under way, or stamped by a skewed clock, are scanned again. */
export const WATERMARK_OVERLAP_MS = 5 * 60 * 1000;

export class StateFile {
  constructor(readonly file: string) {}

  read(): SyncState {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1 };
      throw new ConfigError(`state file ${this.file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ConfigError(`state file ${this.file}: not valid JSON (delete it to start over)`);
    }
    const problem = stateProblem(data, Date.now());
    if (problem) throw new ConfigError(`state file ${this.file}: ${problem.what}; ${problem.fix}`);
    return data as SyncState;
  }

  write(state: SyncState): void {
    writePrivateFile(this.file, `${JSON.stringify(state, null, 2)}\n`, { fsync: true });
  }
}

/**
 * Pages of one list a run can have done: 100 records a page, so a billion records. More is a
 * damaged file, and taking it as is would skip the whole list and move the watermark as if done.
 */
const MAX_PAGES_DONE = 10_000_000;

/** ISO 8601 date-time as this tool writes it (and as the API accepts in updated_after). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** What is wrong, and how to put it right; the caller names the file. */
interface Problem {
  what: string;
  fix: string;
}

const SYNCABLE: ReadonlySet<string> = new Set(OBJECT_TYPES.filter((t) => t !== 'question'));
const START_OVER = 'delete the file and run `svc-sync sync --all` (or --since) to start over';
const DROP_RUN = 'remove its "run" entry to drop the interrupted run (the next run starts it again)';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const isDate = (v: unknown): v is string => typeof v === 'string' && ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));

function shown(v: unknown): string {
  return echo(typeof v === 'string' ? v : String(JSON.stringify(v)), 40);
}

/** The first problem of a parsed state file, or undefined when every field is valid. */
function stateProblem(v: unknown, now: number): Problem | undefined {
  if (!isRecord(v) || v.version !== 1) return { what: 'not a svc-sync state file (version 1)', fix: START_OVER };
  if (v.watermarks !== undefined) {
    if (!isRecord(v.watermarks)) return { what: 'watermarks must be an object', fix: START_OVER };
    for (const [t, w] of Object.entries(v.watermarks)) {
      if (!SYNCABLE.has(t)) return { what: `watermarks: unknown object type ${shown(t)}`, fix: 'remove that entry' };
      if (!isDate(w)) return { what: `watermarks.${t} must be an ISO 8601 date-time, not ${shown(w)}`, fix: `fix it, or remove it and run \`svc-sync sync --since <iso8601> --types ${t}\`` };
      // A run from a watermark later than now reads nothing and moves past every change since the last run.
      if (Date.parse(w) > now + WATERMARK_OVERLAP_MS) {
        return {
          what: `watermarks.${t} ${shown(w)} lies in the future: a run from it would read nothing and skip every change since the last run`,
          fix: `if this machine's clock is right, run \`svc-sync sync --since <iso8601> --types ${t}\` from the last good run`,
        };
      }
    }
  }
  if (v.retry !== undefined) {
    if (!Array.isArray(v.retry)) return { what: 'retry must be a list of {type, id}', fix: 'remove the "retry" entry (those records are then synced by the next scan that sees them)' };
    const bad = v.retry.findIndex((r) => !isRef(r));
    if (bad >= 0) return { what: `retry[${bad}] must be {"type": <object type>, "id": <positive whole number>}, not ${shown(v.retry[bad])}`, fix: 'fix or remove that entry' };
  }
  if (v.run === undefined) return undefined;
  const r = v.run;
  if (!isRecord(r)) return { what: 'run must be an object', fix: DROP_RUN };
  if (!isDate(r.startedAt)) return { what: `run.startedAt must be an ISO 8601 date-time, not ${shown(r.startedAt)}`, fix: DROP_RUN };
  if (r.since !== null && !isDate(r.since)) return { what: `run.since must be null or an ISO 8601 date-time, not ${shown(r.since)}`, fix: DROP_RUN };
  for (const list of ['types', 'completed'] as const) {
    const x = r[list];
    if (!Array.isArray(x) || !x.every((t) => typeof t === 'string' && SYNCABLE.has(t))) return { what: `run.${list} must be a list of object types, not ${shown(x)}`, fix: DROP_RUN };
  }
  if (r.absent !== undefined) {
    if (!Array.isArray(r.absent)) return { what: 'run.absent must be a list of {key, by}', fix: DROP_RUN };
    const bad = r.absent.findIndex((a) => !isRecord(a) || typeof a.key !== 'string' || refOfKey(a.key) === undefined || (a.by !== 'id' && a.by !== 'scan'));
    if (bad >= 0) return { what: `run.absent[${bad}] must be {"key": <a record key>, "by": "id" | "scan"}, not ${shown(r.absent[bad])}`, fix: DROP_RUN };
  }
  if (!isRecord(r.pagesDone)) return { what: 'run.pagesDone must be an object', fix: DROP_RUN };
  for (const [t, n] of Object.entries(r.pagesDone)) {
    if (!SYNCABLE.has(t)) return { what: `run.pagesDone: unknown object type ${shown(t)}`, fix: DROP_RUN };
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_PAGES_DONE) {
      return { what: `run.pagesDone.${t} must be a whole number of pages from 0 to ${MAX_PAGES_DONE}, not ${shown(n)}`, fix: DROP_RUN };
    }
  }
  return undefined;
}

function isRef(v: unknown): v is ObjectRef {
  if (!isRecord(v)) return false;
  return typeof v.type === 'string' && SYNCABLE.has(v.type) && typeof v.id === 'number' && parsePositiveId(v.id) !== undefined;
}

export function watermarkFrom(startedAt: string): string {
  return new Date(Date.parse(startedAt) - WATERMARK_OVERLAP_MS).toISOString();
}
