/**
 * Parent references, every row of the cascade tables of SPEC.md 2.3-2.9: the parent's type, key,
 * the direct lookup on the child and the lookups copied from the parent's CRM record.
 */
import { describe, expect, it } from '@jest/globals';
import { mapQuestions, mapRecord } from '../../src/mapping/map.js';
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

  it('takes ids given as numeric strings, and ignores 0 or non-numeric ids', () => {
    const rec = JSON.parse('{"id":50,"team_id":"4","company_id":0,"project_id":"x3","segment_id":2}') as ApiAction;
    expect(asRecord(mapRecord('action', rec, { user: USER })).parent).toEqual(TEAM_4);
    const rec2 = JSON.parse('{"id":50,"team_id":0,"company_id":"abc","segment_id":2}') as ApiAction;
    expect(asRecord(mapRecord('action', rec2, { user: USER })).parent).toEqual(SEGMENT_2);
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

describe('Svc_NewsletterSubscription__c (2.9)', () => {
  it.each<[string, ApiNewsletterSubscription, ParentRef]>([
    ['Project entity: direct Svc_Project__c, Svc_Segment__c inherited', { id: 1, entity_type: 'project', entity_id: 3 }, PROJECT_3],
    ['Segment entity: direct Svc_Segment__c, nothing inherited', { id: 1, entity_type: 'segment', entity_id: 2 }, SEGMENT_2],
    ['Project (real API project_id)', { id: 1, project_id: 3, segment_id: 2 }, PROJECT_3],
    ['Segment (real API segment_id)', { id: 1, segment_id: 2 }, SEGMENT_2],
  ])('%s', (_label, rec, expected) => {
    expect(asRecord(mapRecord('newsletter_subscription', rec)).parent).toEqual(expected);
  });

  it('ignores an entity of another type (neither project nor segment) and falls to the real API ids', () => {
    const r = asRecord(mapRecord('newsletter_subscription', { id: 1, entity_type: 'action', entity_id: 9, segment_id: 2 }));
    expect(r.parent).toEqual(SEGMENT_2);
  });
});
