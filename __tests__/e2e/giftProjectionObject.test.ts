/**
 * `object donation <id>` and `replay` with SVC_PROJECTION=npc: the one record (and the parents it
 * needs) is mirrored and its gift projected, as `sync` does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cliJson, removeDir, tempCwd } from './helpers.js';

describe('object and replay with SVC_PROJECTION=npc', () => {
  let stack: Stack;
  let cwd: string;
  const env = (): Record<string, string> => ({ ...stack.env, SVC_PROJECTION: 'npc', SVC_SALESFORCE_LOG: 'off' });
  beforeAll(async () => {
    stack = await startStack({
      site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 20, newsletterSubscriptions: 0 },
      salesforce: { npc: true },
    });
    cwd = tempCwd('object-gifts');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  const paid = (): Array<{ id: number }> => stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.donation_amount) > 0);

  it('object donation <id>: its parents, the donation and its gift', async () => {
    const donation = paid()[0];
    if (!donation) throw new Error('no paid donation');
    const run = await cliJson(stack, ['object', 'donation', String(donation.id)], cwd, undefined, env());
    expect(run.code).toBe(0);
    expect(stack.salesforce.get('Svc_Donation__c', `Donation_${donation.id}`)).toBeDefined();
    const npc = stack.salesforce.npc as NpcOrg;
    expect(npc.records('GiftTransaction').map((g) => g.SvcGiftKey__c)).toEqual([`Donation_${donation.id}`]);
    expect((run.body.result as unknown as { projection: { gifts: { insert: number } } }).projection.gifts.insert).toBe(1);
  });

  it('replay: each donation line is mirrored and projected', async () => {
    const donation = paid()[1];
    if (!donation) throw new Error('no second paid donation');
    const line = JSON.stringify({ object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 });
    const file = path.join(cwd, 'events.jsonl');
    fs.writeFileSync(file, `${line}\n`);
    const run = await cliJson(stack, ['replay', '--file', file], cwd, undefined, env());
    expect(run.code).toBe(0);
    const npc = stack.salesforce.npc as NpcOrg;
    expect(npc.records('GiftTransaction').some((g) => g.SvcGiftKey__c === `Donation_${donation.id}`)).toBe(true);
  });
});
