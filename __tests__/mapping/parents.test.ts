/**
 * Parent references, every row of the cascade tables of SPEC.md 2.3-2.9: the parent's type, key,
 * the direct lookup on the child and the lookups copied from the parent's CRM record.
 */
import { describe, expect, it } from '@jest/globals';
import { mapQuestions, mapRecord, parentOfRecord, parentRef } from '../../src/mapping/map.js';
import type { ParentRef } from '../../src/mapping/types.js';
import type { ApiAction, ApiDonation, ApiEntity, ApiNewsletterSubscription } from '../../src/model/apiRecords.js';
import { asRecord, full } from './helpers.js';

const USER = full('user');

const SEGMENT_2: ParentRef = { type: 'segment', object: 'Svc_Segment__c', id: 2, key: 'Segment_2', direct: 'Svc_Segment__c', inherit: [] };
const PROJECT_3: ParentRef = { type: 'project', object: 'Svc_Project__c', id: 3, key: 'Project_3', direct: 'Svc_Project__c', inherit: ['Svc_Segment__c'] };
const TEAM_4: ParentRef = { type: 'team', object: 'Svc_Team__c', id: 4, key: 'Team_4', direct: 'Svc_Team__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] };
const COMPANY_1: ParentRef = { type: 'company', object: 'Svc_Company__c', id: 1, key: 'Company_1', direct: 'Svc_Company__c', inherit: ['Svc_Project__c', 'Svc_Segment__c'] };
const ACTION_7: ParentRef = {
  type: 'action',
  object: 'Svc_Action__c',
  id: 7,
  key: 'Action_7',
  direct: 'Svc_Action__c',
  inherit: ['Svc_Team__c', 'Svc_Project__c', 'Svc_Segment__c'],
};

describe('Svc_Segment__c (2.2): top level', () => {
  it('has no parent, whatever ids the record carries', () => {
    const seg = JSON.parse('{"id":12,"name":"S","segment_id":2,"project_id":3}') as ApiEntity;
    expect(asRecord(mapRecord('segment', seg)).parent).toBeNull();
  });
});

describe('Svc_Project__c (2.3)', () => {
  it('Segment parent: direct Svc_Segment__c', () => {
    expect(asRecord(mapRecord('project', { id: 1, segment_id: 2 })).parent).toEqual(SEGMENT_2);
  });
  it('no segment_id: no parent', () => {
    expect(asRecord(mapRecord('project', { id: 1 })).parent).toBeNull();
  });
});

describe.each(['company', 'team'] as const)('Svc_%s__c (2.4 / 2.5)', (type) => {
  it('Project parent: direct Svc_Project__c, Svc_Segment__c inherited', () => {
    expect(asRecord(mapRecord(type, { id: 1, project_id: 3, segment_id: 2 })).parent).toEqual(PROJECT_3);
  });
  it('Segment parent: direct Svc_Segment__c, nothing inherited', () => {
    expect(asRecord(mapRecord(type, { id: 1, segment_id: 2 })).parent).toEqual(SEGMENT_2);
  });
});

describe('Svc_Action__c (2.6)', () => {
  const ids: Partial<ApiAction> = { team_id: 4, company_id: 1, project_id: 3, segment_id: 2 };
  it.each<[string, Partial<ApiAction>, ParentRef]>([
    ['Team parent: direct Svc_Team__c, Svc_Project__c and Svc_Segment__c inherited', ids, TEAM_4],
    ['Company parent: direct Svc_Company__c, Svc_Project__c and Svc_Segment__c inherited', { ...ids, team_id: null }, COMPANY_1],
    ['Project parent: direct Svc_Project__c, Svc_Segment__c inherited', { project_id: 3, segment_id: 2 }, PROJECT_3],
    ['Segment parent: direct Svc_Segment__c, nothing inherited', { segment_id: 2 }, SEGMENT_2],
  ])('%s', (_label, over, expected) => {
    expect(asRecord(mapRecord('action', { id: 50, ...over }, { user: USER })).parent).toEqual(expected);
  });

  it('takes ids given as numeric strings', () => {
    const rec = JSON.parse('{"id":50,"team_id":" 4 ","company_id":"1","project_id":"3","segment_id":2}') as ApiAction;
    expect(asRecord(mapRecord('action', rec, { user: USER })).parent).toEqual(TEAM_4);
    const rec2 = JSON.parse('{"id":50,"team_id":null,"company_id":"","project_id":"3","segment_id":"2"}') as ApiAction;
    expect(asRecord(mapRecord('action', rec2, { user: USER })).parent).toEqual(PROJECT_3);
  });

  it.each<[string, string, string]>([
    ['0 is no id', '{"id":50,"team_id":0,"segment_id":2}', 'malformed team_id 0: not a positive whole number'],
    ['a non-numeric id', '{"id":50,"company_id":"abc","segment_id":2}', 'malformed company_id "abc": not a positive whole number'],
    ['a fraction', '{"id":50,"project_id":3.5,"segment_id":2}', 'malformed project_id 3.5: not a positive whole number'],
    ['a negative id', '{"id":50,"segment_id":-2}', 'malformed segment_id -2: not a positive whole number'],
    ['an object', '{"id":50,"team_id":{"id":4}}', 'malformed team_id {"id":4}: not a positive whole number'],
  ])('a malformed id (%s) is a parent problem, with no fallback to a less specific id', (_label, json, problem) => {
    const r = asRecord(mapRecord('action', JSON.parse(json) as ApiAction, { user: USER }));
    expect(r.parent).toBeNull();
    expect(r.parentProblem).toBe(problem);
  });

  it('no id at all is a parent problem naming the ids looked for', () => {
    const r = asRecord(mapRecord('action', { id: 50 }, { user: USER }));
    expect(r.parent).toBeNull();
    expect(r.parentProblem).toBe('no parent id: team_id, company_id, project_id, segment_id all blank');
  });
});

describe('Svc_ActionQuestion__c (2.7)', () => {
  it('Action parent: direct Svc_Action__c, nothing inherited', () => {
    const [q] = mapQuestions({ id: 7, team_id: 4, questions: [{ id: 2, question: 'Q', answer: 'A' }] });
    expect(asRecord(q).parent).toEqual({ type: 'action', object: 'Svc_Action__c', id: 7, key: 'Action_7', direct: 'Svc_Action__c', inherit: [] });
  });
});

describe('Svc_Donation__c (2.8)', () => {
  const ids: Partial<ApiDonation> = { action_id: 7, team_id: 4, company_id: 1, project_id: 3, segment_id: 2 };
  it.each<[string, Partial<ApiDonation>, ParentRef]>([
    ['Action target: direct Svc_Action__c, Svc_Team__c, Svc_Project__c and Svc_Segment__c inherited', ids, ACTION_7],
    ['Team target: direct Svc_Team__c, Svc_Project__c and Svc_Segment__c inherited', { ...ids, action_id: null }, TEAM_4],
    ['Company target: direct Svc_Company__c, Svc_Project__c and Svc_Segment__c inherited', { company_id: 1, project_id: 3, segment_id: 2 }, COMPANY_1],
    ['Project target: direct Svc_Project__c, Svc_Segment__c inherited', { project_id: 3, segment_id: 2 }, PROJECT_3],
    ['Segment target: direct Svc_Segment__c, nothing inherited', { segment_id: 2 }, SEGMENT_2],
  ])('%s', (_label, over, expected) => {
    const r = asRecord(mapRecord('donation', { id: 40, payment_status: 'paid', total_amount: '5', ...over }));
    expect(r.parent).toEqual(expected);
    expect(r.fields.TargetSvcId__c).toBe(expected.key);
  });
});

describe('Svc_NewsletterSubscription__c (2.9): the entity in every form', () => {
  const parse = (json: string): ApiNewsletterSubscription => JSON.parse(json) as ApiNewsletterSubscription;
  it.each<[string, string, ParentRef]>([
    ['nested entity, Project', '{"id":1,"entity":{"entity_type":"project","entity_id":3}}', PROJECT_3],
    ['nested entity, Segment', '{"id":1,"entity":{"entity_type":"segment","entity_id":2}}', SEGMENT_2],
    ['nested entity, capitalised type and id as a string', '{"id":1,"entity":{"entity_type":"Project","entity_id":"3"}}', PROJECT_3],
    ['nested entity, upper case type with blanks around it', '{"id":1,"entity":{"entity_type":"  SEGMENT ","entity_id":" 2 "}}', SEGMENT_2],
    ['top-level entity_type + entity_id', '{"id":1,"entity_type":"project","entity_id":3}', PROJECT_3],
    ['top-level, "Segment" and a numeric string', '{"id":1,"entity_type":"Segment","entity_id":"2"}', SEGMENT_2],
    ['real API project_id (with segment_id)', '{"id":1,"project_id":3,"segment_id":2}', PROJECT_3],
    ['real API segment_id', '{"id":1,"segment_id":2}', SEGMENT_2],
    ['real API ids as numeric strings', '{"id":1,"project_id":"3","segment_id":"2"}', PROJECT_3],
    ['nested entity wins over top-level and real API ids', '{"id":1,"entity":{"entity_type":"segment","entity_id":2},"entity_type":"project","entity_id":3,"project_id":3}', SEGMENT_2],
    ['top-level entity wins over real API ids', '{"id":1,"entity_type":"segment","entity_id":2,"project_id":3}', SEGMENT_2],
    ['a blank nested entity is no form: the next one is read', '{"id":1,"entity":{"entity_type":null,"entity_id":""},"project_id":3}', PROJECT_3],
    ['entity null is no form', '{"id":1,"entity":null,"entity_type":"project","entity_id":3}', PROJECT_3],
  ])('%s', (_label, json, expected) => {
    const r = asRecord(mapRecord('newsletter_subscription', parse(json)));
    expect(r.parent).toEqual(expected);
    expect(r.parentProblem).toBeUndefined();
    expect(parentRef('newsletter_subscription', parse(json))).toEqual(expected);
  });

  it.each<[string, string, string]>([
    [
      'an unknown nested entity_type',
      '{"id":1,"entity":{"entity_type":"Action","entity_id":9},"segment_id":2}',
      'unknown entity.entity_type "Action": a subscription\'s entity is a Project or a Segment',
    ],
    ['an unknown top-level entity_type', '{"id":1,"entity_type":"Site","entity_id":6}', 'unknown entity_type "Site": a subscription\'s entity is a Project or a Segment'],
    ['a team is not an entity of a subscription', '{"id":1,"entity_type":"team","entity_id":4}', 'unknown entity_type "team": a subscription\'s entity is a Project or a Segment'],
    ['a malformed nested entity_id', '{"id":1,"entity":{"entity_type":"project","entity_id":"12abc"}}', 'malformed entity.entity_id "12abc": not a positive whole number'],
    ['entity_id 0', '{"id":1,"entity_type":"project","entity_id":0}', 'malformed entity_id 0: not a positive whole number'],
    ['a type without an id', '{"id":1,"entity":{"entity_type":"project"}}', 'entity.entity_type "project" has no entity_id'],
    ['an id without a type', '{"id":1,"entity_id":3}', 'entity_id 3 has no entity_type'],
    ['an entity that is not an object', '{"id":1,"entity":"project:3"}', 'malformed entity "project:3": not an object'],
    ['a malformed project_id', '{"id":1,"project_id":"n/a","segment_id":2}', 'malformed project_id "n/a": not a positive whole number'],
    ['nothing at all', '{"id":1,"email":"a@b.test"}', 'no entity: entity, entity_type / entity_id, project_id and segment_id all blank'],
  ])('%s: no parent, and the problem said', (_label, json, problem) => {
    const r = asRecord(mapRecord('newsletter_subscription', parse(json)));
    expect(r.parent).toBeNull();
    expect(r.parentProblem).toBe(problem);
    expect(r.fields.Email__c ?? null).toBe(parse(json).email ?? null);
    expect(parentOfRecord('newsletter_subscription', parse(json))).toEqual({ parent: null, problem });
  });
});

describe('records that legitimately have no parent', () => {
  it('a segment has no parent and no problem', () => {
    const r = asRecord(mapRecord('segment', { id: 12, name: 'S' }));
    expect(r.parent).toBeNull();
    expect(r.parentProblem).toBeUndefined();
  });
});
