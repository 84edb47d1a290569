import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { matchesWhere, parseSoql } from '../../fixtures/salesforce/soql.js';
import { buildInQueries, encodeSoql, escapeSoqlString, soqlLiteral } from '../../src/crm/soql.js';
import { segments, setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('SOQL building', () => {
  it('escapes backslash first, then quote, so a value never ends its literal', () => {
    expect(escapeSoqlString("a\\'b")).toBe("a\\\\\\'b");
    for (const v of ["O'Brien", "x\\' OR Name != null OR SvcId__c = '", 'back\\slash', 'tab\tnew\nline"q']) {
      const parsed = parseSoql(`SELECT Id FROM Svc_Segment__c WHERE SvcId__c IN (${soqlLiteral(v)}, 'b')`);
      expect(parsed.where).toEqual([{ field: 'SvcId__c', op: 'in', values: [v, 'b'] }]);
    }
  });

  it('chunks IN lists by URL length, not by count, and refuses unsafe identifiers', () => {
    const values = Array.from({ length: 600 }, (_, i) => `Key_${i}_${'z'.repeat(i % 40)}`);
    const queries = buildInQueries({ fields: ['Id', 'SvcId__c'], object: 'Svc_Segment__c', field: 'SvcId__c', values }, 60, 4000);
    expect(queries.length).toBeGreaterThan(1);
    for (const q of queries) expect(60 + encodeSoql(q).length).toBeLessThanOrEqual(4000);
    expect(queries.flatMap((q) => parseSoql(q).where[0].values)).toEqual(values);
    expect(() => buildInQueries({ fields: ['Id, (SELECT Id FROM x)'], object: 'Svc_Segment__c', field: 'SvcId__c', values: ['a'] }, 0)).toThrow(/not a Salesforce field/);
  });

  it('the emulator takes a WHERE of ORs, and refuses AND and OR mixed without parentheses, as Salesforce does', () => {
    const parsed = parseSoql("SELECT Id FROM Account WHERE Id IN ('001a') OR SvcDonorKey__c IN ('k')");
    expect(parsed).toMatchObject({
      or: true,
      where: [
        { field: 'Id', op: 'in', values: ['001a'] },
        { field: 'SvcDonorKey__c', op: 'in', values: ['k'] },
      ],
    });
    expect(matchesWhere({ Id: '001b', SvcDonorKey__c: 'K' }, parsed)).toBe(true);
    expect(matchesWhere({ Id: '001b', SvcDonorKey__c: 'j' }, parsed)).toBe(false);
    expect(parseSoql("SELECT Id FROM Account WHERE Id IN ('001a') AND SvcDonorKey__c IN ('k')").or).toBeUndefined();
    expect(() => parseSoql("SELECT Id FROM Account WHERE Id IN ('a') OR Name = 'b' AND Phone = 'c'")).toThrow(/mixed/);
    expect(() => parseSoql("SELECT Id FROM Account WHERE Id IN ('a') AND Name = 'b' OR Phone = 'c'")).toThrow(/mixed/);
  });
});

describe('readByKeys and readWhere', () => {
  it('reads current values of exactly the asked fields (the dry-run read), unknown keys absent', async () => {
    const s = await setup();
    emu = s.emu;
    await s.sink.upsert('Svc_Segment__c', segments(3));
    const got = await s.sink.readByKeys('Svc_Segment__c', ['Segment_1', 'Segment_3', 'Segment_99'], ['Name', 'Title__c', 'TargetAmount__c', 'EndDate__c']);
    expect([...got.keys()].sort()).toEqual(['Segment_1', 'Segment_3']);
    expect(got.get('Segment_3')).toEqual({
      Id: emu.get('Svc_Segment__c', 'Segment_3')!.Id,
      SvcId__c: 'Segment_3',
      Name: 'Segment 3',
      Title__c: 'Title 3',
      TargetAmount__c: 30,
      EndDate__c: null,
    });
    expect(emu.queries()).toHaveLength(1);
  });

  it('handles a quote and a backslash in an external id safely', async () => {
    const s = await setup();
    emu = s.emu;
    const nasty = ["Segment_O'Brien", 'Segment_back\\slash', "Segment_\\' OR SvcId__c != null OR SvcId__c = '"];
    const out = await s.sink.upsert(
      'Svc_Segment__c',
      nasty.map((k) => ({ SvcId__c: k, Name: 'n' })),
    );
    expect(out.every((o) => o.status === 'created')).toBe(true);
    await s.sink.upsert('Svc_Segment__c', segments(5));
    const got = await s.sink.readByKeys('Svc_Segment__c', nasty, ['Name']);
    expect([...got.keys()].sort()).toEqual([...nasty].sort());
    // the injection attempt matched itself only, not every record
    const only = await s.sink.readByKeys('Svc_Segment__c', [nasty[2]], ['Name']);
    expect([...only.keys()]).toEqual([nasty[2]]);
  });

  it('reads many keys in a few URL-sized queries and follows query paging', async () => {
    const s = await setup({ queryPageSize: 100, maxUrlLength: 16384 });
    emu = s.emu;
    const recs = segments(2500, 1, (i) => ({ SvcId__c: `Segment_${i}_${'k'.repeat(30)}` }));
    await s.sink.upsert('Svc_Segment__c', recs);
    emu.resetCalls();
    const got = await s.sink.readByKeys(
      'Svc_Segment__c',
      recs.map((r) => String(r.SvcId__c)),
      ['Title__c'],
    );
    expect(got.size).toBe(2500);
    const statements = emu.queries().length;
    expect(statements).toBeGreaterThan(1);
    expect(statements).toBeLessThan(40);
    // every statement pages in 100s: more query calls than statements
    expect(emu.calls().query).toBeGreaterThan(statements);
    expect(s.sink.calls().query).toBe(emu.calls().query);
  });

  it('reads children by parent lookup', async () => {
    const s = await setup();
    emu = s.emu;
    const [a, b] = await s.sink.upsert('Svc_Segment__c', segments(2));
    const idA = a.status === 'created' ? a.id : '';
    const idB = b.status === 'created' ? b.id : '';
    await s.sink.upsert('Svc_Project__c', [
      { SvcId__c: 'Project_1', Svc_Segment__c: idA },
      { SvcId__c: 'Project_2', Svc_Segment__c: idB },
      { SvcId__c: 'Project_3', Svc_Segment__c: idA },
    ]);
    const kids = await s.sink.readWhere('Svc_Project__c', 'Svc_Segment__c', [idA], ['Svc_Segment__c']);
    expect(kids.map((k) => k.SvcId__c).sort()).toEqual(['Project_1', 'Project_3']);
    expect(kids.every((k) => k.Svc_Segment__c === idA)).toBe(true);
  });
});
