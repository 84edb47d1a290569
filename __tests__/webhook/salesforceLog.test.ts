/**
 * `serve` and the sync log in the org (issue 30): each batch writes its run record and error
 * records, and the records an admin ticks RetryRequested__c on are queued when the worker is idle,
 * synced, and the box cleared, with nothing of them in any local state.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import { createEngineProcessor } from '../../src/webhook/worker/processor.js';
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
    processor: createEngineProcessor(settings),
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
});
