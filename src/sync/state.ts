/**
 * Resumable progress of `sync`, kept in a small JSON file written atomically (temp + rename), so
 * an interrupted run resumes where it stopped and the next run continues from the last
 * completed watermark.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { OBJECT_TYPES, type ObjectRef, type SyncableType } from '../model/objects.js';
import { parsePositiveId } from '../model/refs.js';

export interface RunProgress {
  /** When the interrupted run started: its watermark once it completes. */
  startedAt: string;
  /** The updated_after the run scans from; null for a full (--all) run. */
  since: string | null;
  types: SyncableType[];
  completed: SyncableType[];
  /** Pages of the type in progress whose records are written. */
  pagesDone: Partial<Record<SyncableType, number>>;
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
    if (!isState(data)) throw new ConfigError(`state file ${this.file}: not a svc-sync state file (delete it to start over)`);
    return data;
  }

  write(state: SyncState): void {
    fs.mkdirSync(path.dirname(path.resolve(this.file)), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
  }
}

function isState(v: unknown): v is SyncState {
  if (v === null || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  if (s.version !== 1) return false;
  if (s.watermarks !== undefined && (typeof s.watermarks !== 'object' || s.watermarks === null || !Object.entries(s.watermarks).every(([t, w]) => (OBJECT_TYPES as readonly string[]).includes(t) && typeof w === 'string'))) return false;
  if (s.retry !== undefined && !(Array.isArray(s.retry) && s.retry.every(isRef))) return false;
  if (s.run === undefined) return true;
  const r = s.run as Record<string, unknown>;
  const typeList = (x: unknown): boolean => Array.isArray(x) && x.every((t) => typeof t === 'string' && (OBJECT_TYPES as readonly string[]).includes(t));
  return typeof r.startedAt === 'string' && (r.since === null || typeof r.since === 'string') && typeList(r.types) && typeList(r.completed) && typeof r.pagesDone === 'object' && r.pagesDone !== null;
}

function isRef(v: unknown): v is ObjectRef {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return typeof r.type === 'string' && (OBJECT_TYPES as readonly string[]).includes(r.type) && r.type !== 'question' && typeof r.id === 'number' && parsePositiveId(r.id) !== undefined;
}

export function watermarkFrom(startedAt: string): string {
  return new Date(Date.parse(startedAt) - WATERMARK_OVERLAP_MS).toISOString();
}
