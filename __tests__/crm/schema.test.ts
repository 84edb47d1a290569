import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { checkOrg, everyWriteFails, fixesFor } from '../../src/crm/doctor.js';
import { exportSource } from '../../src/crm/sfdxProject.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { SCHEMAS } from '../../src/mapping/schema.js';
import { LOG_SCHEMAS } from '../../src/crm/syncLogSchema.js';
import { setup } from './helpers.js';
import { child, parseXml, type XmlNode } from '../support/xml.js';
import { tempFolders } from '../support/tempFolders.js';

const schemaFolder = tempFolders('svc-schema-');

describe('schema export', () => {
  let dir: string;
  let files: string[];
  beforeAll(async () => {
    dir = schemaFolder();
    files = (await exportSource(dir)).files;
  });

  it('writes well-formed XML covering every object and field of the schema', async () => {
    const expected = [...SCHEMAS, ...LOG_SCHEMAS]
      .flatMap((s) => [path.join(dir, 'objects', s.apiName, `${s.apiName}.object-meta.xml`), ...s.fields.map((f) => path.join(dir, 'objects', s.apiName, 'fields', `${f.name}.field-meta.xml`))])
      .concat(path.join(dir, 'permissionsets', 'Svc_Sync_Integration.permissionset-meta.xml'))
      .concat(LOG_SCHEMAS.map((s) => path.join(dir, 'tabs', `${s.apiName}.tab-meta.xml`)))
      .concat(path.join(dir, 'objects', 'Svc_SyncError__c', 'listViews', 'Open_sync_errors.listView-meta.xml'))
      .concat(path.join(dir, 'objects', 'Svc_SyncRun__c', 'listViews', 'Recent_runs.listView-meta.xml'));
    expect([...files].sort()).toEqual([...expected].sort());
    for (const f of files) expect(() => parseXml(readFileSyncCache.get(f) ?? '')).not.toThrow();
    // the checker itself rejects what it must
    for (const bad of ['<a><b></a></b>', '<a>x & y</a>', '<a></a><b></b>', '<a>']) expect(() => parseXml(bad)).toThrow();
  });

  const readFileSyncCache = new Map<string, string>();
  beforeAll(async () => {
    for (const f of files) readFileSyncCache.set(f, await readFile(f, 'utf8'));
  });

  it('carries labels, types, lengths, precision, external ids and lookups', () => {
    const xml = (obj: string, field?: string): XmlNode =>
      parseXml(readFileSyncCache.get(field ? path.join(dir, 'objects', obj, 'fields', `${field}.field-meta.xml`) : path.join(dir, 'objects', obj, `${obj}.object-meta.xml`))!);
    const obj = xml('Svc_Company__c');
    expect(obj.tag).toBe('CustomObject');
    expect(child(obj, 'label')).toBe('Svc Company');
    expect(child(obj, 'pluralLabel')).toBe('Svc Companies');
    expect(
      child(
        obj.children.find((c) => c.tag === 'nameField')!,
        'label',
      ),
    ).toBe('Svc Company Name');
    expect(xml('Svc_Donation__c', 'SvcId__c').children.map((c) => [c.tag, c.text])).toEqual(
      expect.arrayContaining([
        ['type', 'Text'],
        ['length', '50'],
        ['externalId', 'true'],
        ['unique', 'true'],
      ]),
    );
    expect(child(xml('Svc_Donation__c', 'Amount__c'), 'precision')).toBe('10');
    expect(child(xml('Svc_Donation__c', 'Amount__c'), 'scale')).toBe('2');
    expect(child(xml('Svc_Donation__c', 'Countable__c'), 'defaultValue')).toBe('true');
    // The sync log: a restricted picklist, a lookup from errors to runs, unique case-insensitive keys.
    const outcome = xml('Svc_SyncRun__c', 'Outcome__c');
    expect(child(outcome, 'type')).toBe('Picklist');
    const valueSet = outcome.children.find((c) => c.tag === 'valueSet')!;
    expect(child(valueSet, 'restricted')).toBe('true');
    const values = valueSet.children.find((c) => c.tag === 'valueSetDefinition')!.children.filter((c) => c.tag === 'value');
    expect(values.map((v) => child(v, 'fullName'))).toEqual(['Succeeded', 'Partial', 'Failed', 'Interrupted', 'Refused']);
    expect(xml('Svc_SyncError__c', 'LastRun__c').children.map((c) => [c.tag, c.text])).toEqual(
      expect.arrayContaining([
        ['referenceTo', 'Svc_SyncRun__c'],
        ['type', 'Lookup'],
        ['deleteConstraint', 'SetNull'],
      ]),
    );
    for (const [o, f, n] of [
      ['Svc_SyncRun__c', 'RunKey__c', '80'],
      ['Svc_SyncError__c', 'Key__c', '120'],
    ]) {
      expect(xml(o, f).children.map((c) => [c.tag, c.text])).toEqual(
        expect.arrayContaining([
          ['length', n],
          ['externalId', 'true'],
          ['unique', 'true'],
          ['caseSensitive', 'false'],
        ]),
      );
    }
    const view = parseXml(readFileSyncCache.get(path.join(dir, 'objects', 'Svc_SyncError__c', 'listViews', 'Open_sync_errors.listView-meta.xml'))!);
    expect(child(view, 'label')).toBe('Open sync errors');
    const filter = view.children.find((c) => c.tag === 'filters')!;
    expect([child(filter, 'field'), child(filter, 'operation'), child(filter, 'value')]).toEqual(['Status__c', 'equals', 'Open']);
    expect(child(parseXml(readFileSyncCache.get(path.join(dir, 'tabs', 'Svc_SyncError__c.tab-meta.xml'))!), 'customObject')).toBe('true');
    expect(child(xml('Svc_Action__c', 'Description__c'), 'type')).toBe('LongTextArea');
    expect(child(xml('Svc_Action__c', 'Birthday__c'), 'type')).toBe('Date');
    expect(child(xml('Svc_Donation__c', 'Birthday__c'), 'type')).toBe('DateTime');
    const lookup = xml('Svc_Donation__c', 'Svc_Action__c');
    expect([child(lookup, 'type'), child(lookup, 'referenceTo'), child(lookup, 'relationshipName'), child(lookup, 'deleteConstraint')]).toEqual([
      'Lookup',
      'Svc_Action__c',
      'Svc_Donations',
      'SetNull',
    ]);
  });
});

describe('doctor', () => {
  let emu: Emulator;
  let sink: SalesforceSink;
  beforeAll(async () => {
    ({ emu, sink } = await setup());
  });
  afterAll(async () => emu.close());

  it('finds nothing wrong with an org built from the schema', async () => {
    expect(await checkOrg(sink)).toEqual([]);
    expect(sink.calls().describe).toBe(SCHEMAS.length + LOG_SCHEMAS.length);
  });

  it('reports a removed field, a too-short text, a wrong type and a key that is not an external id', async () => {
    emu.removeField('Svc_Donation__c', 'TransactionId__c');
    emu.alterField('Svc_Team__c', 'Title__c', { type: { kind: 'text', length: 80 } });
    emu.alterField('Svc_Project__c', 'Closed__c', { type: { kind: 'text', length: 10 } });
    emu.alterField('Svc_Segment__c', 'SvcId__c', { externalId: false });
    const findings = await checkOrg(sink);
    expect(findings.map((f) => [f.object, f.field, f.problem])).toEqual([
      ['Svc_Segment__c', 'SvcId__c', 'not_external_id'],
      ['Svc_Project__c', 'Closed__c', 'wrong_type'],
      ['Svc_Team__c', 'Title__c', 'too_short'],
      ['Svc_Donation__c', 'TransactionId__c', 'missing_field'],
    ]);
    expect(findings[3].message).toContain('Svc_Donation__c.TransactionId__c');
  });

  it('lists the sync log objects of an org set up before them, with the deploy that adds them', async () => {
    const s = await setup({ syncLog: false });
    try {
      const findings = await checkOrg(s.sink);
      expect(findings.map((f) => [f.object, f.problem])).toEqual([
        ['Svc_SyncRun__c', 'missing_object'],
        ['Svc_SyncError__c', 'missing_object'],
      ]);
      expect(fixesFor(findings)[0]).toMatch(/svc-sync schema --project svc-org && cd svc-org && sf project deploy start/);
    } finally {
      await s.emu.close();
    }
  });
});

describe('doctor and field-level security', () => {
  let emu: Emulator | undefined;
  afterAll(async () => emu?.close());

  it('says once per object that its fields are hidden when the permission set is not assigned', async () => {
    const s = await setup({ fieldAccess: 'none' });
    emu = s.emu;
    const findings = await checkOrg(s.sink);
    expect(findings.map((f) => [f.object, f.field, f.problem])).toEqual([...SCHEMAS, ...LOG_SCHEMAS].map((sc) => [sc.apiName, undefined, 'hidden_fields']));
    expect(findings[0].message).toMatch(/field-level security hides them \(assign the permission set Svc_Sync_Integration: sf org assign permset --name Svc_Sync_Integration\)/);
    await emu.close();
    emu = undefined;
  });

  it('reports a field the connected user can read but not write, and a single hidden one', async () => {
    const s = await setup();
    emu = s.emu;
    emu.setFieldAccess('Svc_Donation__c', 'Amount__c', 'read');
    emu.setFieldAccess('Svc_Action__c', 'Svc_Team__c', 'none');
    const findings = await checkOrg(s.sink);
    expect(findings.map((f) => [f.object, f.field, f.problem, f.actual])).toEqual([
      ['Svc_Action__c', 'Svc_Team__c', 'missing_field', 'absent'],
      ['Svc_Donation__c', 'Amount__c', 'not_editable', 'read-only'],
    ]);
    expect(findings[0].message).toMatch(/does not exist, or field-level security hides it from the connected user \(sf org assign permset --name Svc_Sync_Integration\)/);
    expect(findings[1].message).toMatch(/read-only for the connected user \(field-level security\): assign the permission set Svc_Sync_Integration/);
  });

  it("answers a run's question about one object with one describe call: only what fails every write", async () => {
    await emu?.close();
    const s = await setup();
    emu = s.emu;
    const describes = (): number => s.sink.calls().describe;
    expect(await everyWriteFails(s.sink, 'Svc_Donation__c')).toBeUndefined();
    expect(describes()).toBe(1);
    // A field shorter than the schema fails long values only: not every write.
    emu.alterField('Svc_Donation__c', 'Email__c', { type: { kind: 'text', length: 80 } });
    expect(await everyWriteFails(s.sink, 'Svc_Donation__c')).toBeUndefined();
    emu.setFieldAccess('Svc_Donation__c', 'Amount__c', 'read');
    emu.setFieldAccess('Svc_Donation__c', 'Currency__c', 'read');
    expect(await everyWriteFails(s.sink, 'Svc_Donation__c')).toEqual({
      cause: expect.stringMatching(/^Svc_Donation__c\.Currency__c is read-only for the connected user \(field-level security\)/),
      findings: 2,
    });
    expect(describes()).toBe(3);
    expect(await everyWriteFails(s.sink, 'Svc_Project__c')).toBeUndefined();
  });
});
