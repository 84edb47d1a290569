/** `svc-sync schema` and `svc-sync doctor` as an admin runs them, against the Salesforce emulator. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { SCHEMAS as MIRRORED } from '../../src/mapping/schema.js';
import { LOG_SCHEMAS } from '../../src/crm/syncLogSchema.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, removeDir, tempCwd } from './helpers.js';

let stack: Stack;
let cwd: string;
/** The eight mirrored objects and the sync log's two. */
const SCHEMAS = [...MIRRORED, ...LOG_SCHEMAS];

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 5, newsletterSubscriptions: 0 } });
  cwd = tempCwd('org-setup');
});
afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

describe('svc-sync schema --out DIR', () => {
  it('writes every object, every field and the permission set as bare SFDX source, and needs no settings', async () => {
    const res = await cli(stack, ['--json', 'schema', '--out', 'md'], cwd, undefined, {});
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout) as { status: number; result: { objects: string[]; files: string[] } };
    expect(body.result.objects.sort()).toEqual(SCHEMAS.map((s) => s.apiName).sort());
    for (const schema of SCHEMAS) {
      const dir = path.join(cwd, 'md', 'objects', schema.apiName);
      expect(fs.readFileSync(path.join(dir, `${schema.apiName}.object-meta.xml`), 'utf8')).toContain(`<label>${schema.label}</label>`);
      expect(fs.readdirSync(path.join(dir, 'fields')).sort()).toEqual(schema.fields.map((f) => `${f.name}.field-meta.xml`).sort());
    }
    expect(fs.readdirSync(path.join(cwd, 'md', 'permissionsets'))).toEqual(['Svc_Sync_Integration.permissionset-meta.xml']);
    expect(fs.existsSync(path.join(cwd, 'md', 'sfdx-project.json'))).toBe(false);
    // Each object and field, the permission set, the log's two tabs and two list views.
    expect(body.result.files).toHaveLength(SCHEMAS.length + SCHEMAS.reduce((n, s) => n + s.fields.length, 0) + 1 + 2 + 2);
  });

  it('says what is missing when neither --project nor --out is given', async () => {
    const res = await cli(stack, ['schema'], cwd, undefined, {});
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--project DIR .*--out DIR/);
  });
});

describe('svc-sync doctor', () => {
  it("passes on a complete org with a working key, and reports what the platform's lists do in a few requests per collection", async () => {
    stack.platform.resetCounts();
    const res = await cli(stack, ['doctor'], cwd);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/platform API key: ok/);
    expect(res.stdout).toMatch(/every object and field is in place/);
    // A first page lacking optional keys is not settled by doctor's one sample: the risk left is said.
    expect(res.stdout).toMatch(/^ {2}donations +ok +ok +100 +(complete|\?)$/m);
    for (const line of res.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    for (const m of res.stdout
      .split('what this means:\n')[1]
      ?.split(/\n(?! {4})/)
      .filter(Boolean) ?? [])
      expect(m).toMatch(/^ {2}\w+: not settled: no /);
    // The key check, then at most four a collection (first page, one record by id, two filtered pages).
    expect(stack.platform.requests.total).toBeLessThanOrEqual(1 + 7 * 4);
    expect(fs.existsSync(path.join(cwd, '.svc-sync', 'platform-profile.json'))).toBe(true);
  });

  it('on a platform that ignores updated_after, serves 25 a page and lacks fields in its lists: says so, and what it costs', async () => {
    Object.assign(stack.platform.behaviour, { ignoreFilters: ['updated_after'], maxPerPage: 25, listOmit: { donations: ['consents'] } });
    try {
      const res = await cliJson(stack, ['doctor'], cwd);
      expect(res.code).toBe(0);
      const profile = (res.body.result as unknown as { profile: { collections: Record<string, Record<string, unknown>> } }).profile;
      expect(profile.collections.donations).toMatchObject({ updatedAfter: 'ignored', createdAfter: 'honoured', pageSize: 25, list: 'partial', missing: ['consents'] });
      const human = await cli(stack, ['doctor'], cwd);
      expect(human.stdout).toMatch(/^ {2}donations +IGNORED +ok +25 +PARTIAL$/m);
      expect(human.stdout).toMatch(/^ {2}donations: each incremental run reads all \d+: ~\d+ requests? \(created_after works\)$/m);
      expect(human.stdout).toMatch(/^ {2}donations: by id \(lists lack consents\): ~\d+ requests a full sync, not \d+$/m);
      for (const line of human.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    } finally {
      for (const k of Object.keys(stack.platform.behaviour)) delete (stack.platform.behaviour as Record<string, unknown>)[k];
    }
  });

  it('reports a field removed from the org and a refused key, and exits 2 as sync does for that key', async () => {
    stack.salesforce.removeField('Svc_Donation__c', 'Amount__c');
    const res = await cli(stack, ['--json', 'doctor'], cwd, undefined, { ...stack.env, SVC_API_KEY: 'wrong-key-123' });
    expect(res.code).toBe(2);
    const body = JSON.parse(res.stdout) as { status: number; result: { ok: boolean; platform: string; findings: Array<{ object: string; field?: string; problem: string }> } };
    expect(body.status).toBe(2);
    expect(body.result.ok).toBe(false);
    expect(body.result.platform).toMatch(/401/);
    expect(body.result.findings).toEqual([expect.objectContaining({ object: 'Svc_Donation__c', field: 'Amount__c', problem: 'missing_field' })]);
    expect(res.stdout).not.toContain('wrong-key-123');
  });
});
