/**
 * One `svc-sync serve` for two sites (issue 31): two fake platforms (sites 6 and 7, the same
 * record ids) and two Salesforce emulators (two orgs), one config file with two connections. A
 * burst of mixed webhooks lands in the right org; each site's budget is its own; one org refusing
 * its login pauses that connection alone; each connection's secret; a site no connection has;
 * the same org twice; no secret of one connection in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, expectFullMirror, removeDir, tempCwd, waitFor, type SiteRecord } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

const ORG_NORTH = '00D5g000000NortEAC';
const ORG_SOUTH = '00D5g000000SoutEAC';
const HOOK_NORTH = 'north-hook-7c1e93';
const HOOK_SOUTH = 'south-hook-2b8f40';
const SITE = { segments: 1, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 1, actionsPerParent: 1, donations: 12, newsletterSubscriptions: 3 };

let north: Stack;
let south: Stack;
let cwd: string;
let child: ChildProcess | undefined;
let stderr = '';
let base = '';

/** Every secret of both connections: none may be printed. */
let secrets: string[] = [];

/** The environment the config file's {"env": ...} references read. */
function env(): Record<string, string> {
  return {
    NORTH_KEY: north.env.SVC_API_KEY as string,
    SOUTH_KEY: south.env.SVC_API_KEY as string,
    NORTH_SF_SECRET: 'north-sf-secret-a81c',
    SOUTH_SF_SECRET: 'south-sf-secret-4d2e',
    NORTH_HOOK: HOOK_NORTH,
    SOUTH_HOOK: HOOK_SOUTH,
  };
}

function connection(stack: Stack, site: number, key: string, client: string, sfSecret: string, hook: string): Record<string, unknown> {
  return {
    SVC_API_URL: stack.platform.url,
    SVC_API_KEY: { env: key },
    SVC_SITE_ID: String(site),
    SF_LOGIN_URL: stack.salesforce.url,
    SF_API_VERSION: stack.salesforce.apiVersion,
    SF_CLIENT_ID: client,
    SF_CLIENT_SECRET: { env: sfSecret },
    SVC_WEBHOOK_SECRET: { env: hook },
  };
}

/** `southOrg`: the org south writes (north's, for the same-org case); its site stays its own. */
function writeConfig(southOrg: Stack = south): void {
  const southConnection = connection(south, 7, 'SOUTH_KEY', 'south-client', 'SOUTH_SF_SECRET', 'SOUTH_HOOK');
  if (southOrg === north) Object.assign(southConnection, { SF_LOGIN_URL: north.salesforce.url, SF_CLIENT_ID: 'north-client', SF_CLIENT_SECRET: { env: 'NORTH_SF_SECRET' } });
  const config = {
    connections: {
      north: connection(north, 6, 'NORTH_KEY', 'north-client', 'NORTH_SF_SECRET', 'NORTH_HOOK'),
      south: southConnection,
    },
  };
  fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
}

async function startServe(): Promise<void> {
  stderr = '';
  const proc = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, `serve to listen (${stderr})`);
}

async function stopServe(): Promise<void> {
  const proc = child;
  if (proc === undefined || proc.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  await exited;
}

const post = (url: string, body: Record<string, string | number>, secret?: string): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(secret ? { 'X-Webhook-Secret': secret } : {}) }, body: JSON.stringify(body) });

interface QueueJson {
  result: {
    counts: { pending: number; done: number; failed: number; ignored: number; processing: number; skipped: number };
    byConnection?: Array<{ connection: string; counts: { done: number; failed: number; pending: number; skipped: number } }>;
  };
}

const queueJson = async (): Promise<QueueJson> => JSON.parse((await cli(north, ['--json', 'queue'], cwd, undefined, env())).stdout) as QueueJson;

/** Until `check` resolves true (the helpers' waitFor takes a synchronous check). */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; serve said:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Until no event is open (pending, processing, failed). */
async function drained(): Promise<QueueJson> {
  let q: QueueJson | undefined;
  await eventually(
    async () => {
      q = await queueJson();
      const c = q.result.counts;
      return c.pending + c.processing + c.failed === 0;
    },
    60_000,
    'the queue to drain',
  );
  return q as QueueJson;
}

/** Webhooks for every record of a site that the mirror holds (users come with their actions). */
function everyEvent(stack: Stack, site: number): Array<Record<string, string | number>> {
  const s = stack.platform.site;
  const of = (objectType: string, eventType: string, records: SiteRecord[]): Array<Record<string, string | number>> =>
    records.map((r) => ({ object_type: objectType, object_id: r.id, event_type: eventType, application: 'Kentaa', site_id: site }));
  const list = (rs: unknown): SiteRecord[] => rs as SiteRecord[];
  return [
    ...of('Segment', 'segments.update', list(s.segment)),
    ...of('Project', 'projects.update', list(s.project)),
    ...of('Team', 'teams.update', list(s.team)),
    ...of('Company', 'companies.update', list(s.company)),
    ...of('Action', 'actions.update', list(s.action)),
    ...of('Donation', 'donations.update', list(s.donation)),
    ...of('NewsletterSubscription', 'newsletter_subscriptions.create', list(s.newsletter_subscription)),
  ];
}

beforeAll(async () => {
  // Different seeds, the same shape: the same ids on both sites, with different contents. Each
  // site's hourly budget differs, so /metrics shows each connection its own.
  north = await startStack({
    site: { ...SITE, seed: 11, siteId: 6 },
    rateLimit: { perMinute: 1_000, perHour: 400, windowMs: 60_000 },
    salesforce: { orgId: ORG_NORTH, clients: [{ clientId: 'north-client', clientSecret: 'north-sf-secret-a81c' }] },
  });
  south = await startStack({
    site: { ...SITE, seed: 22, siteId: 7 },
    rateLimit: { perMinute: 1_000, perHour: 500, windowMs: 60_000 },
    salesforce: { orgId: ORG_SOUTH, clients: [{ clientId: 'south-client', clientSecret: 'south-sf-secret-4d2e' }] },
  });
  secrets = Object.values(env());
  cwd = tempCwd('serve-connections');
  writeConfig();
  await startServe();
}, 60_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([north.close(), south.close()]);
  removeDir(cwd);
});

describe('one serve for two sites', () => {
  it('routes a burst of mixed webhooks of both sites (the same ids) each to its own org, exact against its own site, each within its own budget', async () => {
    const northIds = north.platform.site.donation.map((d) => d.id);
    expect(south.platform.site.donation.map((d) => d.id)).toEqual(northIds);
    const events = [...everyEvent(north, 6).map((e) => ({ e, secret: HOOK_NORTH })), ...everyEvent(south, 7).map((e) => ({ e, secret: HOOK_SOUTH }))];
    // Interleaved: north, south, north, ...; half by site_id, half by path.
    const mixed = events.map((x, i) => ({ ...x, i })).sort((a, b) => (a.i % events.length) - (b.i % events.length));
    const answers = await Promise.all(
      mixed.map(({ e, secret }, i) => (i % 2 === 0 ? post(`${base}/webhooks`, e, secret) : post(`${base}/webhooks/${e.site_id === 6 ? 'north' : 'south'}/${secret}`, e))),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    const q = await drained();
    expect(q.result.counts.failed).toBe(0);

    expectFullMirror(north, north.platform.site);
    expectFullMirror(south, south.platform.site);
    // The same key holds each org's own site's values.
    for (const d of north.platform.site.donation.filter((x) => north.salesforce.get('Svc_Donation__c', `Donation_${x.id}`) !== undefined)) {
      const other = south.platform.site.donation.find((x) => x.id === d.id);
      expect(north.salesforce.get('Svc_Donation__c', `Donation_${d.id}`)?.Amount__c).toBe(Number(d.donation_amount));
      if (other !== undefined && south.salesforce.get('Svc_Donation__c', `Donation_${d.id}`) !== undefined) {
        expect(south.salesforce.get('Svc_Donation__c', `Donation_${d.id}`)?.Amount__c).toBe(Number(other.donation_amount));
      }
    }
    // Each platform saw only its own key (a wrong key is 401 there), never a 429, within its hour.
    for (const [stack, hour] of [
      [north, 400],
      [south, 500],
    ] as const) {
      expect(stack.platform.requests.rateLimited).toBe(0);
      expect(stack.platform.requests.status[401] ?? 0).toBe(0);
      expect(stack.platform.requests.total).toBeLessThanOrEqual(hour);
    }
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/svc_sync_platform_budget_limit\{window="hour",connection="north"\} 400/);
    expect(metrics).toMatch(/svc_sync_platform_budget_limit\{window="hour",connection="south"\} 500/);
    expect(metrics).toMatch(/svc_sync_queue_events\{state="done",connection="north"\} [1-9]/);
    // `queue` lists each connection's counts.
    expect((q.result.byConnection ?? []).map((c) => c.connection).sort()).toEqual(['north', 'south']);
  }, 120_000);

  it("each connection's own secret: the other's is refused (401, nothing stored), and a site no connection has is 200 and recorded ignored", async () => {
    const before = (await queueJson()).result.counts;
    const donation = { object_type: 'Donation', object_id: north.platform.site.donation[0]!.id, event_type: 'donations.update', application: 'Kentaa' };
    expect((await post(`${base}/webhooks`, { ...donation, site_id: 7 }, HOOK_NORTH)).status).toBe(401);
    expect((await post(`${base}/webhooks/north/${HOOK_SOUTH}`, { ...donation, site_id: 6 })).status).toBe(401);
    const stranger = await post(`${base}/webhooks`, { ...donation, site_id: 9 }, HOOK_SOUTH);
    expect(stranger.status).toBe(200);
    expect(await stranger.json()).toMatchObject({ status: 'ignored', reason: expect.stringContaining("site 9 is no connection's site") });
    const after = (await queueJson()).result.counts;
    expect(after.ignored - before.ignored).toBe(1);
    expect(after.pending + after.done - before.pending - before.done).toBe(0);
  });

  it('a webhook with no site_id, which no connection can claim: 200 ignored, one log line with the reason, counted by reason in /metrics, the reason in `queue -v`', async () => {
    const unsited = { object_type: 'Donation', object_id: north.platform.site.donation[1]!.id, event_type: 'donations.update', application: 'Kentaa' };
    const answer = await post(`${base}/webhooks`, unsited, HOOK_NORTH);
    expect(answer.status).toBe(200);
    const { id } = (await answer.json()) as { id: number };
    const line = await waitFor(() => stderr.split('\n').find((l) => l.includes(`webhook ignored: event ${id} `)), 10_000, 'the ignored line');
    expect(line).toMatch(/^\S+Z webhook ignored: event \d+ \(donations\.update Donation \d+\): no site_id and no connection named in the path/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^svc_sync_webhook_events_ignored_total\{reason="no_site_id"\} 1$/m);
    const verbose = await cli(north, ['queue', '-v'], cwd, undefined, env());
    expect(verbose.stdout).toMatch(/^ignored \(answered 200, never synced/m);
    expect(verbose.stdout.replace(/\n\s+/g, ' ')).toMatch(/ 1 \(none\): no site_id and no connection named in the path/);
    const json = await queueJson();
    expect((json.result as unknown as { ignored: Array<{ reason: string; connection: string; count: number }> }).ignored).toEqual(
      expect.arrayContaining([expect.objectContaining({ connection: '(none)', count: 1, reason: expect.stringMatching(/^no site_id/) })]),
    );
  }, 30_000);

  it("one org refusing its login pauses that connection alone: the other's events flow; its own flow once it accepts again", async () => {
    south.salesforce.refuseLogins(true);
    const nd = north.platform.site.donation.find((d) => d.payment_status === 'paid')!;
    const sd = south.platform.site.donation.find((d) => d.payment_status === 'paid')!;
    north.platform.update('donation', nd.id, { message: 'north changed' });
    south.platform.update('donation', sd.id, { message: 'south changed' });
    expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: sd.id, event_type: 'donations.update', application: 'Kentaa', site_id: 7 }, HOOK_SOUTH)).status).toBe(200);
    expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: nd.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 }, HOOK_NORTH)).status).toBe(200);
    await waitFor(() => (north.salesforce.get('Svc_Donation__c', `Donation_${nd.id}`)?.Message__c === 'north changed' ? true : undefined), WAIT_MS, 'north to sync');
    await eventually(async () => (await queueJson()).result.byConnection?.find((c) => c.connection === 'south')?.counts.failed === 1, WAIT_MS, 'south to hold its event');
    const health = (await (await fetch(`${base}/healthz`)).json()) as { status: string; byConnection: Record<string, { status: string; why?: string }> };
    expect(health.status).toBe('degraded');
    expect(health.byConnection.south).toMatchObject({ status: 'paused', why: expect.stringMatching(/Salesforce/) });
    expect(health.byConnection.north?.status).toBe('ok');
    expect(south.salesforce.get('Svc_Donation__c', `Donation_${sd.id}`)?.Message__c).not.toBe('south changed');

    south.salesforce.refuseLogins(false);
    // The operator need not wait for the backoff: `queue retry --connection south` makes it due now.
    const retry = await cli(north, ['queue', 'retry', '--connection', 'south'], cwd, undefined, env());
    expect(retry.stdout).toMatch(/^1 failed event\(s\) of connection south queued again/);
    await waitFor(() => (south.salesforce.get('Svc_Donation__c', `Donation_${sd.id}`)?.Message__c === 'south changed' ? true : undefined), WAIT_MS, 'south to catch up');
  }, 90_000);

  it('a SIGKILL right after the 200s of a burst loses no event of either connection: the next start finishes them, each in its own org', async () => {
    const before = (await queueJson()).result.counts;
    const pick = (stack: Stack): number[] =>
      stack.platform.site.donation
        .filter((d) => d.payment_status === 'paid')
        .map((d) => d.id)
        .slice(0, 8);
    const sent: Array<{ stack: Stack; id: number }> = [];
    for (const [stack, site, secret] of [
      [north, 6, HOOK_NORTH],
      [south, 7, HOOK_SOUTH],
    ] as const) {
      for (const id of pick(stack)) {
        stack.platform.update('donation', id, { message: `before the kill ${site}` });
        expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: site }, secret)).status).toBe(200);
        sent.push({ stack, id });
      }
    }
    const proc = child as ChildProcess;
    const killed = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await killed;
    await startServe();
    const q = await drained();
    expect(q.result.counts.done + q.result.counts.skipped - before.done - before.skipped).toBe(sent.length);
    for (const { stack, id } of sent) expect(stack.salesforce.get('Svc_Donation__c', `Donation_${id}`)?.Message__c).toBe(`before the kill ${stack === north ? 6 : 7}`);
  }, 90_000);

  it('no secret of either connection appears in the log, and every connection is named in its lines', () => {
    for (const secret of secrets) expect(stderr).not.toContain(secret);
    expect(stderr).toMatch(/connection south: webhook batch: /);
    expect(stderr).toMatch(/connection north: webhook batch: /);
  });
});

describe('two connections on one org', () => {
  it('the second to log in is paused with one line naming both and the reason; nothing is written for it', async () => {
    await stopServe();
    fs.rmSync(path.join(cwd, '.svc-sync'), { recursive: true, force: true });
    writeConfig(north);
    await startServe();
    const id = north.platform.site.donation[1]!.id;
    // North first, so south is the second to reach the org.
    expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 }, HOOK_NORTH)).status).toBe(200);
    await eventually(async () => (await queueJson()).result.byConnection?.find((c) => c.connection === 'north')?.counts.done === 1, WAIT_MS, 'north to sync');
    const before = north.salesforce.records('Svc_Donation__c').map((r) => `${r.SvcId__c}:${String(r.Amount__c)}`);
    expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 7 }, HOOK_SOUTH)).status).toBe(200);
    await waitFor(() => (/both log in to org/.test(stderr) ? true : undefined), WAIT_MS, 'the refusal');
    expect(stderr).toMatch(new RegExp(`svc-sync serve: error: connections north and south both log in to org ${ORG_NORTH.slice(0, 15)}; .*; connection south is paused and nothing is written for it`));
    await eventually(async () => (await queueJson()).result.byConnection?.find((c) => c.connection === 'south')?.counts.failed === 1, WAIT_MS, 'south to hold its event');
    // Only north's own donation values are in the org: south wrote nothing.
    const after = north.salesforce.records('Svc_Donation__c').map((r) => `${r.SvcId__c}:${String(r.Amount__c)}`);
    expect(after).toEqual(before);
    const q = await queueJson();
    expect(q.result.byConnection?.find((c) => c.connection === 'south')?.counts).toMatchObject({ done: 0 });
    await stopServe();
  }, 60_000);
});

describe('starting and operating several connections', () => {
  it('a connection whose platform refuses its key stops the start (exit 2), naming it; nothing listens', async () => {
    writeConfig();
    const res = await cli(north, ['serve', '--host', '127.0.0.1', '--port', '0'], cwd, undefined, { ...env(), SOUTH_KEY: 'not-the-key-of-south' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/connection south: /);
    expect(res.stderr).not.toMatch(/listening on/);
    expect(res.stderr).not.toContain('not-the-key-of-south');
  });

  it('`queue retry` needs --connection when there are several', async () => {
    const res = await cli(north, ['queue', 'retry'], cwd, undefined, env());
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/2 connections \(north, south\): this command acts on one; choose it with --connection NAME/);
  });
});

describe('stopping', () => {
  it("SIGTERM while both connections' batches wait on their platform: exit 143, each batch handed back", async () => {
    fs.rmSync(path.join(cwd, '.svc-sync'), { recursive: true, force: true });
    writeConfig();
    await startServe();
    for (const [stack, site, secret] of [
      [north, 6, HOOK_NORTH],
      [south, 7, HOOK_SOUTH],
    ] as const) {
      const d = stack.platform.site.donation.filter((x) => x.payment_status === 'paid')[2]!;
      stack.platform.faults.next(20, '429', { path: `/donations/${d.id}`, retryAfter: 600 });
      expect((await post(`${base}/webhooks`, { object_type: 'Donation', object_id: d.id, event_type: 'donations.update', application: 'Kentaa', site_id: site }, secret)).status).toBe(200);
    }
    await waitFor(() => (/connection north: waiting 600 s/.test(stderr) && /connection south: waiting 600 s/.test(stderr) ? true : undefined), WAIT_MS, 'both batches to wait');
    const proc = child as ChildProcess;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stderr.match(/events? handed back, processed on the next start/g)?.length).toBe(2);
    north.platform.faults.clear();
    south.platform.faults.clear();
    const q = await queueJson();
    expect(q.result.counts).toMatchObject({ pending: 2, failed: 0, processing: 0 });
  }, 60_000);
});
