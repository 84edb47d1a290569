/**
 * The engine's parent rules over the real clients and the local servers: a missing parent is
 * fetched and written first; an absent one (404) leaves the child unlinked with a warning; a
 * parent that exists but fails leaves the child failed, to be tried again, never linked wrong.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine, type EngineOptions } from '../../src/sync/mirror/engine.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempFolders } from '../support/tempFolders.js';

const cwdFolder = tempFolders('svc-engine-');

let stack: Stack;

beforeEach(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 30, newsletterSubscriptions: 0 } });
});
afterEach(async () => {
  await stack.close();
});

async function engine(opts: Partial<EngineOptions> = {}): Promise<SyncEngine> {
  const settings = settingsOf(loadRaw({ env: stack.env, cwd: cwdFolder() }));
  // Few retries, so an injected outage is a failure rather than a wait.
  const source = createPlatformSource(settings.platform, {}, { retries: 1, retryBaseMs: 10, retryMaxMs: 20 });
  return new SyncEngine(source, await SalesforceSink.connect(settings.salesforce), { dryRun: false, force: false, strictParents: false, batchSize: 100, ...opts });
}

function donationOnAction() {
  const d = stack.platform.site.donation.find((x) => typeof x.action_id === 'number' && x.payment_status === 'paid' && Number(x.total_amount) !== 0);
  if (!d || typeof d.action_id !== 'number') throw new Error('the site has no paid donation on an action');
  return { donation: d, actionId: d.action_id };
}

describe('parents of a synced record', () => {
  it('fetches and writes a missing parent chain first, and links the child to it', async () => {
    const { donation, actionId } = donationOnAction();
    const e = await engine();
    await e.syncRefs([{ type: 'donation', id: donation.id }]);
    const sf = stack.salesforce;
    const action = sf.get('Svc_Action__c', `Action_${actionId}`);
    expect(action).toBeDefined();
    expect(sf.get('Svc_Donation__c', `Donation_${donation.id}`)).toMatchObject({
      Svc_Action__c: action!.Id,
      Svc_Team__c: action!.Svc_Team__c,
      Svc_Project__c: action!.Svc_Project__c,
      Svc_Segment__c: action!.Svc_Segment__c,
      TargetSvcId__c: `Action_${actionId}`,
    });
    expect(e.report.missingParents).toEqual([]);
  });

  it('writes a child whose parent is gone from the platform unlinked, with a warning', async () => {
    const { donation, actionId } = donationOnAction();
    stack.platform.remove('action', actionId);
    const e = await engine();
    await e.syncRefs([{ type: 'donation', id: donation.id }]);
    const written = stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`);
    expect(written).toMatchObject({ Svc_Action__c: null, Svc_Team__c: null, Svc_Project__c: null, Svc_Segment__c: null, TargetSvcId__c: `Action_${actionId}` });
    expect(e.report.missingParents).toEqual([
      { object: 'Svc_Donation__c', key: `Donation_${donation.id}`, parent: `Action_${actionId}`, reason: 'not found on the platform (deleted or never existed): 404 by id' },
    ]);
    expect(e.report.outcomeOf(`Donation_${donation.id}`)?.action).toBe('insert');
    expect(e.report.warnings.join('\n')).toContain(`parent Action_${actionId} not found: not found on the platform`);
  });

  it('skips that child instead with strictParents', async () => {
    const { donation, actionId } = donationOnAction();
    stack.platform.remove('action', actionId);
    const e = await engine({ strictParents: true });
    await e.syncRefs([{ type: 'donation', id: donation.id }]);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeUndefined();
    expect(e.report.outcomeOf(`Donation_${donation.id}`)).toEqual({ action: 'skip', reason: expect.stringContaining('--strict-parents') });
  });

  it('fails a child whose parent exists but cannot be fetched, so it is tried again', async () => {
    const { donation, actionId } = donationOnAction();
    stack.platform.faults.next(10, 'html500', { path: `/v1/actions/${actionId}` });
    const e = await engine();
    await e.syncRefs([{ type: 'donation', id: donation.id }]);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeUndefined();
    expect(e.report.outcomeOf(`Donation_${donation.id}`)).toEqual({ action: 'fail', reason: expect.stringMatching(new RegExp(`^parent Action_${actionId} failed: could not be fetched`)) });
    expect(e.report.failed).toBe(1);
    expect(e.report.missingParents).toEqual([]);
  });

  it('still syncs a requested record that an earlier level read from Salesforce only as a parent', async () => {
    const first = await engine();
    await first.syncScan(['segment', 'project', 'team'], {});
    const project = stack.platform.site.project[0]!;
    stack.platform.update('project', project.id, { title: 'Renamed on the platform' });
    const e = await engine();
    await e.syncScan(['team'], {}); // reads Project_N from Salesforce to link the teams
    await e.syncRefs([{ type: 'project', id: project.id }]);
    expect(e.report.outcomeOf(`Project_${project.id}`)?.action).toBe('update');
    expect(stack.salesforce.get('Svc_Project__c', `Project_${project.id}`)?.Title__c).toBe('Renamed on the platform');
  });

  describe('a record that names no parent that can be read', () => {
    it('is written unlinked with a warning and a missingParents entry (parent null, the reason); its children still link to it', async () => {
      const project = stack.platform.site.project[0]!;
      stack.platform.update('project', project.id, { segment_id: null });
      const e = await engine();
      await e.syncScan(['segment', 'project', 'team'], {});
      const key = `Project_${project.id}`;
      expect(e.report.missingParents).toEqual([{ object: 'Svc_Project__c', key, parent: null, reason: 'no parent id: segment_id all blank' }]);
      expect(e.report.warnings).toContain(`${key}: no parent: no parent id: segment_id all blank`);
      expect(e.report.outcomeOf(key)?.action).toBe('insert');
      const written = stack.salesforce.get('Svc_Project__c', key);
      expect(written?.Svc_Segment__c ?? null).toBeNull();
      const team = stack.platform.site.team.find((t) => t.project_id === project.id)!;
      expect(stack.salesforce.get('Svc_Team__c', `Team_${team.id}`)?.Svc_Project__c).toBe(written?.Id);
      // Segments have no parent: never reported.
      expect(e.report.missingParents.some((m) => m.object === 'Svc_Segment__c')).toBe(false);
    });

    it('a malformed id is reported, never replaced by a less specific one', async () => {
      const { donation } = donationOnAction();
      stack.platform.update('donation', donation.id, { action_id: 'A-17' as unknown as number });
      const e = await engine();
      await e.syncRefs([{ type: 'donation', id: donation.id }]);
      const key = `Donation_${donation.id}`;
      expect(e.report.missingParents).toEqual([{ object: 'Svc_Donation__c', key, parent: null, reason: 'malformed action_id "A-17": not a positive whole number' }]);
      const written = stack.salesforce.get('Svc_Donation__c', key);
      expect(written).toMatchObject({ Svc_Action__c: null, Svc_Team__c: null, Svc_Project__c: null, Svc_Segment__c: null });
      expect(written?.TargetSvcId__c ?? null).toBeNull();
    });

    it('with strictParents it is skipped with that reason, and its children are skipped as its parent is missing', async () => {
      const project = stack.platform.site.project[0]!;
      stack.platform.update('project', project.id, { segment_id: 'seg-1' as unknown as number });
      const e = await engine({ strictParents: true });
      await e.syncScan(['segment', 'project', 'team'], {});
      const key = `Project_${project.id}`;
      expect(e.report.outcomeOf(key)).toEqual({ action: 'skip', reason: 'no parent: malformed segment_id "seg-1": not a positive whole number (--strict-parents)' });
      expect(stack.salesforce.get('Svc_Project__c', key)).toBeUndefined();
      const team = stack.platform.site.team.find((t) => t.project_id === project.id)!;
      expect(e.report.outcomeOf(`Team_${team.id}`)).toEqual({ action: 'skip', reason: expect.stringContaining(`parent ${key} not found`) });
    });
  });
});

describe('absence proven by list scans', () => {
  const SCAN = 'not found on the platform (deleted or never existed): not in a complete list scan';
  const BY_ID = 'not found on the platform (deleted or never existed): 404 by id';

  it('a complete, unfiltered scan of the parents proves a deleted parent absent: no by-id request for it', async () => {
    const { donation, actionId } = donationOnAction();
    stack.platform.remove('action', actionId);
    const e = await engine();
    stack.platform.resetCounts();
    await e.syncScan(['segment', 'project', 'team', 'company', 'action', 'donation'], {});
    expect(stack.platform.requests.byId.actions ?? 0).toBe(0);
    expect(e.report.missingParents).toContainEqual({ object: 'Svc_Donation__c', key: `Donation_${donation.id}`, parent: `Action_${actionId}`, reason: SCAN });
    expect(e.report.warnings.join('\n')).toContain(`parent Action_${actionId} not found: ${SCAN}`);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toMatchObject({ Svc_Action__c: null, TargetSvcId__c: `Action_${actionId}` });
  });

  it('requested ids too: after a complete scan, ids absent from it are not found at no request', async () => {
    const e = await engine();
    await e.syncScan(['segment'], {});
    stack.platform.resetCounts();
    const ghosts = [9_000_001, 9_000_002, 9_000_003];
    await e.syncRefs(ghosts.map((id) => ({ type: 'segment', id })));
    expect(stack.platform.requests.total).toBe(0);
    for (const id of ghosts) expect(e.report.outcomeOf(`Segment_${id}`)).toEqual({ action: 'skip', reason: SCAN });
  });

  it('a filtered scan proves nothing: the parent is asked for by id', async () => {
    const { donation, actionId } = donationOnAction();
    stack.platform.remove('action', actionId);
    const e = await engine();
    stack.platform.resetCounts();
    await e.syncScan(['action', 'donation'], { updatedAfter: '2000-01-01T00:00:00Z' });
    expect(stack.platform.requests.byId.actions).toBe(1);
    expect(e.report.missingParents).toContainEqual({ object: 'Svc_Donation__c', key: `Donation_${donation.id}`, parent: `Action_${actionId}`, reason: BY_ID });
  });

  it('a scan that failed part-way proves nothing for what it missed: by id again', async () => {
    const e = await engine();
    // The second page of segments fails for good; 250 ids make the planner scan (3 pages < 250 by id).
    const site = stack.platform.site.segment;
    while (site.length < 250) site.push({ ...site[0]!, id: 10_000 + site.length });
    stack.platform.faults.next(10, 'html500', { path: /\/v1\/segments\?.*page=2/ });
    stack.platform.resetCounts();
    const ghost = 9_000_009;
    await e.syncRefs([...site.map((r) => ({ type: 'segment' as const, id: r.id })), { type: 'segment', id: ghost }]);
    expect(stack.platform.requests.byId.segments).toBeGreaterThan(0);
    expect(e.report.outcomeOf(`Segment_${ghost}`)).toEqual({ action: 'skip', reason: BY_ID });
  });
});
