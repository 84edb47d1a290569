/** Parents that cannot be found (warning, missingParents, --strict-parents) and a moved team's cascade. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, expectEnvelope, keyOf, LOOKUPS_OF, removeDir, sfRecord, tempCwd } from './helpers.js';

describe('parents', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 11, donations: 120, newsletterSubscriptions: 4 } });
    cwd = tempCwd('parents');
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  describe('a donation whose action is gone from the platform and absent from Salesforce', () => {
    let loose: ApiDonation;
    let strict: ApiDonation;

    beforeAll(() => {
      // Two actions, each with a synced donation, removed from the platform.
      const byAction = new Map<number, ApiDonation>();
      for (const d of stack.platform.site.donation) {
        if (donationSynced(d) && typeof d.action_id === 'number' && !byAction.has(d.action_id)) byAction.set(d.action_id, d);
      }
      const [first, second] = [...byAction.values()];
      if (!first || !second) throw new Error('site lacks two actions with donations');
      loose = first;
      strict = second;
      for (const d of [loose, strict]) expect(stack.platform.remove('action', d.action_id as number)).toBe(true);
    });

    it('is written with a warning, listed in missingParents, its lookups empty', async () => {
      const run = await cliJson(stack, ['object', 'donation', String(loose.id)], cwd);
      expect(run.code).toBe(0);
      expectEnvelope(run, 'object', false);
      const parent = keyOf('action', loose.action_id as number);
      expect(run.body.result.missingParents).toEqual([
        { object: 'Svc_Donation__c', key: keyOf('donation', loose.id), parent, reason: 'not found on the platform (deleted or never existed): 404 by id' },
      ]);
      expect(run.body.result.summary.Svc_Donation__c.inserted).toBe(1);
      expect(run.body.warnings.some((w) => w.includes(keyOf('donation', loose.id)) && w.includes(parent))).toBe(true);
      const outcome = run.body.result.records.find((r) => r.key === keyOf('donation', loose.id));
      expect(outcome?.action).toBe('insert');
      expect(outcome?.warnings?.some((w) => w.includes(parent))).toBe(true);
      const rec = sfRecord(stack, 'donation', loose.id);
      for (const f of LOOKUPS_OF('donation')) expect({ f, value: rec[f] ?? null }).toEqual({ f, value: null });
      expect(stack.salesforce.get('Svc_Action__c', parent)).toBeUndefined();

      // The human output has a missing-parents section.
      const human = await cli(stack, ['object', 'donation', String(loose.id)], cwd);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('Missing parents (1), by reason:');
      expect(human.stdout).toContain(parent);
    });

    it('with --strict-parents it is skipped, not written', async () => {
      const run = await cliJson(stack, ['object', 'donation', String(strict.id), '--strict-parents'], cwd);
      expect(run.code).toBe(0);
      const parent = keyOf('action', strict.action_id as number);
      expect(run.body.result.missingParents).toEqual([
        { object: 'Svc_Donation__c', key: keyOf('donation', strict.id), parent, reason: 'not found on the platform (deleted or never existed): 404 by id' },
      ]);
      const outcome = run.body.result.records.find((r) => r.key === keyOf('donation', strict.id));
      expect(outcome?.action).toBe('skip');
      expect(outcome?.reason).toMatch(/--strict-parents/);
      expect(run.body.result.summary.Svc_Donation__c).toMatchObject({ inserted: 0, skipped: 1 });
      expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', strict.id))).toBeUndefined();
    });
  });

  describe('a team moved to a project of another segment', () => {
    it('after a full sync, `object team` moves the team and carries its actions and their donations along, with no platform request for them', async () => {
      const full = await cliJson(stack, ['sync', '--all'], cwd);
      expect(full.code).toBe(0);
      const site = stack.platform.site;

      // A team whose actions have donations in Salesforce, and a project in another segment.
      const team = site.team.find((t) =>
        site.action.some((a) => a.team_id === t.id && site.donation.some((d) => d.action_id === a.id && stack.salesforce.get('Svc_Donation__c', keyOf('donation', d.id)))),
      );
      if (!team) throw new Error('no team with donations to its actions');
      const target = site.project.find((p) => p.segment_id !== team.segment_id);
      if (!target) throw new Error('no project in another segment');
      const teamRec = sfRecord(stack, 'team', team.id);
      const newProject = sfRecord(stack, 'project', target.id);
      const newSegment = sfRecord(stack, 'segment', target.segment_id as number);
      expect(teamRec.Svc_Project__c).not.toBe(newProject.Id);
      expect(teamRec.Svc_Segment__c).not.toBe(newSegment.Id);

      // Descendants already in Salesforce, found there: actions of the team, and donations to them or to the team.
      const actions = stack.salesforce.records('Svc_Action__c').filter((a) => a.Svc_Team__c === teamRec.Id);
      const actionIds = new Set(actions.map((a) => a.Id));
      const donations = stack.salesforce
        .records('Svc_Donation__c')
        .filter((d) => (typeof d.Svc_Action__c === 'string' && actionIds.has(d.Svc_Action__c)) || (d.Svc_Action__c == null && d.Svc_Team__c === teamRec.Id));
      expect(actions.length).toBeGreaterThan(0);
      expect(donations.some((d) => d.Svc_Action__c != null)).toBe(true);

      stack.platform.update('team', team.id, { project_id: target.id, segment_id: target.segment_id });
      stack.platform.resetCounts();
      const run = await cliJson(stack, ['object', 'team', String(team.id)], cwd);
      expect(run.code).toBe(0);

      const moved = sfRecord(stack, 'team', team.id);
      expect(moved.Svc_Project__c).toBe(newProject.Id);
      expect(moved.Svc_Segment__c).toBe(newSegment.Id);
      for (const a of actions) {
        const now = stack.salesforce.get('Svc_Action__c', a.SvcId__c);
        expect({ key: a.SvcId__c, team: now?.Svc_Team__c, project: now?.Svc_Project__c, segment: now?.Svc_Segment__c }).toEqual({
          key: a.SvcId__c,
          team: teamRec.Id,
          project: newProject.Id,
          segment: newSegment.Id,
        });
      }
      for (const d of donations) {
        const now = stack.salesforce.get('Svc_Donation__c', d.SvcId__c);
        expect({ key: d.SvcId__c, team: now?.Svc_Team__c, project: now?.Svc_Project__c, segment: now?.Svc_Segment__c }).toEqual({
          key: d.SvcId__c,
          team: teamRec.Id,
          project: newProject.Id,
          segment: newSegment.Id,
        });
      }
      // The report lists each descendant's update, and the team's own lookup changes.
      const updated = new Set(run.body.result.records.filter((r) => r.action === 'update').map((r) => r.key));
      for (const rec of [...actions, ...donations]) expect(updated.has(rec.SvcId__c)).toBe(true);
      const teamOutcome = run.body.result.records.find((r) => r.key === keyOf('team', team.id));
      expect(Object.keys(teamOutcome?.changes ?? {})).toEqual(expect.arrayContaining(['Svc_Project__c', 'Svc_Segment__c']));
      // Only the team itself came from the platform: the new project is already in Salesforce, descendants use Salesforce alone.
      expect(stack.platform.requests.byId).toEqual({ teams: 1 });
      expect(stack.platform.requests.listTotal).toBe(0);
    });
  });
});
