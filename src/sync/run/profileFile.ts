/**
 * The platform's capability profile (model/platformProfile.ts), kept in a small JSON file beside
 * the run state so the next run plans with what this one learned. A missing, unreadable or
 * foreign file is no error: the profile is then learned again (it costs a few requests); what is
 * wrong with a file that is there is said as a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { oneLine } from '../../config/echo.js';
import type { CollectionProfile, PlatformProfile } from '../../model/platformProfile.js';
import { writePrivateFile } from '../../model/privateFile.js';

const PROFILE_FILE = 'platform-profile.json';

/** The profile file beside a state file (`.svc-sync/state.json` -> `.svc-sync/platform-profile.json`). */
export const profileFileBeside = (stateFile: string): string => path.join(path.dirname(stateFile), PROFILE_FILE);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A collection's entry, or what is wrong with it (keys of a newer release are left aside, not judged). */
function collectionOf(v: unknown): CollectionProfile | string {
  if (!isRecord(v)) return 'not an object';
  const out: CollectionProfile = {};
  for (const k of ['updatedAfter', 'createdAfter'] as const) {
    if (v[k] === undefined) continue;
    if (v[k] !== 'honoured' && v[k] !== 'ignored') return `${k} is not honoured or ignored`;
    out[k] = v[k];
  }
  if (v.pageSize !== undefined) {
    if (typeof v.pageSize !== 'number' || !Number.isInteger(v.pageSize) || v.pageSize < 1 || v.pageSize > 100) return 'pageSize is not a whole number from 1 to 100';
    out.pageSize = v.pageSize;
  }
  if (v.list !== undefined) {
    if (v.list !== 'complete' && v.list !== 'partial') return 'list is not complete or partial';
    out.list = v.list;
  }
  if (v.missing !== undefined) {
    if (!Array.isArray(v.missing) || !v.missing.every((m) => typeof m === 'string')) return 'missing is not a list of keys';
    out.missing = v.missing as string[];
  }
  if (v.sampled !== undefined) {
    if (!Array.isArray(v.sampled) || v.sampled.length > 100 || !v.sampled.every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id > 0)) return 'sampled is not a list of ids';
    out.sampled = v.sampled as number[];
  }
  if (v.unseen !== undefined) {
    if (!Array.isArray(v.unseen) || !v.unseen.every((m) => typeof m === 'string')) return 'unseen is not a list of keys';
    out.unseen = v.unseen as string[];
  }
  for (const k of ['listedSince', 'reread', 'checkedAt'] as const) {
    if (v[k] === undefined) continue;
    if (typeof v[k] !== 'string' || Number.isNaN(Date.parse(v[k]))) return `${k} is not a time`;
    out[k] = v[k];
  }
  if (v.records !== undefined) {
    if (typeof v.records !== 'number' || !Number.isSafeInteger(v.records) || v.records < 0) return 'records is not a whole number';
    out.records = v.records;
  }
  return out;
}

/** What the profile file holds: nothing yet, a profile, or why what it holds is not one (said, then learned again). */
type ProfileRead = { profile?: PlatformProfile; problem?: string };

export function readProfile(file: string): ProfileRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `platform profile ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ignored, the platform is learned again` };
  }
  const wrong = (why: string): ProfileRead => ({ problem: `platform profile ${file} is not one svc-sync wrote (${why}): ignored, the platform is learned again` });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return wrong('not JSON');
  }
  if (!isRecord(data)) return wrong('not a JSON object');
  if (typeof data.baseUrl !== 'string') return wrong('no baseUrl');
  if (typeof data.learnedAt !== 'string' || Number.isNaN(Date.parse(data.learnedAt))) return wrong('learnedAt is not a time');
  if (!isRecord(data.collections)) return wrong('no collections');
  if (data.rateLimitHeaders !== undefined && typeof data.rateLimitHeaders !== 'boolean') return wrong('rateLimitHeaders is not true or false');
  if (data.site !== undefined && !(typeof data.site === 'number' && Number.isSafeInteger(data.site) && data.site > 0)) return wrong('site is not a site id');
  const collections: Record<string, CollectionProfile> = {};
  for (const [k, v] of Object.entries(data.collections)) {
    const c = collectionOf(v);
    if (typeof c === 'string') return wrong(`collections.${oneLine(k, 40)}: ${c}`);
    collections[k] = c;
  }
  const site = typeof data.site === 'number' ? { site: data.site } : {};
  return { profile: { baseUrl: data.baseUrl, learnedAt: data.learnedAt, collections, ...(typeof data.rateLimitHeaders === 'boolean' ? { rateLimitHeaders: data.rateLimitHeaders } : {}), ...site } };
}

/** Written atomically (temp file, then rename); a failure to write is not worth failing a run for. */
export function writeProfile(file: string, profile: PlatformProfile): boolean {
  try {
    writePrivateFile(file, `${JSON.stringify(profile, null, 2)}\n`);
    return true;
  } catch {
    return false;
  }
}

/** A profile file one process writes while another (a `sync` beside `serve`) may write it too. */
export class ProfileWatch {
  /** The file's mtime and size as this process last wrote or looked at it. */
  private seen: string;

  constructor(readonly file: string) {
    this.seen = this.stamp();
  }

  /** Whether another process wrote the file since this one last wrote or asked. */
  changedElsewhere(): boolean {
    const now = this.stamp();
    const changed = now !== this.seen && now !== '';
    this.seen = now;
    return changed;
  }

  write(profile: PlatformProfile): void {
    if (writeProfile(this.file, profile)) this.seen = this.stamp();
  }

  private stamp(): string {
    try {
      const stat = fs.statSync(this.file);
      return `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return '';
    }
  }
}
