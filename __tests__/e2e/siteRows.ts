/**
 * For the tests of several sites in one org (SITES.md): one site's records in an org as plain
 * comparable rows (what a shared org holds under a prefix against what the site alone writes), and
 * the CLI run in a folder whose config file names the connections, with only the env given.
 */
import { spawn } from 'node:child_process';
import { cliArgs, type CliResult, outputOf, READ_WHOLE } from '../../fixtures/cli.js';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import type { EmulatorRecord } from '../../fixtures/salesforce/store.js';
import { OBJECTS } from './helpers.js';

/** Fields the org sets itself: not the product's to compare. */
const SYSTEM = new Set(['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'IsDeleted']);
const KEY_FIELDS = ['SvcId__c', 'TargetSvcId__c', 'QuestionSvcId__c'];

/**
 * The records of one site in an org as plain comparable rows: keys without `prefix` (only rows
 * with it), lookups as the key of the record they point at, the org's own fields left out.
 */
export function siteRows(org: Emulator, prefix: string): Record<string, Array<Record<string, unknown>>> {
  const keyOfId = new Map<string, string>();
  for (const o of OBJECTS) for (const r of org.records(o)) keyOfId.set(r.Id, r.SvcId__c);
  const bare = (v: string): string => (prefix !== '' && v.startsWith(prefix) ? v.slice(prefix.length) : v);
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const o of OBJECTS) {
    out[o] = org
      .records(o)
      .filter((r: EmulatorRecord) => (prefix === '' ? !/^\d+:/.test(r.SvcId__c) : r.SvcId__c.startsWith(prefix)))
      .map((r) => {
        const row: Record<string, unknown> = {};
        for (const [f, v] of Object.entries(r)) {
          if (SYSTEM.has(f) || v === null || v === undefined) continue;
          if (KEY_FIELDS.includes(f) && typeof v === 'string') row[f] = bare(v);
          else if (typeof v === 'string' && keyOfId.has(v)) row[f] = `->${bare(keyOfId.get(v)!)}`;
          else row[f] = v;
        }
        return row;
      })
      .sort((a, b) => String(a.SvcId__c).localeCompare(String(b.SvcId__c)));
  }
  return out;
}

/** The built CLI in `dir` (its config file there), with PATH, HOME and `env` only. */
export function runIn(dir: string, env: Record<string, string>, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...READ_WHOLE, ...env }, stdio: 'pipe' });
    outputOf(child).then(resolve, reject);
    child.stdin.end();
  });
}

/** runIn with --json: stdout must be one JSON document. */
export async function runJsonIn<T>(dir: string, env: Record<string, string>, args: string[]): Promise<{ code: number; body: T; stderr: string }> {
  const r = await runIn(dir, env, ['--json', ...args]);
  try {
    return { code: r.code, stderr: r.stderr, body: JSON.parse(r.stdout) as T };
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** One connection of a shared org in a config file: its site's platform, the org's login (secrets by env name). */
export function connectionEntry(
  site: { platform: { url: string } },
  siteId: number,
  name: string,
  org: { url: string; apiVersion: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    SVC_SITE_ID: siteId,
    SVC_API_URL: site.platform.url,
    SVC_API_KEY: { env: `${name.toUpperCase()}_KEY` },
    SF_INSTANCE_URL: org.url,
    SF_ACCESS_TOKEN: { env: 'ORG_TOKEN' },
    SF_API_VERSION: org.apiVersion,
    ...extra,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The retention tests' starting point: north's two run records finished 60 and 10 days ago, south's
 * 120 and 60 (oldest first, as written). Returns them, their keys to look for after a clean-up.
 */
export function agedRuns(org: Emulator): { northOld: EmulatorRecord; northNew: EmulatorRecord; southOld: EmulatorRecord; southMid: EmulatorRecord } {
  const runs = (connection: string): EmulatorRecord[] => org.records('Svc_SyncRun__c').filter((r) => r.SvcConnection__c === connection);
  const [northOld, northNew] = runs('north');
  const [southOld, southMid] = runs('south');
  if (!northOld || !northNew || !southOld || !southMid) throw new Error('agedRuns: each connection needs two run records');
  const age = (run: EmulatorRecord, days: number): void => {
    org.editRecord('Svc_SyncRun__c', String(run.RunKey__c), { FinishedAt__c: new Date(Date.now() - days * DAY_MS).toISOString().replace('Z', '+0000') });
  };
  age(northOld, 60);
  age(northNew, 10);
  age(southOld, 120);
  age(southMid, 60);
  return { northOld, northNew, southOld, southMid };
}
