/**
 * SPEC.md section 2, field by field, read from the schema table: every form a source value may
 * take (absent, null, blank; a number or a numeric string; each ISO 8601 spelling of a time; a
 * nested object that is null) maps to the same CRM value, or to "not sent" when it is blank.
 */
import { describe, expect, it } from '@jest/globals';
import { mapQuestions, mapRecord } from '../../src/mapping/map.js';
import type { FieldDef } from '../../src/mapping/fieldTypes.js';
import type { ObjectType } from '../../src/model/objects.js';
import { SCHEMA } from '../../src/mapping/schema.js';
import type { MapResult } from '../../src/mapping/types.js';
import type { ApiAction, ApiRecordOf, ApiUser } from '../../src/model/apiRecords.js';
import { asRecord, asSkip } from './helpers.js';

type Json = Record<string, unknown>;

/** A minimal record of each type that maps (passes its filters, has its parent). */
const BASE: Record<ObjectType, Json> = {
  segment: { id: 1 },
  project: { id: 1, segment_id: 2 },
  team: { id: 1, project_id: 3 },
  company: { id: 1, project_id: 3 },
  action: { id: 1, team_id: 4, fundraiser_page: true, owner: { id: 9 } },
  question: { id: 2, answer: 'A' },
  donation: { id: 1, action_id: 7, payment_status: 'paid', total_amount: '5.0' },
  newsletter_subscription: { id: 1, project_id: 3 },
};

const ABSENT = Symbol('absent');

/** Sets (or, for ABSENT, removes) a dotted path, creating the objects on the way. */
function setPath(obj: Json, parts: string[], value: unknown): void {
  let cur = obj;
  for (const k of parts.slice(0, -1)) {
    cur[k] = typeof cur[k] === 'object' && cur[k] !== null ? structuredClone(cur[k]) : {};
    cur = cur[k] as Json;
  }
  const last = parts[parts.length - 1] as string;
  if (value === ABSENT) delete cur[last];
  else cur[last] = value;
}

/** Maps a record of `type` with `value` at the field's source path: the record, the owner's user record or the selected consent. */
function mapWithValue(type: ObjectType, def: FieldDef, value: unknown): MapResult {
  const [root, ...rest] = (def.source as string).split('.');
  const record: Json = structuredClone(BASE[type]);
  const user: Json = { id: 9 };
  const consent: Json = { consent_type: SCHEMA[type].consentType, consent_status: 'granted' };
  setPath(root === 'user' ? user : root === 'consent' ? consent : record, rest, value);
  if (root === 'consent') record.consents = [consent];
  if (type === 'question') return mapQuestions({ id: 7, questions: [record] } as unknown as ApiAction)[0] as MapResult;
  const extras = type === 'action' ? { user: user as unknown as ApiUser } : {};
  return mapRecord(type, record as unknown as ApiRecordOf[typeof type], extras);
}

/** Every field with an API source that a value form can reach (not keys, templates or derived values). */
const FIELDS: Array<[ObjectType, FieldDef]> = (Object.keys(SCHEMA) as ObjectType[]).flatMap((type) =>
  SCHEMA[type].fields
    .filter((f) => f.source !== undefined && /^(record|user|consent)\./.test(f.source) && f.type.kind !== 'lookup')
    .filter((f) => !SCHEMA[type].filters.some((r) => r.path === f.source))
    .map((f): [ObjectType, FieldDef] => [type, f]),
);

/** Spellings of one value per CRM type, with the value each must give. */
function formsOf(def: FieldDef): { forms: unknown[]; value: unknown } {
  switch (def.type.kind) {
    case 'text':
      return def.type.length < 6 ? { forms: ['nl'], value: 'nl' } : { forms: ['Arnhem'], value: 'Arnhem' };
    case 'longtext':
      return def.type.html ? { forms: ['<p>Arnhem</p>', 'Arnhem'], value: 'Arnhem' } : { forms: ['Arnhem'], value: 'Arnhem' };
    case 'number':
      return { forms: [20, '20', '20.0', ' 20.00 ', 20.0], value: 20 };
    case 'checkbox':
      return { forms: [true, 'true', 'True', 1, '1'], value: true };
    case 'date':
      return { forms: ['1990-05-01', '1990-05-01T00:00:00Z', '1990-05-01 10:00:00+02:00'], value: '1990-05-01' };
    case 'datetime':
      return {
        forms: ['2026-01-05T10:00:00Z', '2026-01-05T10:00:00.000+0000', '2026-01-05T11:00:00+01:00', '2026-01-05T10:00:00', '2026-01-05 10:00:00Z'],
        value: '2026-01-05T10:00:00.000Z',
      };
    default:
      throw new Error(`no forms for ${def.type.kind}`);
  }
}

describe.each(FIELDS.map(([type, def]) => [`${SCHEMA[type].apiName}.${def.name} <- ${def.source}`, type, def] as const))('%s', (_label, type, def) => {
  it('every spelling of one value gives the same CRM value', () => {
    const { forms, value } = formsOf(def);
    for (const form of forms) {
      const r = asRecord(mapWithValue(type, def, form));
      expect({ form, value: r.fields[def.name] }).toEqual({ form, value });
    }
  });

  it('absent, null, empty and blank are all "not sent" (a checkbox: its default)', () => {
    const want = def.type.kind === 'checkbox' ? def.type.default : undefined;
    for (const blank of [ABSENT, null, '', '   ']) {
      const r = asRecord(mapWithValue(type, def, blank));
      expect({ blank: String(blank), value: r.fields[def.name] }).toEqual({ blank: String(blank), value: want });
    }
  });

  if ((def.source as string).split('.').length > 2 && (def.source as string).startsWith('record.')) {
    it('a nested object that is null or absent is "not sent"', () => {
      const top = (def.source as string).split('.')[1] as string;
      for (const parent of [null, ABSENT, 'not an object']) {
        const record: Json = { ...structuredClone(BASE[type]) };
        if (parent !== ABSENT) record[top] = parent;
        const r = asRecord(mapRecord(type as Exclude<ObjectType, 'question'>, record as unknown as ApiRecordOf['donation'], type === 'action' ? { user: { id: 9 } } : {}));
        expect({ parent: String(parent), value: r.fields[def.name] }).toEqual({ parent: String(parent), value: undefined });
      }
    });
  }
});

describe('ids and keys', () => {
  it.each([12, '12', ' 12 '])('a record id %j gives the same key', (id) => {
    expect(asRecord(mapRecord('segment', { id } as unknown as ApiRecordOf['segment'])).key).toBe('Segment_12');
    const [q] = mapQuestions({ id, questions: [{ id, answer: 'A' }] } as unknown as ApiAction);
    expect(asRecord(q).key).toBe('ActionQuestion_12.12');
    expect(asRecord(q).fields.QuestionSvcId__c).toBe('Question_12');
  });

  it('a malformed record id fails the record, saying what it was', () => {
    const r = mapRecord('segment', { id: 'x12' } as unknown as ApiRecordOf['segment']);
    expect(r).toMatchObject({ kind: 'invalid', key: '(no id)', error: { code: 'MISSING_ID', message: 'the record\'s id "x12" is not a positive whole number' } });
    expect(mapRecord('segment', {} as ApiRecordOf['segment'])).toMatchObject({ kind: 'invalid', error: { message: 'the record has no id' } });
  });

  it('an owner id given as a numeric string still selects the user record', () => {
    const r = asRecord(mapRecord('action', { id: 1, team_id: 4, owner: { id: '9' } } as unknown as ApiAction, { user: { id: 9, city: 'Arnhem' } }));
    expect(r.fields.City__c).toBe('Arnhem');
    expect(r.warnings).toEqual([]);
  });
});

describe('filters and selections read every spelling of their values', () => {
  const donation = (over: Json): MapResult => mapRecord('donation', { ...BASE.donation, ...over } as unknown as ApiRecordOf['donation']);

  it('payment_status matches whatever its case and surrounding blanks', () => {
    for (const status of ['paid', 'Paid', ' REFUNDED ', 'Chargedback']) expect(donation({ payment_status: status }).kind).toBe('record');
    expect(asSkip(donation({ payment_status: 'Pending' })).reason).toMatch(/payment_status 'Pending'/);
  });

  it('total_amount zero in any spelling is skipped; one that is no number at all fails the record instead', () => {
    for (const zero of [0, '0', '0.0', ' 0.00 ', '-0']) expect(asSkip(donation({ total_amount: zero })).reason).toMatch(/^zero total amount/);
    expect(donation({ total_amount: 'n/a' })).toMatchObject({ kind: 'invalid', error: { code: 'INVALID_VALUE', message: 'TotalAmount__c: not a number: "n/a"' } });
  });

  it('a consent is selected whatever the case of its status and type', () => {
    const consents = [{ consent_type: ' Terms_Conditions ', consent_status: 'GRANTED', url: 'https://x.test/tc' }];
    expect(asRecord(donation({ consents })).fields.ConsentURL__c).toBe('https://x.test/tc');
  });

  it('URL__c of an action is sent when fundraiser_page is true in any spelling, not otherwise', () => {
    const action = (fundraiser_page: unknown): MapResult => mapRecord('action', { id: 1, team_id: 4, url: 'https://x.test/a', fundraiser_page } as unknown as ApiAction, { user: { id: 9 } });
    for (const yes of [true, 'true', 1, '1']) expect(asRecord(action(yes)).fields.URL__c).toBe('https://x.test/a');
    for (const no of [false, 'false', 0, null, undefined]) expect(asRecord(action(no)).fields.URL__c).toBeUndefined();
  });
});
