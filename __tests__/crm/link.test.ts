import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { linkRecords, parentFieldsToRead, type LinkResult } from '../../src/mapping/link.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import type { StoredRecord } from '../../src/model/crmRecords.js';
import type { ObjectType, SObjectName } from '../../src/model/objects.js';
import { SCHEMA, lookupFields } from '../../src/mapping/schema.js';
import type { MappedRecord } from '../../src/mapping/types.js';
import { setup } from './helpers.js';

/** SPEC.md 2.3-2.9, typed out from the spec's tables (not from schema.ts) so both are checked. */
const SPEC_ROWS: Array<[child: ObjectType, parent: ObjectType, direct: string, inherited: string[]]> = [
  ['project', 'segment', 'Svc_Segment__c', []],
  ['company', 'project', 'Svc_Project__c', ['Svc_Segment__c']],
  ['company', 'segment', 'Svc_Segment__c', []],
  ['team', 'project', 'Svc_Project__c', ['Svc_Segment__c']],
  ['team', 'segment', 'Svc_Segment__c', []],
  ['action', 'team', 'Svc_Team__c', ['Svc_Project__c', 'Svc_Segment__c']],
  ['action', 'company', 'Svc_Company__c', ['Svc_Project__c', 'Svc_Segment__c']],
  ['action', 'project', 'Svc_Project__c', ['Svc_Segment__c']],
  ['action', 'segment', 'Svc_Segment__c', []],
  ['question', 'action', 'Svc_Action__c', []],
  ['donation', 'action', 'Svc_Action__c', ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c']],
  ['donation', 'team', 'Svc_Team__c', ['Svc_Project__c', 'Svc_Segment__c']],
  ['donation', 'company', 'Svc_Company__c', ['Svc_Project__c', 'Svc_Segment__c']],
  ['donation', 'project', 'Svc_Project__c', ['Svc_Segment__c']],
  ['donation', 'segment', 'Svc_Segment__c', []],
  ['newsletter_subscription', 'project', 'Svc_Project__c', ['Svc_Segment__c']],
  ['newsletter_subscription', 'segment', 'Svc_Segment__c', []],
];

function mapped(type: ObjectType, key: string, parent?: { type: ObjectType; key: string }): MappedRecord {
  const schema = SCHEMA[type];
  const rule = parent ? schema.parents.find((p) => p.type === parent.type) : undefined;
  if (parent && !rule) throw new Error(`schema.ts has no ${parent.type} parent rule for ${type}`);
  return {
    kind: 'record',
    type,
    object: schema.apiName,
    key,
    fields: { SvcId__c: key, Name: key },
    parent: parent && rule ? { type: rule.type, object: SCHEMA[rule.type].apiName, id: 1, key: parent.key, direct: rule.direct, inherit: rule.inherit } : null,
    warnings: [],
  };
}

/** The engine's way to link a batch: its parents read from Salesforce, one query per parent object, then the pure cascade. */
async function linkFromSalesforce(sink: SalesforceSink, records: MappedRecord[]): Promise<LinkResult> {
  const byObject = new Map<SObjectName, Set<string>>();
  for (const r of records) if (r.parent) byObject.set(r.parent.object, (byObject.get(r.parent.object) ?? new Set<string>()).add(r.parent.key));
  const parents = new Map<string, StoredRecord>();
  for (const [object, keys] of byObject) for (const [k, v] of await sink.readByKeys(object, [...keys], parentFieldsToRead(object))) parents.set(k, v);
  return linkRecords(records, parents);
}

let emu: Emulator;
let sink: SalesforceSink;
/** The hierarchy every row links into; each level's lookups filled by the cascade itself. */
const CHAIN: Record<string, { type: ObjectType; key: string }> = {
  segment: { type: 'segment', key: 'Segment_1' },
  project: { type: 'project', key: 'Project_1' },
  team: { type: 'team', key: 'Team_1' },
  company: { type: 'company', key: 'Company_1' },
  action: { type: 'action', key: 'Action_1' },
};

async function write(records: MappedRecord[]): Promise<void> {
  const { records: linked, missing } = await linkFromSalesforce(sink, records);
  expect(missing).toEqual([]);
  const out = await sink.upsert(records[0].object, linked);
  expect(out.every((o) => o.status !== 'failed')).toBe(true);
}

const idOf = (object: SObjectName, key: string): string => emu.get(object, key)!.Id;

beforeAll(async () => {
  ({ emu, sink } = await setup());
  await write([mapped('segment', 'Segment_1')]);
  await write([mapped('project', 'Project_1', CHAIN.segment)]);
  await write([mapped('team', 'Team_1', CHAIN.project)]);
  await write([mapped('company', 'Company_1', CHAIN.project)]);
  await write([mapped('action', 'Action_1', CHAIN.team)]);
});
afterAll(async () => emu.close());

describe('lookup cascade', () => {
  it('schema.ts holds exactly the rows of the spec tables', () => {
    const fromSchema = Object.values(SCHEMA).flatMap((s) => s.parents.map((p) => [s.type, p.type, p.direct, p.inherit] as const));
    expect([...fromSchema].map((r) => JSON.stringify(r)).sort()).toEqual(SPEC_ROWS.map((r) => JSON.stringify(r)).sort());
  });

  it.each(SPEC_ROWS)('%s under a %s: direct %s, inherited %j, other lookups null', async (child, parentType, direct, inherited) => {
    const key = `${SCHEMA[child].apiName}_${parentType}_row`;
    const parent = CHAIN[parentType];
    await write([mapped(child, key, parent)]);
    const stored = emu.get(SCHEMA[child].apiName, key)!;
    const parentRecord = emu.get(SCHEMA[parentType].apiName, parent.key)!;
    expect(stored[direct]).toBe(parentRecord.Id);
    for (const f of inherited) {
      expect(parentRecord[f]).toBeTruthy();
      expect(stored[f]).toBe(parentRecord[f]);
    }
    for (const f of lookupFields(SCHEMA[child])) {
      if (f.name !== direct && !inherited.includes(f.name)) expect(stored[f.name]).toBeNull();
    }
  });

  it('inherits from the parent record in Salesforce: a donation under the action gets its team, project, segment', () => {
    const d = emu.get('Svc_Donation__c', 'Svc_Donation__c_action_row')!;
    expect(d).toMatchObject({
      Svc_Action__c: idOf('Svc_Action__c', 'Action_1'),
      Svc_Team__c: idOf('Svc_Team__c', 'Team_1'),
      Svc_Project__c: idOf('Svc_Project__c', 'Project_1'),
      Svc_Segment__c: idOf('Svc_Segment__c', 'Segment_1'),
      Svc_Company__c: null,
    });
  });

  it('clears stale lookups when a record moves to a higher-level parent', async () => {
    await write([mapped('donation', 'Donation_moving', CHAIN.action)]);
    expect(emu.get('Svc_Donation__c', 'Donation_moving')!.Svc_Team__c).toBeTruthy();
    await write([mapped('donation', 'Donation_moving', CHAIN.segment)]);
    expect(emu.get('Svc_Donation__c', 'Donation_moving')).toMatchObject({
      Svc_Action__c: null,
      Svc_Team__c: null,
      Svc_Project__c: null,
      Svc_Segment__c: idOf('Svc_Segment__c', 'Segment_1'),
    });
  });

  it('reports a parent missing from Salesforce per child and leaves its lookups null', async () => {
    const recs = [mapped('action', 'Action_x', { type: 'team', key: 'Team_404' }), mapped('action', 'Action_y', CHAIN.project)];
    const { records, missing } = await linkFromSalesforce(sink, recs);
    expect(missing).toEqual([{ key: 'Action_x', parent: 'Team_404', object: 'Svc_Team__c' }]);
    expect(records[0]).toMatchObject({ Svc_Team__c: null, Svc_Company__c: null, Svc_Project__c: null, Svc_Segment__c: null });
    expect(records[1].Svc_Project__c).toBe(idOf('Svc_Project__c', 'Project_1'));
  });

  it('reads parents in one query per parent object with just the linking fields', async () => {
    emu.resetCalls();
    const recs = [mapped('donation', 'D1', CHAIN.action), mapped('donation', 'D2', CHAIN.action), mapped('donation', 'D3', CHAIN.team), mapped('donation', 'D4', CHAIN.segment)];
    await linkFromSalesforce(sink, recs);
    expect(emu.calls().query).toBe(3);
    expect(parentFieldsToRead('Svc_Action__c').sort()).toEqual(['ExternalReference__c', 'Id', 'SvcId__c', 'Svc_Project__c', 'Svc_Segment__c', 'Svc_Team__c']);
    expect(parentFieldsToRead('Svc_Segment__c').sort()).toEqual(['ExternalReference__c', 'Id', 'SvcId__c']);
  });

  it('is pure: linkRecords copies fields and never mutates its input', () => {
    const rec = mapped('team', 'T', CHAIN.project);
    const before = JSON.stringify(rec);
    const parents = new Map([['Project_1', { Id: 'a0B000000000001AAA', SvcId__c: 'Project_1', Svc_Segment__c: 'a0A000000000001AAA' }]]);
    const { records } = linkRecords([rec], parents);
    expect(records[0]).toEqual({ SvcId__c: 'T', Name: 'T', Svc_Project__c: 'a0B000000000001AAA', Svc_Segment__c: 'a0A000000000001AAA' });
    expect(JSON.stringify(rec)).toBe(before);
  });
});
