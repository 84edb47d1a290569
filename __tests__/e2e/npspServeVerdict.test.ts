/**
 * `serve` takes the org verdict kept for a day (after issue 51), as `sync` does, end to end through
 * dist/cli.js into an NPSP org: with nothing kept, the start checks the org once and keeps the
 * verdict, the first batch reads NPSP's record types once and keeps them with it, and later
 * batches make no describe and no record-type or currency query (the build before made both in
 * every batch: 2 queries more a batch). A restarted serve makes no describe at all; another
 * SVC_NPSP_* setting checks the org again; a write failing as a describe would explain drops the
 * verdict, and the next batch checks the org again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, READ_WHOLE } from '../../fixtures/cli.js';
import type { NpspOrg } from '../../fixtures/salesforce/npsp.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { WAIT_MS } from '../support/patience.js';
import { reap } from '../support/reap.js';
import { addPaidDonation } from './paidDonation.js';
import { removeDir, tempCwd, waitFor } from './helpers.js';

const SITE = { siteId: 6, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 2, donations: 0, newsletterSubscriptions: 0 };
const SECRET = 'hook-secret-npsp-verdict-4e2b';

let stack: Stack;
let cwd: string;
let nextId = 1;
const running: ChildProcess[] = [];
const npsp = (): NpspOrg => stack.salesforce.npsp as NpspOrg;
const verdictFile = (): string => path.join(cwd, '.svc-sync', 'projection-org.json');
const kept = (): Record<string, unknown> => JSON.parse(fs.readFileSync(verdictFile(), 'utf8')) as Record<string, unknown>;
const describes = (): string[] => stack.salesforce.requests().filter((r) => /\/describe\b/.test(r));
const lookupReads = (): string[] => stack.salesforce.requests().filter((r) => /FROM (RecordType|Organization)\b/.test(r));
const gift = (id: number): Record<string, unknown> | undefined =>
  npsp()
    .records('Opportunity')
    .find((o) => o.SvcGiftKey__c === `Donation_${id}`);

/** A serve process in the test's folder, listening; its base URL and what it wrote to stderr. */
async function serve(extra: Record<string, string> = {}): Promise<{ base: string; stderr: () => string }> {
  let err = '';
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: SECRET, SVC_SITE_ID: '6', SVC_PROJECTION: 'npsp', SVC_SALESFORCE_LOG: 'off', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)?.[1], WAIT_MS, 'serve to listen');
  return { base, stderr: () => err };
}

/** A new paid donation's webhook posted; resolves once its gift is in the org. */
async function donate(base: string): Promise<number> {
  const d = addPaidDonation(stack, nextId++);
  const event = { object_type: 'Donation', object_id: d.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
  const res = await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
  expect(res.status).toBe(200);
  return d.id;
}

const stopAll = async (): Promise<void> => {
  await reap(running.splice(0), 'SIGTERM');
};

beforeAll(async () => {
  stack = await startStack({ site: SITE, salesforce: { npsp: true } });
  cwd = tempCwd('npsp-serve-verdict');
});

afterAll(async () => {
  await stopAll();
  await stack.close();
  removeDir(cwd);
});

describe('serve and the kept NPSP org verdict', () => {
  it('nothing kept: the start checks the org once and keeps the verdict; record types are read by the first batch only', async () => {
    stack.salesforce.resetCalls();
    const { base } = await serve();
    expect(describes().length).toBeGreaterThan(0);
    expect(kept()).toMatchObject({ setting: 'npsp', choice: { resolved: 'npsp', refundMode: 'payments' } });
    stack.salesforce.resetCalls();
    const first = await donate(base);
    await waitFor(() => gift(first), WAIT_MS, 'the first gift');
    expect(describes()).toEqual([]);
    expect(lookupReads()).toHaveLength(2);
    await waitFor(() => (kept().npspLookups === undefined ? undefined : true), WAIT_MS, 'the record types kept');
    expect(kept()).toMatchObject({ npspLookups: { organisation: npsp().recordTypeId('Organization'), donation: npsp().recordTypeId('Donation'), currency: 'EUR' } });
    for (let batch = 0; batch < 2; batch++) {
      stack.salesforce.resetCalls();
      const id = await donate(base);
      await waitFor(() => gift(id), WAIT_MS, 'a later gift');
      expect(gift(id)).toMatchObject({ RecordTypeId: npsp().recordTypeId('Donation') });
      // The build before this change read the record types and the currency again in each batch:
      // 9 queries (13 calls) a batch of one donation; now 7 (11 calls), the mirror's and the gift's reads.
      expect(describes()).toEqual([]);
      expect(lookupReads()).toEqual([]);
      expect(stack.salesforce.calls()).toMatchObject({ query: 7, describe: 0 });
    }
    await stopAll();
  });

  it('a restarted serve takes the kept verdict: no describe at start or in a batch, no record-type read', async () => {
    stack.salesforce.resetCalls();
    const { base, stderr } = await serve();
    expect(stderr()).toContain('gifts: npsp');
    const id = await donate(base);
    await waitFor(() => gift(id), WAIT_MS, 'the gift');
    expect(describes()).toEqual([]);
    expect(lookupReads()).toEqual([]);
    await stopAll();
  });

  it('another SVC_NPSP_REFUND_MODE checks the org again at the start and keeps that verdict', async () => {
    stack.salesforce.resetCalls();
    const { base } = await serve({ SVC_NPSP_REFUND_MODE: 'stage' });
    expect(describes().length).toBeGreaterThan(0);
    expect(kept()).toMatchObject({ choice: { resolved: 'npsp', refundMode: 'stage' } });
    stack.salesforce.resetCalls();
    const id = await donate(base);
    await waitFor(() => gift(id), WAIT_MS, 'the gift');
    expect(describes()).toEqual([]);
    await stopAll();
  });

  it('a write failing as a describe would explain drops the verdict; the next batch checks the org again', async () => {
    const { base } = await serve();
    npsp().removeField('Opportunity', 'SvcGiftKey__c');
    stack.salesforce.resetCalls();
    await donate(base);
    await waitFor(() => (fs.existsSync(verdictFile()) ? undefined : true), WAIT_MS, 'the verdict dropped');
    await donate(base);
    await waitFor(() => (describes().length > 0 ? true : undefined), WAIT_MS, 'the org checked again');
    // Refused now (the key field is gone): nothing is kept.
    expect(fs.existsSync(verdictFile())).toBe(false);
    await stopAll();
  });
});
