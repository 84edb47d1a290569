/**
 * `svc-sync keys qualify` end to end (SITES.md, "Migration"): an org one site filled with bare
 * keys, a dry run that writes nothing, --apply that rewrites every key by Id (Ids kept, nothing
 * inserted or deleted), a second --apply that writes nothing, and the refusals that write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, OBJECTS, removeDir, tempCwd, writeCalls } from './helpers.js';

interface QualifyJson {
  command: string;
  dryRun: boolean;
  siteId: number;
  objects: Record<string, { records: number; bare: number; qualified: number; otherSites: number; updated: number; failed: number }>;
  bare: number;
  updated: number;
  failed: number;
  sample: Array<{ object: string; id: string; field: string; from: string; to: string }>;
  refused?: string;
}

const SITE = { seed: 11, siteId: 6, segments: 2, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 2, donations: 120, newsletterSubscriptions: 15 };

/** Every record of the org by Id: its keys (the fields a key lives in) and the rest as they are. */
function snapshot(stack: Stack): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const object of OBJECTS) for (const r of stack.salesforce.records(object)) out.set(r.Id, { ...r });
  return out;
}

const KEY_FIELDS = ['SvcId__c', 'TargetSvcId__c', 'QuestionSvcId__c'];

describe('keys qualify', () => {
  let stack: Stack;
  let cwd: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack({ site: SITE });
    cwd = tempCwd('keys-qualify');
    env = { ...stack.env, SVC_SITE_ID: '6' };
    const first = await cli(stack, ['sync', '--all'], cwd, undefined, env);
    expect(first.code).toBe(0);
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('refuses without SVC_SITE_ID, before any request', async () => {
    stack.salesforce.resetCalls();
    const run = await cli(stack, ['keys', 'qualify', '--apply'], cwd, undefined, stack.env);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/SVC_SITE_ID is not set/);
    expect(stack.salesforce.calls().total).toBe(0);
  });

  it('a dry run counts the bare keys per object and writes nothing', async () => {
    const before = snapshot(stack);
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['keys', 'qualify'], cwd, undefined, env);
    expect(run.code).toBe(0);
    const result = run.body.result as unknown as QualifyJson;
    expect(result.command).toBe('keys qualify');
    expect(result.dryRun).toBe(true);
    expect(result.bare).toBe(before.size);
    for (const object of OBJECTS) expect(result.objects[object]?.bare).toBe(stack.salesforce.records(object).length);
    expect(result.sample.length).toBeGreaterThan(0);
    for (const c of result.sample) expect(c.to).toBe(`6:${c.from}`);
    expect(writeCalls(stack)).toBe(0);
    expect(snapshot(stack)).toEqual(before);
  });

  it('--apply rewrites every key by Id in batches of 200: Ids and every other field kept; a second --apply writes nothing', async () => {
    const before = snapshot(stack);
    stack.salesforce.resetCalls();
    const run = await cliJson(stack, ['keys', 'qualify', '--apply'], cwd, undefined, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = run.body.result as unknown as QualifyJson;
    expect(result.updated).toBe(before.size);
    expect(result.failed).toBe(0);
    const after = snapshot(stack);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [id, was] of before) {
      const now = after.get(id) ?? {};
      for (const [field, value] of Object.entries(was)) {
        if (KEY_FIELDS.includes(field) && typeof value === 'string' && value !== '') expect(now[field]).toBe(`6:${value}`);
        else if (field !== 'Id') expect([field, now[field]]).toEqual([field, value]);
      }
    }
    // One update call per 200 records of an object (a page of 2,000 is ten calls at most).
    const updates = stack.salesforce.requests().filter((r) => r.startsWith('PATCH ') && r.endsWith('/composite/sobjects'));
    const perObject = OBJECTS.map((o) => Math.ceil(stack.salesforce.records(o).length / 200)).reduce((a, b) => a + b, 0);
    expect(updates).toHaveLength(perObject);

    stack.salesforce.resetCalls();
    const again = await cliJson(stack, ['keys', 'qualify', '--apply'], cwd, undefined, env);
    expect(again.code).toBe(0);
    expect((again.body.result as unknown as QualifyJson).updated).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(snapshot(stack)).toEqual(after);
  });

  it('refuses when keys of another site sit beside bare ones: nothing written', async () => {
    const donation = stack.salesforce.records('Svc_Donation__c')[0]!;
    const segment = stack.salesforce.records('Svc_Segment__c')[0]!;
    stack.salesforce.editRecord('Svc_Donation__c', donation.SvcId__c, { SvcId__c: donation.SvcId__c.replace(/^6:/, '') });
    stack.salesforce.editRecord('Svc_Segment__c', segment.SvcId__c, { SvcId__c: segment.SvcId__c.replace(/^6:/, '7:') });
    const before = snapshot(stack);
    stack.salesforce.resetCalls();
    for (const args of [
      ['keys', 'qualify'],
      ['keys', 'qualify', '--apply'],
    ]) {
      const run = await cli(stack, args, cwd, undefined, env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/the org holds keys of site 7 beside 1 records with bare keys: cannot tell whose bare keys they are; nothing was written/);
    }
    expect(snapshot(stack)).toEqual(before);
    expect(stack.salesforce.requests().filter((r) => r.startsWith('PATCH ') && r.endsWith('/composite/sobjects'))).toEqual([]);
    stack.salesforce.editRecord('Svc_Donation__c', donation.SvcId__c.replace(/^6:/, ''), { SvcId__c: donation.SvcId__c });
    stack.salesforce.editRecord('Svc_Segment__c', segment.SvcId__c.replace(/^6:/, '7:'), { SvcId__c: segment.SvcId__c });
  });

  /** Runs `keys qualify --connection north --apply` in a folder whose config puts north and south (site 8) on this org. */
  async function twoOnOneOrg(siteKeys: { north: boolean; south: boolean }, southHasRun: boolean): Promise<{ code: number; stderr: string }> {
    const connection = (site: string, keys: boolean): Record<string, string> => ({
      SVC_API_URL: stack.platform.url,
      SVC_SITE_ID: site,
      SF_INSTANCE_URL: stack.salesforce.url,
      SF_ACCESS_TOKEN: stack.salesforce.accessToken,
      SF_API_VERSION: stack.salesforce.apiVersion,
      ...(keys ? { SVC_SITE_KEYS: 'true' } : {}),
    });
    const dir = tempCwd('keys-qualify-two');
    try {
      fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify({ connections: { north: connection('6', siteKeys.north), south: connection('8', siteKeys.south) } }), { mode: 0o600 });
      if (southHasRun) {
        fs.mkdirSync(path.join(dir, '.svc-sync', 'south'), { recursive: true });
        fs.writeFileSync(path.join(dir, '.svc-sync', 'south', 'state.json'), '{}');
      }
      stack.salesforce.resetCalls();
      const run = await cli(stack, ['keys', 'qualify', '--connection', 'north', '--apply'], dir, undefined, { SVC_API_KEY: stack.env.SVC_API_KEY as string });
      return { code: run.code, stderr: run.stderr };
    } finally {
      removeDir(dir);
    }
  }

  it('refuses when another connection writes the same org with bare keys, or has run there: one line, no request', async () => {
    const bare = await twoOnOneOrg({ north: true, south: false }, false);
    expect(bare.code).toBe(2);
    expect(bare.stderr.trim().split('\n')).toHaveLength(1);
    expect(bare.stderr).toMatch(/connections north and south both write the org at .*; set SVC_SITE_KEYS=true on both \(south lacks it\)/);
    expect(stack.salesforce.calls().total).toBe(0);

    const ran = await twoOnOneOrg({ north: true, south: true }, true);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(/keys qualify: connection south has run on the same org, so the org's bare keys may be its site's as well as north's; nothing was written/);
    expect(stack.salesforce.calls().total).toBe(0);
  });

  it('goes ahead beside a connection that qualifies its keys and has never run (an org prepared for a second site)', async () => {
    const run = await twoOnOneOrg({ north: true, south: true }, false);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
  });
});
