/**
 * `serve` and the sync log in the org (issue 30): each batch writes its run record and error
 * records, and the records an admin ticks RetryRequested__c on are queued when the worker is idle,
 * synced, and the box cleared, with nothing of them in any local state.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
import { composeConnection } from '../../src/sync/connection.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { eventually, postJson, tempQueue, type TempDir } from './helpers.js';

let stack: Stack;
let service: RunningService;
let dir: TempDir;
const lines: string[] = [];

beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 20, newsletterSubscriptions: 0 } });
  dir = tempQueue();
  const settings = settingsOf(loadRaw({ env: stack.env, cwd: dir.dir }));
  service = await serve({
    processor: createEngineProcessor(composeConnection(settings)),
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    queue: { kind: 'sqlite', path: dir.db },
    gatherMs: 20,
    pollMs: 20,
    retryPollMs: 50,
    handleSignals: false,
    log: (line) => lines.push(line),
  });
});

afterAll(async () => {
  await service?.stop();
  await stack?.close();
  dir?.cleanup();
});

const paid = (): number => stack.platform.site.donation.find((d) => ['paid', 'refunded', 'chargedback'].includes(d.payment_status ?? '') && Number(d.total_amount) !== 0)!.id;

describe('serve and the sync log', () => {
  it('a batch whose record fails writes a serve run record and an Open error; a ticked box is retried and cleared', async () => {
    const id = paid();
    const key = `Donation_${id}`;
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: [key], message: 'on hold', field: 'Amount__c' });
    const reply = await postJson(`${service.url}/webhooks`, { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa' });
    expect(reply.status).toBe(200);
    await eventually(async () => stack.salesforce.get('Svc_SyncError__c', key) !== undefined, 'the error record');
    expect(stack.salesforce.get('Svc_SyncError__c', key)).toMatchObject({ Status__c: 'Open', Attempts__c: 1, StatusCode__c: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', Fields__c: 'Amount__c' });
    expect(stack.salesforce.records('Svc_SyncRun__c').map((r) => r.Command__c)).toContain('serve');

    stack.salesforce.removeValidationRules();
    stack.salesforce.editRecord('Svc_SyncError__c', key, { RetryRequested__c: true });
    await eventually(async () => stack.salesforce.get('Svc_SyncError__c', key)?.Status__c === 'Resolved', 'the retried record resolved');
    expect(stack.salesforce.get('Svc_SyncError__c', key)).toMatchObject({ RetryRequested__c: false, ResolvedAt__c: expect.any(String) });
    expect(stack.salesforce.get('Svc_Donation__c', key)).toBeDefined();
    expect(lines.some((l) => l.includes('1 record(s) to retry, as asked in the org'))).toBe(true);
  });

  it('a ticked removed question is Ignored and a hand-made key refused, both unticked: not queued again every minute', async () => {
    const action = stack.platform.site.action.find((a) => (a.questions ?? []).length > 0)!;
    const removed = action.questions!.pop()!;
    const gone = `ActionQuestion_${action.id}.${removed.id}`;
    const handMade = `Donation_0${paid()}`;
    const sf = stack.salesforce;
    const records = [gone, handMade].map((key) => ({ attributes: { type: 'Svc_SyncError__c' }, Key__c: key, Name: key, Status__c: 'Open', RetryRequested__c: true }));
    const res = await fetch(`${sf.url}/services/data/v${sf.apiVersion}/composite/sobjects/Svc_SyncError__c/Key__c`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${sf.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ allOrNone: true, records }),
    });
    expect(res.status).toBe(200);
    await eventually(async () => [gone, handMade].every((k) => sf.get('Svc_SyncError__c', k)?.RetryRequested__c === false), 'both unticked');
    expect(sf.get('Svc_SyncError__c', gone)).toMatchObject({ Status__c: 'Ignored', Message__c: expect.stringMatching(/^retry: not on the platform any more/) });
    expect(sf.get('Svc_SyncError__c', handMade)).toMatchObject({ Status__c: 'Open', Message__c: expect.stringMatching(/^retry refused: not a key svc-sync writes/) });
  });
});
