/**
 * Shared by the end-to-end tests: temp directories, the built CLI with --json parsed, and an
 * independent reading of SPEC 2.4-2.9 (keys and the lookup cascade) to check what the emulator holds.
 * Nothing here imports src/: the tests judge the product against the spec, not against itself.
 */
import { expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot, runCli, type CliResult } from '../../fixtures/cli.js';
import type { Site, SiteOptions } from '../../fixtures/platform/site.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { EmulatorRecord } from '../../fixtures/salesforce/emulator.js';
import type { ApiDonation, ApiQuestion, ResourceType } from '../../src/model/apiRecords.js';
import { tempFolders } from '../support/tempFolders.js';

// These tests spawn the built CLI (bin/svc-sync.js -> the bundle dist/cli.js): say so plainly
// when it is not built, or older than what tsc emitted (tsc run alone, without the bundle step).
const BUILT = path.join(packageRoot(), 'dist', 'cli.js');
const EMITTED = path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
if (!fs.existsSync(BUILT)) throw new Error(`${BUILT} is missing: build first (npm run build, or npm test)`);
if (fs.existsSync(EMITTED) && fs.statSync(EMITTED).mtimeMs > fs.statSync(BUILT).mtimeMs) throw new Error(`${BUILT} is older than ${EMITTED}: run npm run build (it bundles after tsc)`);

export type Value = string | number | boolean | null;

export interface Counts {
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
}

export interface Outcome {
  object: string;
  key: string;
  action: 'insert' | 'update' | 'skip' | 'fail';
  changes?: Record<string, { from: Value; to: Value }>;
  reason?: string;
  error?: { code: string; message: string };
  warnings?: string[];
}

export interface MissingParentRow {
  object: string;
  key: string;
  /** null when the record names no parent that can be read. */
  parent: string | null;
  reason: string;
}

export interface Result {
  command: string;
  dryRun: boolean;
  summary: Record<string, Counts>;
  requests: { platform: number; salesforce: number };
  records: Outcome[];
  missingParents: MissingParentRow[];
  stopped?: string;
  /** sync */
  resumed?: boolean;
  since?: string | null;
  watermarks?: Record<string, string>;
  retried?: number;
  retryNextRun?: number;
  /** replay */
  input?: {
    records: number;
    duplicates: number;
    badLines: Array<{ line: number; reason: string }>;
    ignored?: Array<{ reason: string; count: number; lines: number[] }>;
    usersUpdate?: { users: number; actions: number };
  };
}

export interface Envelope {
  status: number;
  result: Result;
  warnings: string[];
}

export interface JsonRun {
  code: number;
  body: Envelope;
  stdout: string;
  stderr: string;
}

export const OBJECTS = ['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Action__c', 'Svc_ActionQuestion__c', 'Svc_Donation__c', 'Svc_NewsletterSubscription__c'] as const;
export type ObjectName = (typeof OBJECTS)[number];

type Synced = Exclude<ResourceType, 'user'>;

/** SPEC 1.1 / 2.x: key scheme and object of each platform type. */
export const OBJECT_OF: Record<Synced, ObjectName> = {
  segment: 'Svc_Segment__c',
  project: 'Svc_Project__c',
  team: 'Svc_Team__c',
  company: 'Svc_Company__c',
  action: 'Svc_Action__c',
  donation: 'Svc_Donation__c',
  newsletter_subscription: 'Svc_NewsletterSubscription__c',
};

const KEY_PREFIX: Record<Synced, string> = {
  segment: 'Segment',
  project: 'Project',
  team: 'Team',
  company: 'Company',
  action: 'Action',
  donation: 'Donation',
  newsletter_subscription: 'NewsletterSubscription',
};

export const keyOf = (type: Synced, id: number): string => `${KEY_PREFIX[type]}_${id}`;
export const questionKey = (actionId: number, questionId: number): string => `ActionQuestion_${actionId}.${questionId}`;

interface CascadeRule {
  /** API field holding the parent's id. */
  idField: string;
  parent: Synced;
  direct: string;
  inherit: string[];
}

/** SPEC 2.3-2.9, the cascade tables, most specific parent first. */
const CASCADE: Record<Synced, { lookups: string[]; rules: CascadeRule[] }> = {
  segment: { lookups: [], rules: [] },
  project: { lookups: ['Svc_Segment__c'], rules: [{ idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] }] },
  team: {
    lookups: ['Svc_Project__c', 'Svc_Segment__c'],
    rules: [
      { idField: 'project_id', parent: 'project', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
      { idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] },
    ],
  },
  company: {
    lookups: ['Svc_Project__c', 'Svc_Segment__c'],
    rules: [
      { idField: 'project_id', parent: 'project', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
      { idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] },
    ],
  },
  action: {
    lookups: ['Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c'],
    rules: [
      { idField: 'team_id', parent: 'team', direct: 'Svc_Team__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
      { idField: 'company_id', parent: 'company', direct: 'Svc_Company__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
      { idField: 'project_id', parent: 'project', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
      { idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] },
    ],
  },
  donation: {
    lookups: ['Svc_Action__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Project__c', 'Svc_Segment__c'],
    rules: [
      { idField: 'action_id', parent: 'action', direct: 'Svc_Action__c', inherit: ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c'] },
      { idField: 'team_id', parent: 'team', direct: 'Svc_Team__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
      { idField: 'company_id', parent: 'company', direct: 'Svc_Company__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] },
      { idField: 'project_id', parent: 'project', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
      { idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] },
    ],
  },
  newsletter_subscription: {
    lookups: ['Svc_Project__c', 'Svc_Segment__c'],
    rules: [
      { idField: 'project_id', parent: 'project', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] },
      { idField: 'segment_id', parent: 'segment', direct: 'Svc_Segment__c', inherit: [] },
    ],
  },
};

export const LOOKUPS_OF = (type: Synced): string[] => CASCADE[type].lookups;

/**
 * The one request `sync` and `serve` make at start to check that SVC_API_URL is the platform's
 * API (docs/administration.md, `sync`): the first segment of the list. Request-count assertions leave it out.
 */
export const isStartCheck = (e: { url: string }): boolean => e.url === '/v1/segments?page=1&per_page=1';

/** A test's working folder; every one a file makes is removed after its last test (tempFolders). */
export const tempCwd: (label: string) => string = tempFolders('svc-sync-e2e-');

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function cli(stack: Stack, args: string[], cwd: string, input?: string, env: Record<string, string> = stack.env): Promise<CliResult> {
  return runCli(args, { env, cwd, input });
}

/** Runs with --json and parses stdout, which must hold exactly one JSON document. */
export async function cliJson(stack: Stack, args: string[], cwd: string, input?: string, env: Record<string, string> = stack.env): Promise<JsonRun> {
  const res = await runCli(['--json', ...args], { env, cwd, input });
  let body: Envelope;
  try {
    body = JSON.parse(res.stdout) as Envelope;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${res.code}):\n${res.stdout}\nstderr:\n${res.stderr}`);
  }
  return { code: res.code, body, stdout: res.stdout, stderr: res.stderr };
}

/** The documented envelope: {status, result: {command, dryRun, summary, requests, records, missingParents}, warnings}. */
export function expectEnvelope(run: JsonRun, command: string, dryRun: boolean): void {
  const { body } = run;
  expect(body.status).toBe(run.code);
  expect(Array.isArray(body.warnings)).toBe(true);
  expect(body.result.command).toBe(command);
  expect(body.result.dryRun).toBe(dryRun);
  expect(Object.keys(body.result.summary).sort()).toEqual([...OBJECTS].sort());
  for (const counts of Object.values(body.result.summary)) {
    expect(Object.keys(counts).sort()).toEqual(['failed', 'inserted', 'skipped', 'unchanged', 'updated']);
  }
  expect(typeof body.result.requests.platform).toBe('number');
  expect(typeof body.result.requests.salesforce).toBe('number');
  expect(Array.isArray(body.result.records)).toBe(true);
  expect(Array.isArray(body.result.missingParents)).toBe(true);
  const allowed = new Set(['object', 'key', 'action', 'changes', 'reason', 'error', 'warnings']);
  for (const r of body.result.records) {
    expect(OBJECTS).toContain(r.object);
    expect(typeof r.key).toBe('string');
    expect(['insert', 'update', 'skip', 'fail']).toContain(r.action);
    for (const k of Object.keys(r)) expect(allowed.has(k)).toBe(true);
    if (r.action === 'fail') expect(typeof r.error?.code).toBe('string');
  }
}

/** Summary totals over all objects. */
export function totals(result: Result): Counts {
  const sum: Counts = { inserted: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const c of Object.values(result.summary)) {
    sum.inserted += c.inserted;
    sum.updated += c.updated;
    sum.unchanged += c.unchanged;
    sum.skipped += c.skipped;
    sum.failed += c.failed;
  }
  return sum;
}

/** Write calls of the mirror: those of the sync log in the org (its run and error records) are not counted. */
export function writeCalls(stack: Stack): number {
  const c = stack.salesforce.calls();
  const log = stack.salesforce.requests().filter((r) => /\/composite\/sobjects\/Svc_Sync(Run|Error)__c\//.test(r)).length;
  return c.collections + c.bulk - log;
}

export function recordCount(stack: Stack): number {
  return OBJECTS.reduce((n, o) => n + stack.salesforce.records(o).length, 0);
}

/** SPEC 1.1 donation filter. */
export function donationSynced(d: ApiDonation): boolean {
  return ['paid', 'refunded', 'chargedback'].includes(d.payment_status ?? '') && Number(d.total_amount) !== 0;
}

/** A stack, a scratch folder and one donation the sync writes: the set-up of a file that attacks one record. */
export interface VictimStack {
  stack: Stack;
  cwd: string;
  victim: ApiDonation;
}

export async function stackWithVictim(label: string, site: SiteOptions): Promise<VictimStack> {
  const stack = await startStack({ site });
  const victim = stack.platform.site.donation.find(donationSynced);
  if (!victim) {
    await stack.close();
    throw new Error('no synced donation on the site');
  }
  return { stack, cwd: tempCwd(label), victim };
}

/** SPEC 2.7 filter: a blank answer is skipped. */
export function questionSynced(q: ApiQuestion): boolean {
  return typeof q.answer === 'string' && q.answer.trim() !== '';
}

export type SiteRecord = { id: number } & Record<string, unknown>;

function findApi(site: Site, type: Synced, id: number): SiteRecord | undefined {
  return (site[type] as unknown as SiteRecord[]).find((r) => r.id === id);
}

/** A platform id: a positive whole number, or one written as a numeric string. */
function idOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/**
 * SPEC 2.9 and the real API: a subscription names its entity as a nested `entity` object, as
 * top-level entity_type + entity_id, or as project_id / segment_id, in that order of preference;
 * the type in any case. Returned in the last form, which the cascade rules read.
 */
function subscriptionLink(record: SiteRecord): SiteRecord {
  const nested = record.entity as { entity_type?: unknown; entity_id?: unknown } | null | undefined;
  const pairs = [nested ?? {}, { entity_type: record.entity_type, entity_id: record.entity_id }];
  const pair = pairs.find((p) => given(p.entity_type) || given(p.entity_id));
  if (!pair) return record;
  const kind = typeof pair.entity_type === 'string' ? pair.entity_type.trim().toLowerCase() : '';
  const id = idOf(pair.entity_id);
  return { id: record.id, project_id: kind === 'project' ? id : undefined, segment_id: kind === 'segment' ? id : undefined };
}

/** The parent the spec names: the first rule whose id is given; a malformed id names none. */
function parentRule(type: Synced, record: SiteRecord): { rule: CascadeRule; id: number } | undefined {
  const rec = type === 'newsletter_subscription' ? subscriptionLink(record) : record;
  for (const rule of CASCADE[type].rules) {
    const raw = rec[rule.idField];
    if (!given(raw)) continue;
    const id = idOf(raw);
    return id === undefined ? undefined : { rule, id };
  }
  return undefined;
}

/** The platform record a subscription is linked to per SPEC 2.9, when it names one that exists. */
export function subscriptionEntity(site: Site, record: SiteRecord): { type: 'project' | 'segment'; id: number } | undefined {
  const found = parentRule('newsletter_subscription', record);
  if (!found || !findApi(site, found.rule.parent, found.id)) return undefined;
  return { type: found.rule.parent as 'project' | 'segment', id: found.id };
}

/** The emulator's record for a platform record, which must exist. */
export function sfRecord(stack: Stack, type: Synced, id: number): EmulatorRecord {
  const rec = stack.salesforce.get(OBJECT_OF[type], keyOf(type, id));
  if (!rec) throw new Error(`${OBJECT_OF[type]} ${keyOf(type, id)} is not in the emulator`);
  return rec;
}

/**
 * The record is in the emulator with every lookup per SPEC: the direct lookup holds the parent's
 * Salesforce Id, the inherited ones equal the parent's, all others are empty; then the same for
 * the parent, up to the segment.
 */
export function expectLinked(stack: Stack, site: Site, type: Synced, id: number): void {
  const rec = sfRecord(stack, type, id);
  const api = findApi(site, type, id);
  if (!api) throw new Error(`no ${type} ${id} on the platform`);
  // A parent that is named but does not exist on the platform leaves every lookup empty.
  const named = parentRule(type, api);
  const found = named && findApi(site, named.rule.parent, named.id) ? named : undefined;
  const expected: Record<string, Value> = Object.fromEntries(CASCADE[type].lookups.map((f) => [f, null]));
  if (found) {
    const parent = sfRecord(stack, found.rule.parent, found.id);
    expected[found.rule.direct] = parent.Id;
    for (const f of found.rule.inherit) expected[f] = parent[f] ?? null;
  }
  const actual = Object.fromEntries(CASCADE[type].lookups.map((f) => [f, rec[f] ?? null]));
  expect({ key: rec.SvcId__c, ...actual }).toEqual({ key: keyOf(type, id), ...expected });
  if (found) expectLinked(stack, site, found.rule.parent, found.id);
}

/** Every record of the site that the spec says is synced, by object and key. */
export function expectedKeys(site: Site): Record<ObjectName, string[]> {
  const out: Record<ObjectName, string[]> = {
    Svc_Segment__c: site.segment.map((r) => keyOf('segment', r.id)),
    Svc_Project__c: site.project.map((r) => keyOf('project', r.id)),
    Svc_Team__c: site.team.map((r) => keyOf('team', r.id)),
    Svc_Company__c: site.company.map((r) => keyOf('company', r.id)),
    Svc_Action__c: site.action.map((r) => keyOf('action', r.id)),
    Svc_ActionQuestion__c: site.action.flatMap((a) => (a.questions ?? []).filter(questionSynced).map((q) => questionKey(a.id, q.id))),
    Svc_Donation__c: site.donation.filter(donationSynced).map((r) => keyOf('donation', r.id)),
    Svc_NewsletterSubscription__c: site.newsletter_subscription.map((r) => keyOf('newsletter_subscription', r.id)),
  };
  for (const o of OBJECTS) out[o].sort();
  return out;
}

/** The emulator holds exactly the expected records, each linked per SPEC. */
export function expectFullMirror(stack: Stack, site: Site): void {
  const want = expectedKeys(site);
  for (const o of OBJECTS) {
    const have = stack.salesforce
      .records(o)
      .map((r) => r.SvcId__c)
      .sort();
    expect({ object: o, keys: have }).toEqual({ object: o, keys: want[o] });
  }
  for (const type of Object.keys(OBJECT_OF) as Synced[]) {
    for (const r of site[type] as unknown as SiteRecord[]) {
      if (type === 'donation' && !donationSynced(r as unknown as ApiDonation)) continue;
      expectLinked(stack, site, type, r.id);
    }
  }
  for (const a of site.action) {
    const action = sfRecord(stack, 'action', a.id);
    for (const q of (a.questions ?? []).filter(questionSynced)) {
      expect(stack.salesforce.get('Svc_ActionQuestion__c', questionKey(a.id, q.id))?.Svc_Action__c).toBe(action.Id);
    }
  }
}

/** A small CSV reader (quoted cells, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (ch !== '\r') cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Waits until `check` gives a value, polling; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Stderr without the UTC time that begins each line of a run without a terminal (cron mode). */
export const unstamp = (stderr: string): string => stderr.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm, '');
