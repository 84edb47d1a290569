/**
 * Issue 32, the first platform request of `sync` near bare Node: the order of what a run sends
 * before it, seen from inside the CLI process (a preload that records each HTTP request as it is
 * sent and each answer as it arrives, and whether jsforce was loaded at that moment). The session
 * check (issue 29) still comes first and is answered before the platform is asked anything; it
 * and the OAuth token call go out before jsforce is loaded, and so does the first platform
 * request. Order only: no time is measured here (bench/startup.ts prints the times).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

interface Seen {
  event: 'sent' | 'answered';
  method: string;
  path: string;
  status?: number;
  /** Whether any jsforce module was loaded when the request was sent. */
  jsforce?: boolean;
}

const PRELOAD = `
const dc = require('node:diagnostics_channel');
const fs = require('node:fs');
const seen = [];
const jsforce = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/jsforce/'));
dc.subscribe('http.client.request.start', ({ request }) => seen.push({ event: 'sent', method: request.method, path: request.path, jsforce: jsforce() }));
dc.subscribe('http.client.response.finish', ({ request, response }) => seen.push({ event: 'answered', method: request.method, path: request.path, status: response.statusCode }));
// jsforce sends through undici's fetch (from 3.10.17), which reports on channels of its own.
dc.subscribe('undici:request:create', ({ request }) => seen.push({ event: 'sent', method: request.method, path: request.path, jsforce: jsforce() }));
dc.subscribe('undici:request:headers', ({ request, response }) => seen.push({ event: 'answered', method: request.method, path: request.path, status: response.statusCode }));
process.on('exit', () => fs.writeFileSync(process.env.SVC_TEST_TRACE, JSON.stringify(seen)));
`;

const CLIENT = { clientId: 'startup-order-client', clientSecret: 'startup-order-secret-0123' };

let stack: Stack | undefined;
let cwd: string | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  if (cwd) removeDir(cwd);
  cwd = undefined;
});

/** `sync --all` with the recording preload; what it sent and received, in order. */
async function traced(env: Record<string, string>): Promise<{ code: number; stderr: string; seen: Seen[]; stateFile: string }> {
  const dir = cwd as string;
  const preload = path.join(dir, 'trace-preload.cjs');
  fs.writeFileSync(preload, PRELOAD);
  const traceFile = path.join(dir, 'trace.json');
  const stateFile = path.join(dir, 'state', 'state.json');
  const res = await cli(stack as Stack, ['sync', '--all', '--state', stateFile], dir, undefined, { ...env, NODE_OPTIONS: `--require ${preload}`, SVC_TEST_TRACE: traceFile });
  return { code: res.code, stderr: res.stderr, seen: JSON.parse(fs.readFileSync(traceFile, 'utf8')) as Seen[], stateFile };
}

const isPlatform = (s: Seen): boolean => s.path.startsWith('/v1/');
const isLimits = (s: Seen): boolean => /^\/services\/data\/v[\d.]+\/limits$/.test(s.path);
const isWrite = (s: Seen): boolean => s.event === 'sent' && s.path.startsWith('/services/data/') && s.method !== 'GET';
const firstIndex = (seen: Seen[], match: (s: Seen) => boolean): number => seen.findIndex(match);

async function setUp(label: string): Promise<Stack> {
  cwd = tempCwd(`startup-order-${label}`);
  stack = await startStack({ site: { seed: 32, segments: 1, projectsPerSegment: 1, donations: 6, newsletterSubscriptions: 1 }, salesforce: { clients: [CLIENT] } });
  return stack;
}

describe('sync: what goes out before the first platform request', () => {
  it('a given session: the session check, answered, then the platform; jsforce loaded for neither', async () => {
    const s = await setUp('session');
    const { code, seen } = await traced(s.env);
    expect(code).toBe(0);
    const sent = seen.filter((e) => e.event === 'sent');
    expect(isLimits(sent[0]!)).toBe(true);
    expect(sent[0]!.jsforce).toBe(false);
    const firstPlatform = firstIndex(seen, (e) => e.event === 'sent' && isPlatform(e));
    const checkAnswered = firstIndex(seen, (e) => e.event === 'answered' && isLimits(e));
    expect(seen[checkAnswered]!.status).toBe(200);
    expect(checkAnswered).toBeLessThan(firstPlatform);
    expect(seen[firstPlatform]!.jsforce).toBe(false);
    // jsforce still does the queries and writes, loaded when the first of them is sent.
    const firstWrite = firstIndex(seen, isWrite);
    expect(firstWrite).toBeGreaterThan(firstPlatform);
    expect(seen[firstWrite]!.jsforce).toBe(true);
    expect(s.salesforce.records('Svc_Donation__c').length).toBeGreaterThan(0);
  });

  it('an OAuth login: the token call, then the session check, then the platform; jsforce loaded for none', async () => {
    const s = await setUp('oauth');
    const env: Record<string, string> = { ...s.env, SF_LOGIN_URL: s.salesforce.url, SF_CLIENT_ID: CLIENT.clientId, SF_CLIENT_SECRET: CLIENT.clientSecret };
    delete env.SF_INSTANCE_URL;
    delete env.SF_ACCESS_TOKEN;
    const { code, seen } = await traced(env);
    expect(code).toBe(0);
    const sent = seen.filter((e) => e.event === 'sent');
    expect(sent.slice(0, 3).map((e) => [e.method, isPlatform(e) ? 'platform' : isLimits(e) ? 'limits' : e.path, e.jsforce])).toEqual([
      ['POST', '/services/oauth2/token', false],
      ['GET', 'limits', false],
      ['GET', 'platform', false],
    ]);
    expect(firstIndex(seen, (e) => e.event === 'answered' && isLimits(e))).toBeLessThan(firstIndex(seen, isPlatform));
  });

  it('a check that fails at first is asked again through jsforce before the platform is read', async () => {
    const s = await setUp('retried');
    s.salesforce.failUnavailable(1);
    const { code, seen } = await traced(s.env);
    expect(code).toBe(0);
    const checks = seen.filter((e) => e.event === 'answered' && isLimits(e)).map((e) => e.status);
    expect(checks).toEqual([503, 200]);
    const lastCheck = seen.findLastIndex((e) => e.event === 'answered' && isLimits(e));
    expect(lastCheck).toBeLessThan(firstIndex(seen, isPlatform));
  });

  it('an expired session: exit 2 naming it, the platform never asked, nothing written, no state saved', async () => {
    const s = await setUp('expired');
    s.salesforce.expireSession();
    const { code, stderr, seen, stateFile } = await traced(s.env);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Salesforce session is invalid or expired/);
    expect(seen.filter(isPlatform)).toEqual([]);
    expect(s.platform.requests.total).toBe(0);
    expect(seen.filter(isWrite)).toEqual([]);
    expect(s.salesforce.records('Svc_Segment__c')).toEqual([]);
    expect(fs.existsSync(stateFile)).toBe(false);
  });

  it('Ctrl-C while the session check waits: exit 130 with the resume line, the platform never asked', async () => {
    const s = await setUp('interrupted');
    // A Salesforce instance that takes the check and never answers it (a stalled network).
    const held: http.ServerResponse[] = [];
    const stalled = http.createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const instanceUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
      const child = spawn(process.execPath, cliArgs(['sync', '--all']), {
        cwd: cwd as string,
        env: { PATH: process.env.PATH ?? '', HOME: cwd as string, ...READ_WHOLE, ...s.env, SF_INSTANCE_URL: instanceUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await waitFor(() => (held.length > 0 ? true : undefined), WAIT_MS, 'the session check');
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(/stopped by Ctrl-C before any record was done; .*resume with: svc-sync sync --all/);
      expect(s.platform.requests.total).toBe(0);
    } finally {
      for (const res of held) res.destroy();
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });
});
