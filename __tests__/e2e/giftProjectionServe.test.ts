/**
 * `serve` with SVC_PROJECTION=npc: a donation's webhook is mirrored and, in the same batch,
 * projected into Nonprofit Cloud (a GiftTransaction under the same key), as `sync` does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { WAIT_MS } from '../support/patience.js';
import { removeDir, tempCwd, waitFor } from './helpers.js';
import { reap } from '../support/reap.js';

let stack: Stack;
let cwd: string;
let child: ChildProcess;
let stderr = '';
let base = '';
const SECRET = 'hook-secret-gift-7a1c';

beforeAll(async () => {
  stack = await startStack({
    site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 20, newsletterSubscriptions: 0 },
    salesforce: { npc: true },
  });
  cwd = tempCwd('serve-gifts');
  child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: SECRET, SVC_SITE_ID: '6', SVC_PROJECTION: 'npc' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
});

afterAll(async () => {
  await reap([child]);
  await stack.close();
  removeDir(cwd);
});

describe('serve with SVC_PROJECTION=npc', () => {
  it("projects a donation's webhook after mirroring it", async () => {
    const donation = stack.platform.site.donation.find((d) => d.payment_status === 'paid' && Number(d.donation_amount) > 0 && (d.email ?? '') !== '' && !d.company);
    if (!donation) throw new Error('the generated site has no paid donation with an email');
    const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
    const res = await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
    expect(res.status).toBe(200);
    const npc = stack.salesforce.npc as NpcOrg;
    const gift = await waitFor(() => npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === `Donation_${donation.id}`), WAIT_MS, 'the gift');
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeDefined();
    expect(gift).toMatchObject({ Status: 'Paid', OriginalAmount: Math.round((Number(donation.donation_amount) + Number(donation.transaction_costs ?? 0)) * 100) / 100 });
    expect(npc.records('Account').find((a) => a.Id === gift.DonorId)?.PersonEmail).toBe(donation.email?.toLowerCase());
  });

  it('a later batch projects too, with the org gate and the record types not asked again', async () => {
    const donation = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.donation_amount) > 0).at(-1);
    if (!donation) throw new Error('the generated site has no paid donation');
    const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
    expect((await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) })).status).toBe(200);
    const npc = stack.salesforce.npc as NpcOrg;
    await waitFor(() => npc.records('GiftTransaction').find((g) => g.SvcGiftKey__c === `Donation_${donation.id}`), WAIT_MS, 'the second gift');
    const requests = stack.salesforce.requests();
    expect(requests.filter((r) => /FROM RecordType/.test(r))).toHaveLength(1);
    expect(requests.filter((r) => /\/sobjects\/GiftTransaction\/describe/.test(r))).toHaveLength(1);
  });
});
