/**
 * The platform's capability profile (model/platformProfile.ts), kept in a small JSON file beside
 * the run state so the next run plans with what this one learned. A missing, unreadable or
 * foreign file is no error: the profile is then learned again (it costs a request or two).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CollectionProfile, PlatformProfile } from '../model/platformProfile.js';

const PROFILE_FILE = 'platform-profile.json';

/** The profile file beside a state file (`.svc-sync/state.json` -> `.svc-sync/platform-profile.json`). */
export const profileFileBeside = (stateFile: string): string => path.join(path.dirname(stateFile), PROFILE_FILE);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function collectionOf(v: unknown): CollectionProfile | undefined {
  if (!isRecord(v)) return undefined;
  const out: CollectionProfile = {};
  for (const k of ['updatedAfter', 'createdAfter'] as const) if (v[k] === 'honoured' || v[k] === 'ignored') out[k] = v[k];
  if (typeof v.pageSize === 'number' && Number.isInteger(v.pageSize) && v.pageSize >= 1 && v.pageSize <= 100) out.pageSize = v.pageSize;
  if (v.list === 'complete' || v.list === 'partial') out.list = v.list;
  if (Array.isArray(v.missing) && v.missing.every((m) => typeof m === 'string')) out.missing = v.missing as string[];
  if (typeof v.records === 'number' && Number.isSafeInteger(v.records) && v.records >= 0) out.records = v.records;
  return out;
}

export function readProfile(file: string): PlatformProfile | undefined {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(data) || typeof data.baseUrl !== 'string' || typeof data.learnedAt !== 'string' || Number.isNaN(Date.parse(data.learnedAt)) || !isRecord(data.collections)) return undefined;
  const collections: Record<string, CollectionProfile> = {};
  for (const [k, v] of Object.entries(data.collections)) {
    const c = collectionOf(v);
    if (c) collections[k] = c;
  }
  return { baseUrl: data.baseUrl, learnedAt: data.learnedAt, collections, ...(typeof data.rateLimitHeaders === 'boolean' ? { rateLimitHeaders: data.rateLimitHeaders } : {}) };
}

/** Written atomically (temp file, then rename); a failure to write is not worth failing a run for. */
export function writeProfile(file: string, profile: PlatformProfile): boolean {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(profile, null, 2)}\n`);
    fs.renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}
