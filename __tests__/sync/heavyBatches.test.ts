/**
 * The heavy site shape (10-30 KB of HTML per page, 5-10 questions each) over the real clients and
 * the local servers: a batch closes at BATCH_TEXT_BYTES of text before --batch-size is reached, so
 * memory stays bounded, and nothing is lost or linked wrong by the earlier cut; the parents the
 * engine keeps for the run hold only what their children read, and children still link through
 * them (direct lookup, inherited lookups, the target's external reference).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { SYNC_ORDER, type SyncableType } from '../../src/model/objects.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { BATCH_TEXT_BYTES, textSize } from '../../src/sync/mirror/batchBytes.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { tempFolders } from '../support/tempFolders.js';

const cwdFolder = tempFolders('svc-heavy-');

let stack: Stack;

beforeAll(async () => {
  // 3 parents x 200 pages of 10-30 KB: about 12 MB of HTML, more than one batch's worth of text.
  stack = await startStack({ site: { heavy: true, segments: 1, projectsPerSegment: 1, teamsPerProject: 2, companiesPerProject: 0, actionsPerParent: 200, donations: 60, newsletterSubscriptions: 4 } });
}, 60_000);
afterAll(async () => {
  await stack.close();
});

describe('textSize', () => {
  it('counts the characters of every string, nested ones included', () => {
    expect(textSize({ a: 'abc', b: [{ c: 'de' }, 'f'], d: null, e: 1 })).toBe(3 + 2 + 1 + 8 + 8);
  });
});

describe('a sync of the heavy shape', () => {
  it('cuts the action scan into batches by text, and writes every record linked', async () => {
    const site = stack.platform.site;
    const html = site.action.reduce((n, a) => n + textSize(a), 0);
    expect(html).toBeGreaterThan(BATCH_TEXT_BYTES);
    expect(site.action.every((a) => (a.description?.length ?? 0) >= 10_240 && (a.questions?.length ?? 0) >= 5)).toBe(true);

    const settings = settingsOf(loadRaw({ env: stack.env, cwd: cwdFolder() }));
    const engine = new SyncEngine(createPlatformSource(settings.platform), await SalesforceSink.connect(settings.salesforce), {
      dryRun: false,
      force: false,
      strictParents: false,
      batchSize: 5_000,
    });
    const pagesDone: [SyncableType, number][] = [];
    await engine.syncScan(SYNC_ORDER, {}, { pageDone: async (type, page) => void pagesDone.push([type, page]) });

    // 600 actions come in 6 pages of 100; --batch-size 5,000 alone would write them as one batch.
    const actionBatches = pagesDone.filter(([type]) => type === 'action').map(([, page]) => page);
    expect(actionBatches.length).toBeGreaterThanOrEqual(1);
    expect(actionBatches[0]).toBeLessThan(6);

    const sf = stack.salesforce;
    expect(sf.records('Svc_Action__c')).toHaveLength(site.action.length);
    const answered = site.action.reduce((n, a) => n + (a.questions?.length ?? 0), 0);
    expect(sf.records('Svc_ActionQuestion__c')).toHaveLength(answered);
    for (const action of site.action) {
      const team = action.team_id ? sf.get('Svc_Team__c', `Team_${action.team_id}`) : undefined;
      const written = sf.get('Svc_Action__c', `Action_${action.id}`);
      expect(written?.Svc_Project__c).toBe(sf.get('Svc_Project__c', `Project_${action.project_id}`)?.Id);
      if (team) expect(written?.Svc_Team__c).toBe(team.Id);
    }
    // A donation on a page links to it and inherits its lookups from the cached (trimmed) page.
    const onAction = site.donation.filter((d) => typeof d.action_id === 'number' && sf.get('Svc_Donation__c', `Donation_${d.id}`));
    expect(onAction.length).toBeGreaterThan(0);
    expect(onAction.some((d) => typeof sf.get('Svc_Action__c', `Action_${d.action_id}`)?.ExternalReference__c === 'string')).toBe(true);
    for (const d of onAction) {
      const action = sf.get('Svc_Action__c', `Action_${d.action_id}`);
      const written = sf.get('Svc_Donation__c', `Donation_${d.id}`);
      expect(written).toMatchObject({ Svc_Action__c: action?.Id, Svc_Project__c: action?.Svc_Project__c, Svc_Segment__c: action?.Svc_Segment__c });
      expect(written?.ExternalReference__c ?? null).toBe(action?.ExternalReference__c ?? null);
    }
    expect(engine.report.missingParents).toEqual([]);
    // About 12 MB through both servers: seconds on an idle machine, far more on a loaded one.
  }, 180_000);
});
