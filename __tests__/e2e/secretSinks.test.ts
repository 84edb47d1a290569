/**
 * Secrets in every sink (issue 37 rows 3, 10 and 11), through the built CLI: a platform that
 * echoes the API key and the Salesforce token in its error, in a message long enough to be cut,
 * or the Basic-auth header of URL credentials, must leave no secret, whole or in part, in any file
 * the run writes (--report, audit's drift CSV, the profile, the lock holder), in its output, or
 * in the org's log records. No state file keeps the password of a URL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import type { Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, donationSynced, keyOf, removeDir, stackWithVictim, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { startHeld } from '../support/heldRun.js';
import { reap } from '../support/reap.js';

/** The run's first Salesforce query or write: the run holds its lock there. */
const FIRST_WORK = /^(GET \/services\/data\/v[\d.]+\/query|PATCH \/services\/data\/v[\d.]+\/composite\/sobjects\/)/;

let stack: Stack;
let cwd: string;
let victim: ApiDonation;

beforeAll(async () => {
  ({ stack, cwd, victim } = await stackWithVictim('secret-sinks', {
    segments: 1,
    projectsPerSegment: 1,
    teamsPerProject: 1,
    companiesPerProject: 0,
    actionsPerParent: 1,
    donations: 12,
    newsletterSubscriptions: 0,
  }));
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

const key = (): string => stack.env.SVC_API_KEY;
const token = (): string => stack.env.SF_ACCESS_TOKEN;
/** The token's secret part: what comes before "!" is the org id, which is printed on purpose. */
const tokenSecret = (): string => token().slice(token().indexOf('!') + 1);

/** Every 8-character piece of a secret: a cut secret shows as one of them. */
const piecesOf = (secret: string): string[] => Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));

function expectNone(text: string, secrets: string[]): void {
  for (const secret of secrets) for (const piece of piecesOf(secret)) expect(text).not.toContain(piece);
}

/** The text of every file under a folder (state, profile, lock holder, org record). */
function filesUnder(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile() && !f.endsWith('.db') && !f.endsWith('-wal') && !f.endsWith('-shm'))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

const errorMessages = (): string =>
  stack.salesforce
    .records('Svc_SyncError__c')
    .map((e) => String(e.Message__c))
    .join('\n');

describe('row 3: an error that quotes the API key and the Salesforce token', () => {
  it('object --report FILE: neither secret in the CSV, the output, the state folder or Message__c', async () => {
    const message = `request refused for X-Api-Key ${key()} (session ${token()})`;
    stack.platform.faults.next(1, 'message', { path: `/v1/donations/${victim.id}`, status: 400, message });
    const report = path.join(cwd, 'object.csv');
    const run = await cli(stack, ['object', 'donation', String(victim.id), '--report', report], cwd);
    stack.platform.faults.clear();
    expect(run.code).toBe(1);
    const csv = fs.readFileSync(report, 'utf8');
    expect(csv).toContain(keyOf('donation', victim.id));
    expect(csv).toContain('request refused for X-Api-Key <SVC_API_KEY> (session <SF_ACCESS_TOKEN>)');
    expect(errorMessages()).toContain('<SVC_API_KEY>');
    expectNone([csv, run.stdout, run.stderr, filesUnder(path.join(cwd, '.svc-sync')), errorMessages()].join('\n'), [key(), tokenSecret()]);
  });

  it('audit --report FILE: platform text holding both secrets is masked in the drift CSV as on stdout', async () => {
    const dir = tempCwd('secret-sinks-audit');
    try {
      const synced = await cli(stack, ['sync', '--all'], dir);
      expect(synced.code).toBe(0);
      stack.platform.update('donation', victim.id, { payment_status: `pending ${key()} ${token()}` });
      const report = path.join(dir, 'drift.csv');
      const run = await cli(stack, ['audit', '--report', report], dir);
      const csv = fs.readFileSync(report, 'utf8');
      expect(csv).toContain(keyOf('donation', victim.id));
      expect(csv).toContain('<SVC_API_KEY>');
      expectNone([csv, run.stdout, run.stderr, filesUnder(path.join(dir, '.svc-sync'))].join('\n'), [key(), tokenSecret()]);
    } finally {
      stack.platform.update('donation', victim.id, { payment_status: victim.payment_status ?? 'paid' });
      removeDir(dir);
    }
  });
});

describe('row 11: masked before any cut, in the forms a secret takes on the wire', () => {
  it('a 300+ character message with the key at its end: no piece of the key anywhere', async () => {
    // The key begins at character 290: a cut at 300 would leave its first 10 characters.
    const message = `${'the upstream could not serve this request; '.repeat(7).slice(0, 286)}key=${key()}`;
    expect(message.indexOf(key())).toBe(290);
    stack.platform.faults.next(1, 'message', { path: `/v1/donations/${victim.id}`, status: 400, message });
    const report = path.join(cwd, 'long.csv');
    const run = await cli(stack, ['object', 'donation', String(victim.id), '--report', report], cwd);
    stack.platform.faults.clear();
    expect(run.code).toBe(1);
    expectNone([fs.readFileSync(report, 'utf8'), run.stdout, run.stderr, errorMessages()].join('\n'), [key()]);
  });

  it('an echoed Basic-auth header of URL credentials, a bearer token and URL-encoded secrets are masked in Message__c', async () => {
    const user = 'svc-proxy-user';
    const password = 'Pr0xy/Pass+word=99';
    const basic = Buffer.from(`${user}:${password}`).toString('base64');
    const env = { ...stack.env, SVC_API_URL: stack.env.SVC_API_URL.replace('http://', `http://${user}:${encodeURIComponent(password)}@`) };
    const message = `echo: Authorization: Basic ${basic}; Authorization: Bearer ${token()}; k=${encodeURIComponent(`${key()}/`)}; p=${encodeURIComponent(password)}`;
    stack.platform.faults.next(1, 'message', { path: `/v1/donations/${victim.id}`, status: 400, message });
    const report = path.join(cwd, 'basic.csv');
    const run = await cli(stack, ['object', 'donation', String(victim.id), '--report', report], cwd, undefined, env);
    stack.platform.faults.clear();
    expect(run.code).toBe(1);
    const all = [fs.readFileSync(report, 'utf8'), run.stdout, run.stderr, errorMessages(), filesUnder(path.join(cwd, '.svc-sync'))].join('\n');
    expect(errorMessages()).toContain('Basic <');
    expectNone(all, [basic, tokenSecret(), key(), password, encodeURIComponent(password)]);
  });
});

describe('row 10: no credentials kept in state files', () => {
  it('SVC_API_URL or --api-url with user:password: neither the profile nor the lock holder keeps the password; both are 0600', async () => {
    const dir = tempCwd('secret-sinks-state');
    const password = 'St4te-Pass-word-77';
    const withCreds = stack.env.SVC_API_URL.replace('http://', `http://state-user:${password}@`);
    try {
      const viaEnv = await cli(stack, ['sync', '--all'], dir, undefined, { ...stack.env, SVC_API_URL: withCreds });
      expect(viaEnv.code).toBe(0);
      const profile = path.join(dir, '.svc-sync', 'platform-profile.json');
      expect(fs.readFileSync(profile, 'utf8')).toContain(`"baseUrl": "${stack.env.SVC_API_URL}"`);
      // The holder file names the run while it holds the lock (it is removed when the run ends):
      // read while the run's first Salesforce request waits there.
      const held = await startHeld(stack.salesforce, FIRST_WORK, ['sync', '--api-url', withCreds], dir, stack.env);
      const holderFile = path.join(dir, '.svc-sync', 'run.lock.holder.json');
      const holderText = fs.readFileSync(holderFile, 'utf8');
      const holderMode = fs.statSync(holderFile).mode & 0o777;
      held.release();
      const viaFlag = await held.done;
      expect(viaFlag.code).toBe(0);
      expect(holderText).toContain('--api-url');
      expect(fs.existsSync(holderFile)).toBe(false);
      const all = [holderText, filesUnder(path.join(dir, '.svc-sync')), viaEnv.stdout, viaEnv.stderr, viaFlag.stdout, viaFlag.stderr].join('\n');
      expectNone(all, [password, key(), tokenSecret()]);
      expect(holderMode).toBe(0o600);
      expect(fs.statSync(profile).mode & 0o777).toBe(0o600);
    } finally {
      removeDir(dir);
    }
  });
});

describe('row 3 in serve: the queue, the log and the org records', () => {
  it('a failed webhook batch keeps no secret in the queue file, the log lines or Message__c', async () => {
    const dir = tempCwd('secret-sinks-serve');
    const hook = 'hook-secret-5f2a-sinks';
    const [donation] = stack.platform.site.donation.filter(donationSynced).slice(-1);
    const message = `refused: key ${key()} session ${token()}`;
    stack.platform.faults.next(50, 'message', { path: `/v1/donations/${donation.id}`, status: 400, message });
    const child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: hook },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
      const event = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Kentaa' };
      const reply = await fetch(`${base}/webhooks/${hook}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      expect(reply.status).toBe(200);
      const errorKey = keyOf('donation', donation.id);
      await waitFor(() => stack.salesforce.get('Svc_SyncError__c', errorKey), WAIT_MS, 'the error record');
      expect(String(stack.salesforce.get('Svc_SyncError__c', errorKey)?.Message__c)).toContain('<SVC_API_KEY>');
      // The failure reaches the queue once the batch's log records are written: waited for, masked or not.
      const queueText = (): string =>
        fs
          .readdirSync(path.join(dir, '.svc-sync'))
          .filter((f) => f.startsWith('queue.db'))
          .map((f) => fs.readFileSync(path.join(dir, '.svc-sync', f)).toString('latin1'))
          .join('\n');
      const queued = await waitFor(() => (queueText().includes(`/v1/donations/${donation.id} -> 400`) ? queueText() : undefined), WAIT_MS, 'the failure in the queue');
      expect(queued).toContain('<SVC_API_KEY>');
      const runs = stack.salesforce
        .records('Svc_SyncRun__c')
        .map((r) => String(r.Summary__c))
        .join('\n');
      expectNone([queued, stderr, errorMessages(), runs].join('\n'), [key(), tokenSecret()]);
    } finally {
      stack.platform.faults.clear();
      await reap([child]);
      removeDir(dir);
    }
  });
});
