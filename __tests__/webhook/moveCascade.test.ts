/**
 * A `teams.move` webhook through the whole product: receiver -> durable queue -> worker -> engine.
 * The team takes its new project's lookups, and its actions and their donations already in
 * Salesforce follow, from Salesforce alone: the only platform request is the team itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { SalesforceSink } from '../../src/crm/sink.js';
import { createPlatformSource } from '../../src/platform/source.js';
import { SyncEngine } from '../../src/sync/mirror/engine.js';
import { SYNC_ORDER } from '../../src/model/objects.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { eventually, postJson, tempQueue, type TempDir } from './helpers.js';

let stack: Stack;
let service: RunningService;
let dir: TempDir;

beforeAll(async () => {
  stack = await startStack({ site: { segments: 2, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 80, newsletterSubscriptions: 0 } });
  dir = tempQueue();
  const settings = settingsOf(loadRaw({ env: stack.env, cwd: dir.dir }));
  const sink = await SalesforceSink.connect(settings.salesforce);
  const engine = new SyncEngine(createPlatformSource(settings.platform), sink, { dryRun: false, force: false, strictParents: false, batchSize: 500 });
  await engine.syncScan([...SYNC_ORDER], {});
  expect(engine.report.failed).toBe(0);
  service = await serve({
    processor: createEngineProcessor(composeConnection(settings)),
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    queue: { kind: 'sqlite', path: dir.db },
    gatherMs: 20,
    pollMs: 20,
    handleSignals: false,
    log: () => undefined,
  });
});

afterAll(async () => {
  await service?.stop();
  await stack?.close();
  dir?.cleanup();
});

describe('teams.move webhook', () => {
  it('moves the team and carries the new lookups down to its actions and donations', async () => {
    const { site } = stack.platform;
    const team = site.team[0]!;
    const target = site.project.find((p) => p.segment_id !== team.segment_id)!;
    const sf = stack.salesforce;
    const idOf = (object: string, key: string): string => sf.get(object, key)!.Id;
    const teamId = idOf('Svc_Team__c', `Team_${team.id}`);
    const actions = sf.records('Svc_Action__c').filter((a) => a.Svc_Team__c === teamId);
    const actionIds = new Set(actions.map((a) => a.Id));
    const donations = sf.records('Svc_Donation__c').filter((d) => actionIds.has(String(d.Svc_Action__c)));
    expect(actions.length).toBeGreaterThan(0);
    expect(donations.length).toBeGreaterThan(0);

    stack.platform.update('team', team.id, { project_id: target.id, segment_id: target.segment_id });
    stack.platform.resetCounts();
    const reply = await postJson(`${service.url}/webhooks`, { object_type: 'Team', object_id: team.id, event_type: 'teams.move', application: 'Kentaa', site_id: 6 });
    expect(reply.status).toBe(200);
    await eventually(async () => (await service.queue.counts()).done === 1, 'the move event to be processed');

    const projectId = idOf('Svc_Project__c', `Project_${target.id}`);
    const segmentId = idOf('Svc_Segment__c', `Segment_${target.segment_id}`);
    expect(sf.get('Svc_Team__c', `Team_${team.id}`)).toMatchObject({ Svc_Project__c: projectId, Svc_Segment__c: segmentId });
    for (const a of actions) expect(sf.get('Svc_Action__c', a.SvcId__c)).toMatchObject({ Svc_Team__c: teamId, Svc_Project__c: projectId, Svc_Segment__c: segmentId });
    for (const d of donations) expect(sf.get('Svc_Donation__c', d.SvcId__c)).toMatchObject({ Svc_Team__c: teamId, Svc_Project__c: projectId, Svc_Segment__c: segmentId });
    // The team itself, by id: nothing for the descendants.
    expect(stack.platform.requests.total).toBe(1);
    expect(stack.platform.requests.byId).toEqual({ teams: 1 });
  });
});
