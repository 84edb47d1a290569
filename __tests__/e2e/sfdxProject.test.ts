/**
 * `svc-sync schema --project DIR` as an admin runs it, judged by Salesforce's own
 * source-deploy-retrieve: the project is read and converted to Metadata API format the way
 * `sf project deploy start` does before it uploads, and the result must hold the eight objects,
 * every field, and a permission set that opens every field Salesforce lets it open.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
// Salesforce's libraries log to a file under the home folder unless told not to.
process.env.SF_DISABLE_LOG_FILE = 'true';
const { ComponentSet, MetadataConverter } = await import('@salesforce/source-deploy-retrieve');
import { runCli } from '../../fixtures/cli.js';
import { SCHEMAS as MIRRORED } from '../../src/mapping/schema.js';
import { LOG_SCHEMAS } from '../../src/crm/syncLogSchema.js';
import { children, child, parseXml, type XmlNode } from '../support/xml.js';
import { removeDir, tempCwd, unstamp } from './helpers.js';

/** The eight mirrored objects and the sync log's two: all of them part of the org setup. */
const SCHEMAS = [...MIRRORED, ...LOG_SCHEMAS];

let cwd: string;
beforeAll(() => {
  cwd = tempCwd('sfdx-project');
});
afterAll(() => removeDir(cwd));

const schema = (args: string[], env: Record<string, string> = {}) => runCli(['schema', ...args], { env, cwd });
const tree = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => fs.statSync(path.join(dir, f)).isFile())
        .sort()
    : [];

interface Converted {
  packageXml: XmlNode;
  objects: Map<string, XmlNode>;
  permissionSet: XmlNode;
  tabs: string[];
}

/** What `sf project deploy start` does first: resolve the project's package directories and convert them. */
async function convertAsDeployDoes(projectDir: string, outputDirectory: string): Promise<Converted> {
  const project = JSON.parse(fs.readFileSync(path.join(projectDir, 'sfdx-project.json'), 'utf8')) as { packageDirectories: Array<{ path: string; default?: boolean }> };
  const set = await ComponentSet.fromSource({ fsPaths: project.packageDirectories.map((d) => path.join(projectDir, d.path)) });
  // The manifest's API version then comes from sfdx-project.json, as in a deploy from the project.
  set.projectDirectory = projectDir;
  await new MetadataConverter().convert(set, 'metadata', { type: 'directory', outputDirectory, genUniqueDir: false });
  const read = (...p: string[]): XmlNode => parseXml(fs.readFileSync(path.join(outputDirectory, ...p), 'utf8'));
  const objects = new Map(fs.readdirSync(path.join(outputDirectory, 'objects')).map((f) => [path.basename(f, '.object'), read('objects', f)]));
  const tabs = fs.readdirSync(path.join(outputDirectory, 'tabs')).sort();
  return { packageXml: read('package.xml'), objects, permissionSet: read('permissionsets', 'Svc_Sync_Integration.permissionset'), tabs };
}

describe('svc-sync schema --project DIR', () => {
  let converted: Converted;
  beforeAll(async () => {
    const res = await schema(['--project', 'svc-org'], { SF_API_VERSION: '61.0' });
    if (res.code !== 0) throw new Error(`schema --project failed (${res.code}): ${res.stderr}`);
    converted = await convertAsDeployDoes(path.join(cwd, 'svc-org'), path.join(cwd, 'mdapi'));
  }, 60_000);

  it('is a project sf reads: default package directory, sourceApiVersion from SF_API_VERSION', () => {
    const project = JSON.parse(fs.readFileSync(path.join(cwd, 'svc-org', 'sfdx-project.json'), 'utf8')) as Record<string, unknown>;
    expect(project).toMatchObject({ packageDirectories: [{ path: 'force-app', default: true }], sourceApiVersion: '61.0' });
    expect(child(converted.packageXml, 'version')).toBe('61.0');
  });

  it('converts to the eight objects and the sync log with every field, tab and list view, as the deploy would upload them', () => {
    const members = (type: string): string[] =>
      children(converted.packageXml, 'types')
        .filter((t) => child(t, 'name') === type)
        .flatMap((t) => children(t, 'members').map((m) => m.text))
        .sort();
    expect(members('CustomObject')).toEqual(SCHEMAS.map((s) => s.apiName).sort());
    expect(members('CustomField')).toEqual(SCHEMAS.flatMap((s) => s.fields.map((f) => `${s.apiName}.${f.name}`)).sort());
    expect(members('PermissionSet')).toEqual(['Svc_Sync_Integration']);
    expect(members('CustomTab')).toEqual(['Svc_SyncError__c', 'Svc_SyncRun__c']);
    expect(members('ListView')).toEqual(['Svc_SyncError__c.Open_sync_errors', 'Svc_SyncRun__c.Recent_runs']);
    expect(converted.tabs).toEqual(['Svc_SyncError__c.tab', 'Svc_SyncRun__c.tab']);
    // The list views travel inside their object, as Metadata API format holds them.
    const views = children(converted.objects.get('Svc_SyncError__c')!, 'listViews');
    expect(views.map((v) => [child(v, 'fullName'), child(v, 'label')])).toEqual([['Open_sync_errors', 'Open sync errors']]);
    for (const s of SCHEMAS) {
      const fields = children(converted.objects.get(s.apiName)!, 'fields').map((f) => child(f, 'fullName'));
      expect({ object: s.apiName, fields: fields.sort() }).toEqual({ object: s.apiName, fields: s.fields.map((f) => f.name).sort() });
    }
  });

  it('grants read/create/edit/delete on the ten objects, read/edit on every field that is not required, and the log tabs', () => {
    const ps = converted.permissionSet;
    const objects = children(ps, 'objectPermissions').map((o) => ({
      object: child(o, 'object'),
      flags: ['allowRead', 'allowCreate', 'allowEdit', 'allowDelete'].map((f) => child(o, f)),
    }));
    expect(objects.sort((a, b) => String(a.object).localeCompare(String(b.object)))).toEqual(
      SCHEMAS.map((s) => ({ object: s.apiName, flags: ['true', 'true', 'true', 'true'] })).sort((a, b) => a.object.localeCompare(b.object)),
    );
    // Judged from the converted objects, not from our own rule: Salesforce refuses an entry for a
    // required field, and every other field needs one or the integration user cannot see it.
    const optional: string[] = [];
    const required: string[] = [];
    for (const [object, xml] of converted.objects) {
      for (const f of children(xml, 'fields')) (child(f, 'required') === 'true' ? required : optional).push(`${object}.${child(f, 'fullName')}`);
    }
    const granted = children(ps, 'fieldPermissions').map((f) => ({ field: child(f, 'field'), readable: child(f, 'readable'), editable: child(f, 'editable') }));
    expect(granted.map((g) => g.field).sort()).toEqual(optional.sort());
    expect(granted.every((g) => g.readable === 'true' && g.editable === 'true')).toBe(true);
    expect(required.sort()).toEqual(MIRRORED.map((s) => `${s.apiName}.SvcId__c`).sort());
    expect(children(ps, 'tabSettings').map((t) => [child(t, 'tab'), child(t, 'visibility')])).toEqual([
      ['Svc_SyncRun__c', 'Visible'],
      ['Svc_SyncError__c', 'Visible'],
    ]);
    expect(optional.length + required.length).toBe(SCHEMAS.reduce((n, s) => n + s.fields.length, 0));
  });

  it('updates a project it wrote before in place, keeping the files and settings it does not own', async () => {
    const dir = path.join(cwd, 'svc-org');
    const projectFile = path.join(dir, 'sfdx-project.json');
    const project = JSON.parse(fs.readFileSync(projectFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(projectFile, JSON.stringify({ ...project, sfdcLoginUrl: 'https://test.salesforce.com' }));
    fs.mkdirSync(path.join(dir, '.sf'));
    fs.writeFileSync(path.join(dir, '.sf', 'config.json'), '{}');
    const res = await schema(['--project', 'svc-org'], { SF_API_VERSION: '62.0' });
    expect(res.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(projectFile, 'utf8'))).toMatchObject({ sfdcLoginUrl: 'https://test.salesforce.com', sourceApiVersion: '62.0' });
    expect(fs.readFileSync(path.join(dir, '.sf', 'config.json'), 'utf8')).toBe('{}');
    expect(tree(dir).filter((f) => f.includes('staging'))).toEqual([]);
  });
});

describe('svc-sync schema refuses what it must, and writes nothing then', () => {
  it('refuses a non-empty folder that is not a project it wrote', async () => {
    fs.mkdirSync(path.join(cwd, 'notes'));
    fs.writeFileSync(path.join(cwd, 'notes', 'todo.txt'), 'call the bank');
    const res = await schema(['--project', 'notes']);
    expect(res.code).toBe(2);
    expect(unstamp(res.stderr).trim().split('\n')).toEqual(['svc-sync: --project notes: the folder is not empty and holds no sfdx-project.json; give a new or empty folder']);
    expect(tree(path.join(cwd, 'notes'))).toEqual(['todo.txt']);
  });

  it('refuses an SFDX project of someone else, and points to --out for it', async () => {
    const theirs = path.join(cwd, 'their-project');
    fs.mkdirSync(path.join(theirs, 'src'), { recursive: true });
    fs.writeFileSync(path.join(theirs, 'sfdx-project.json'), JSON.stringify({ name: 'crm', packageDirectories: [{ path: 'src', default: true }] }));
    const res = await schema(['--project', 'their-project']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`--out ${path.join('their-project', 'src', 'main', 'default')}`);
    expect(tree(theirs)).toEqual(['sfdx-project.json']);
  });

  it('refuses a file, and asks for one of --project or --out', async () => {
    fs.writeFileSync(path.join(cwd, 'a-file'), 'x');
    const file = await schema(['--project', 'a-file']);
    expect({ code: file.code, stderr: unstamp(file.stderr) }).toEqual({ code: 2, stderr: 'svc-sync: --project a-file: is a file, not a folder\n' });
    expect((await schema([])).stderr).toMatch(/--project DIR .* or --out DIR/);
    expect((await schema(['--project', 'x', '--out', 'y'])).code).toBe(2);
    expect(fs.existsSync(path.join(cwd, 'x'))).toBe(false);
    expect(fs.existsSync(path.join(cwd, 'y'))).toBe(false);
  });

  it('cleans up after a write that fails half-way', async () => {
    // A folder where the permission set file must go makes the last move fail.
    const dir = path.join(cwd, 'blocked');
    fs.mkdirSync(path.join(dir, 'permissionsets', 'Svc_Sync_Integration.permissionset-meta.xml', 'x'), { recursive: true });
    const res = await schema(['--out', 'blocked']);
    expect(res.code).toBe(2);
    expect(unstamp(res.stderr)).toMatch(/^svc-sync: --out blocked: cannot write there \(\w+\)\n$/);
    expect(tree(dir)).toEqual([]);
  });
});

describe('svc-sync schema --project DIR --projection npc|npsp', () => {
  it('adds the key fields of PROJECTION.md §0 on the Nonprofit Cloud objects, granted read/edit, as the deploy converts them', async () => {
    const res = await schema(['--project', 'npc-org', '--projection', 'npc']);
    expect(res.code).toBe(0);
    const converted = await convertAsDeployDoes(path.join(cwd, 'npc-org'), path.join(cwd, 'npc-mdapi'));
    const members = children(converted.packageXml, 'types')
      .filter((t) => child(t, 'name') === 'CustomField')
      .flatMap((t) => children(t, 'members').map((m) => m.text));
    const keys = [
      'Account.SvcDonorKey__c',
      'Campaign.SvcCampaignKey__c',
      'GiftTransaction.SvcGiftKey__c',
      'GiftTransaction.SvcAnonymous__c',
      'GiftSoftCredit.SvcSoftCreditKey__c',
      'GiftRefund.SvcRefundKey__c',
    ];
    expect(members.filter((m) => !m.startsWith('Svc_')).sort()).toEqual([...keys].sort());
    const gift = children(converted.objects.get('GiftTransaction')!, 'fields').find((f) => child(f, 'fullName') === 'SvcGiftKey__c')!;
    expect(['type', 'length', 'externalId', 'unique', 'caseSensitive'].map((n) => child(gift, n))).toEqual(['Text', '50', 'true', 'true', 'false']);
    const granted = children(converted.permissionSet, 'fieldPermissions').map((f) => child(f, 'field'));
    expect(granted).toEqual(expect.arrayContaining(keys));
    // The standard objects' access comes with the org's Fundraising licence, not from this set.
    expect(children(converted.permissionSet, 'objectPermissions').map((o) => child(o, 'object'))).not.toContain('GiftTransaction');
  }, 60_000);

  it('npsp: the key fields on the NPSP objects (the slot key plain text, P9), as the deploy converts them', async () => {
    const res = await schema(['--project', 'npsp-org', '--projection', 'npsp']);
    expect(res.code).toBe(0);
    const converted = await convertAsDeployDoes(path.join(cwd, 'npsp-org'), path.join(cwd, 'npsp-mdapi'));
    const members = children(converted.packageXml, 'types')
      .filter((t) => child(t, 'name') === 'CustomField')
      .flatMap((t) => children(t, 'members').map((m) => m.text));
    const keys = [
      'Contact.SvcDonorKey__c',
      'Account.SvcDonorKey__c',
      'Campaign.SvcCampaignKey__c',
      'Opportunity.SvcGiftKey__c',
      'Opportunity.SvcAnonymous__c',
      'OpportunityContactRole.SvcSoftCreditKey__c',
      'npe01__OppPayment__c.SvcRefundKey__c',
    ];
    expect(members.filter((m) => !m.startsWith('Svc_')).sort()).toEqual([...keys].sort());
    const slot = children(converted.objects.get('OpportunityContactRole')!, 'fields').find((f) => child(f, 'fullName') === 'SvcSoftCreditKey__c')!;
    expect(['type', 'length', 'externalId', 'unique'].map((n) => child(slot, n))).toEqual(['Text', '80', 'false', 'false']);
    const gift = children(converted.objects.get('Opportunity')!, 'fields').find((f) => child(f, 'fullName') === 'SvcGiftKey__c')!;
    expect(['type', 'length', 'externalId', 'unique'].map((n) => child(gift, n))).toEqual(['Text', '50', 'true', 'true']);
    expect(children(converted.permissionSet, 'fieldPermissions').map((f) => child(f, 'field'))).toEqual(expect.arrayContaining(keys));
  }, 60_000);

  it('refuses unknown models in one line, writing nothing', async () => {
    const res = await schema(['--out', 'out-crm', '--projection', 'crm']);
    expect(res.code).toBe(2);
    expect(unstamp(res.stderr).trim().split('\n')[0]).toBe('svc-sync: --projection "crm": must be npc or npsp');
    expect(tree(path.join(cwd, 'out-crm'))).toEqual([]);
  });
});
