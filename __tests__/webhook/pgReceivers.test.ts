/**
 * Several receivers on one PostgreSQL queue (a real server started by the suite): migrations
 * raced, duplicates coalesced across receivers, a receiver SIGKILLed mid-batch and its events
 * synced by the other into the Salesforce emulator exactly once, the database stopped mid-burst,
 * the platform budget shared, and /metrics scraped. The CLI runs as built (npm test builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { cliArgs, READ_WHOLE, runCli } from '../../fixtures/cli.js';
import { freePort, startPostgres, TEST_PG_PASSWORD, type TestPostgres } from '../../fixtures/postgres.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { loadRaw, settingsOf } from '../../src/config/load.js';
import type { ObjectRef } from '../../src/model/objects.js';
import { PlatformClient } from '../../src/platform/client.js';
import { PgQueue } from '../../src/webhook/queue/postgres.js';
import { permanentQueueFailure } from '../../src/webhook/queue/errors.js';
import { serve } from '../../src/webhook/serve.js';
import { startReceiver } from '../../src/webhook/receiver/server.js';
import { startWorker, type BatchProcessor, type ProcessResult, type Worker } from '../../src/webhook/worker/worker.js';
import { donationEvent, pool, postJson, RecordingProcessor, request } from './helpers.js';
import { unstamp } from '../e2e/helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { reap } from '../support/reap.js';

let postgres: TestPostgres;
let dbUrl: string;
let schemas = 0;
const freshSchema = (): string => `r${++schemas}`;

beforeAll(async () => {
  postgres = await startPostgres();
  dbUrl = await postgres.createDatabase('receivers');
}, 60_000);
afterAll(async () => {
  await postgres?.close();
});

async function eventually(check: () => Promise<boolean> | boolean, what: string, limitMs = WAIT_MS): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const countRows = async (schema: string, where = 'TRUE'): Promise<number> =>
  Number((await postgres.query<{ n: string }>(dbUrl, `SELECT COUNT(*) AS n FROM "${schema}".events WHERE ${where}`))[0]?.n ?? 0);

describe('PostgreSQL queue shared by receivers', () => {
  it('runs its migrations once when several receivers start at the same moment', async () => {
    const schema = freshSchema();
    const queues = Array.from({ length: 4 }, () => new PgQueue({ url: dbUrl, schema }));
    try {
      const results = await Promise.all(queues.map((q) => q.migrate()));
      expect(results.map((r) => r.applied).sort()).toEqual([0, 0, 0, 2]);
      expect(results.every((r) => r.version === 2)).toBe(true);
      expect(await postgres.query(dbUrl, `SELECT version FROM "${schema}".schema_migrations ORDER BY version`)).toEqual([{ version: 1 }, { version: 2 }]);
      // Started again later: nothing to do.
      const again = new PgQueue({ url: dbUrl, schema });
      expect((await again.migrate()).applied).toBe(0);
      await again.close();
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
  });

  it('answers 200 only after a synchronous commit', async () => {
    const q = new PgQueue({ url: dbUrl, schema: freshSchema() });
    try {
      expect(await q.durability()).toEqual({ synchronousCommit: 'on', fsync: 'on' });
    } finally {
      await q.close();
    }
  });

  it('coalesces duplicate events across two receivers and never syncs one record in both at once', async () => {
    const schema = freshSchema();
    const inFlight = new Set<string>();
    const overlaps: string[] = [];
    const synced: string[] = [];
    const processor = (): BatchProcessor => ({
      async process(refs: ObjectRef[]): Promise<ProcessResult> {
        const keys = refs.map((r) => `${r.type}:${r.id}`);
        for (const k of keys) {
          if (inFlight.has(k)) overlaps.push(k);
          inFlight.add(k);
        }
        await new Promise((r) => setTimeout(r, 40));
        for (const k of keys) inFlight.delete(k);
        synced.push(...keys);
        return { outcomes: refs.map((ref) => ({ ref, status: 'done' as const })) };
      },
    });
    // Two processes' worth of parts: each its own pool, receiver and worker (started below).
    const parts = await Promise.all(
      [0, 1].map(async () => {
        const queue = new PgQueue({ url: dbUrl, schema });
        const receiver = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue });
        return { queue, receiver, worker: undefined as Worker | undefined };
      }),
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    // 400 events for 60 donations, each donation sent to both receivers in turn, all at once.
    const burst = (offset: number): Promise<Array<{ status: number }>> =>
      pool(
        Array.from({ length: 400 }, (_, i) => () => postJson(`${parts[(i + offset) % 2]?.receiver.url}/webhooks`, donationEvent(1 + (i % 60)), {}, agent)),
        40,
      );
    try {
      expect((await burst(0)).every((r) => r.status === 200)).toBe(true);
      for (const p of parts) p.worker = startWorker({ queue: p.queue, processor: processor(), batchSize: 20, gatherMs: 20, pollMs: 50 });
      await eventually(async () => (await countRows(schema, `status = 'done'`)) === 400, 'the first 400 events done');
      // Both receivers worked, and together synced each donation exactly once.
      expect(synced.length).toBe(60);
      expect(new Set(synced).size).toBe(60);

      // While both drain: a second burst, the same records again, claimed one receiver at a time.
      synced.length = 0;
      for (const p of parts) {
        const w = p.worker;
        p.receiver.server.on('request', () => w?.wake());
      }
      expect((await burst(1)).every((r) => r.status === 200)).toBe(true);
      await eventually(async () => (await countRows(schema, `status = 'done'`)) === 800, 'all 800 events done');
      expect(new Set(synced).size).toBe(60);
      expect(overlaps).toEqual([]);
      expect(await countRows(schema, `status <> 'done'`)).toBe(0);
      agent.destroy();
    } finally {
      for (const p of parts) {
        await p.receiver.close();
        await p.worker?.stop();
        await p.queue.close();
      }
    }
  });

  it('answers 503 while the database is down, says so on /healthz, and loses nothing once it is back', async () => {
    const schema = freshSchema();
    const processed: string[] = [];
    const lines: string[] = [];
    const service = await serve({
      host: '127.0.0.1',
      port: 0,
      queue: { kind: 'postgres', url: dbUrl, schema, leaseMs: 60_000 },
      processor: { process: async (refs) => ({ outcomes: refs.map((ref) => (processed.push(`${ref.type}:${ref.id}`), { ref, status: 'done' as const })) }) },
      gatherMs: 20,
      pollMs: 100,
      handleSignals: false,
      log: (l) => lines.push(l),
    });
    const url = `${service.url}/webhooks`;
    const accepted = new Map<number, number>();
    const send = async (objectId: number): Promise<number> => {
      const r = await postJson(url, donationEvent(objectId)).catch(() => ({ status: 0, body: '' }));
      if (r.status === 200) accepted.set(objectId, (JSON.parse(r.body) as { id: number }).id);
      return r.status;
    };
    try {
      const ids = Array.from({ length: 100 }, (_, i) => 7000 + i);
      const first = await pool(
        ids.slice(0, 30).map((id) => () => send(id)),
        10,
      );
      expect(first.every((s) => s === 200)).toBe(true);

      // Mid-burst: the server goes away while the rest of the burst keeps coming.
      const during = pool(
        ids.slice(30).map((id) => () => send(id)),
        10,
      );
      await new Promise((r) => setTimeout(r, 30));
      await postgres.stop();
      const statuses = await during;
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
      const health = await request(`${service.url}/healthz`, { method: 'GET' });
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'unavailable' });
      expect(health.body).not.toContain(TEST_PG_PASSWORD);
      // Nothing internal over HTTP: no user, host, port or database name, only a generic reason.
      const reason = (JSON.parse(health.body) as { error: string }).error;
      expect(reason).toMatch(/^queue unavailable: database (refused the connection|shut down or connection lost|connection lost|did not answer in time)$/);
      for (const internal of ['postgres://', 'postgres:', '127.0.0.1', String(postgres.port)]) expect(health.body).not.toContain(internal);

      await postgres.start();
      // The platform resends what was not answered 200.
      await eventually(async () => {
        for (const id of ids.filter((i) => !accepted.has(i))) await send(id);
        return accepted.size === ids.length;
      }, 'every event accepted after the database came back');
      await eventually(async () => (await request(`${service.url}/healthz`, { method: 'GET' })).status === 200, '/healthz ok again');
      await eventually(async () => (await countRows(schema, `status IN ('pending','processing','failed')`)) === 0 && (await countRows(schema)) >= ids.length, 'queue drained');
      // Every event answered 200 is in the queue and done; every record was synced.
      const done = await postgres.query<{ id: string }>(dbUrl, `SELECT id FROM "${schema}".events WHERE status = 'done'`);
      const doneIds = new Set(done.map((r) => Number(r.id)));
      expect([...accepted.values()].every((id) => doneIds.has(id))).toBe(true);
      expect(new Set(processed)).toEqual(new Set(ids.map((i) => `donation:${i}`)));
      expect(lines.join('\n')).not.toContain(TEST_PG_PASSWORD);

      const metrics = await request(`${service.url}/metrics`, { method: 'GET' });
      expect(metrics.status).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.body).toMatch(/^svc_sync_webhook_events_received_total\{event_type="donations\.update",status="503"\} [1-9]\d*$/m);
      expect(metrics.body).toMatch(/^svc_sync_webhook_events_received_total\{event_type="donations\.update",status="200"\} [1-9]\d*$/m);
      expect(metrics.body).toMatch(/^svc_sync_queue_events\{state="done"\} [1-9]\d*$/m);
      expect(metrics.body).toMatch(/^svc_sync_queue_up 1$/m);
    } finally {
      await postgres.start();
      await service.stop();
    }
  });

  it('shares the platform budget: two clients on one key together stay within it', async () => {
    const schema = freshSchema();
    const stack = await startStack({
      site: { donations: 80, segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, newsletterSubscriptions: 0 },
      rateLimit: { perMinute: 24, perHour: 10_000, windowMs: 2_000 },
    });
    const queues = [new PgQueue({ url: dbUrl, schema }), new PgQueue({ url: dbUrl, schema })];
    try {
      const settings = settingsOf(loadRaw({ env: { ...stack.env, SVC_CONCURRENCY: '4' }, cwd: os.tmpdir() }));
      const clients = queues.map((q) => new PlatformClient(settings.platform, { sharedBudget: q.sharedBudget('test-key'), retry: { retryBaseMs: 10 } }));
      const donations = stack.platform.site.donation.slice(0, 60).map((d) => d.id);
      await Promise.all(clients.map((c, i) => Promise.all(donations.filter((_, j) => j % 2 === i).map((id) => c.getById('donation', id)))));
      expect(stack.platform.requests.byIdTotal).toBeGreaterThanOrEqual(60);
      // Each 429 would be a request the two spent beyond the key's budget.
      expect(stack.platform.requests.rateLimited).toBe(0);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
      await stack.close();
    }
  });
});

describe('two `svc-sync serve` processes on one database', () => {
  let stack: Stack;
  let cwd: string;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({
      site: { segments: 1, projectsPerSegment: 2, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 30, newsletterSubscriptions: 0 },
      rateLimit: { perMinute: 10_000, perHour: 100_000 },
    });
    cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-pg-serve-'));
  });
  afterAll(async () => {
    await reap(children);
    await stack.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** `settle`: SVC_SETTLE_S ('0' by default here; undefined leaves serve's own default, 30 s). */
  function start(schema: string, settle: string | undefined = '0'): { proc: ChildProcess; url: Promise<string>; stderr: () => string; exited: Promise<number | null> } {
    let stderr = '';
    const proc = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0']), {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        ...READ_WHOLE,
        ...stack.env,
        SVC_QUEUE_URL: dbUrl,
        SVC_QUEUE_SCHEMA: schema,
        SVC_QUEUE_LEASE_S: '2',
        ...(settle === undefined ? {} : { SVC_SETTLE_S: settle }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const url = (async () => {
      let found: string | undefined;
      await eventually(() => (found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1]) !== undefined || proc.exitCode !== null, 'serve to listen');
      if (found === undefined) throw new Error(`serve exited: ${stderr}`);
      return found;
    })();
    return { proc, url, stderr: () => stderr, exited };
  }

  it('a receiver SIGKILLed with a batch in flight: the other claims it after the lease and syncs each record once', async () => {
    const schema = freshSchema();
    const paid = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0).slice(0, 5);
    expect(paid).toHaveLength(5);
    // Donation reads hang (the receiver is killed while it waits for them).
    stack.platform.faults.next(50, 'slow', { path: '/donations', delayMs: 120_000 });

    // Ten events for five donations, already queued when A starts (taken by a receiver without a
    // worker), so A's first claim holds all of them.
    const intake = new PgQueue({ url: dbUrl, schema });
    const front = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue: intake });
    const replies = await Promise.all(paid.flatMap((d) => [0, 1].map(() => postJson(`${front.url}/webhooks`, donationEvent(d.id)))));
    await front.close();
    await intake.close();
    expect(replies.every((r) => r.status === 200)).toBe(true);

    const a = start(schema);
    await a.url;
    await eventually(async () => (await countRows(schema, `status = 'processing'`)) === 10, 'receiver A holds all ten events');
    await eventually(() => stack.platform.requests.log.some((e) => e.url.includes('/donations')), 'A waiting on the platform');

    // B starts while A holds the batch: it takes new work, but not A's records.
    const b = start(schema);
    const bUrl = await b.url;
    const project = stack.platform.site.project[0];
    expect(project).toBeDefined();
    expect((await postJson(`${bUrl}/webhooks`, { object_type: 'Project', object_id: project?.id ?? 0, event_type: 'projects.update', application: 'Kentaa' })).status).toBe(200);
    await eventually(async () => (await countRows(schema, `ref_type = 'project' AND status = 'done'`)) === 1, 'B syncs the project');
    expect(await countRows(schema, `status = 'processing'`)).toBe(10);

    a.proc.kill('SIGKILL');
    await a.exited;
    stack.platform.faults.clear();
    const donationReadsBefore = stack.platform.requests.log.filter((e) => e.url.includes('/donations') && e.status === 200).length;
    expect(donationReadsBefore).toBe(0);

    // After the 2 s lease, B claims A's records again and syncs them.
    await eventually(async () => (await countRows(schema, `ref_type = 'donation' AND status = 'done'`)) === 10, "B finishes A's events");
    const events = await postgres.query<{ attempts: number; outcome: string }>(dbUrl, `SELECT attempts, outcome FROM "${schema}".events WHERE ref_type = 'donation'`);
    // The interrupted attempt is counted; the outcome recorded once, as done.
    expect(events.every((e) => e.attempts === 1 && e.outcome === 'done')).toBe(true);
    for (const d of paid) expect(stack.salesforce.records('Svc_Donation__c').filter((r) => r.SvcId__c === `Donation_${d.id}`)).toHaveLength(1);
    // Exactly one batch synced them: five records from ten events, in one claim.
    expect(b.stderr()).toMatch(/webhook batch: 10 events \(10 done, 0 skipped, 0 failed\) for 5 records/);
    expect(b.stderr().match(/webhook batch: \d+ events? \(/g)).toHaveLength(2);

    // B's /metrics: what it received, synced and spent.
    const metrics = (await request(`${bUrl}/metrics`, { method: 'GET' })).body;
    expect(metrics).toMatch(/^svc_sync_webhook_events_received_total\{event_type="projects\.update",status="200"\} 1$/m);
    expect(metrics).toMatch(/^svc_sync_records_total\{object="Svc_Donation__c",result="written"\} 5$/m);
    expect(metrics).toMatch(/^svc_sync_salesforce_calls_total\{kind="collections"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^svc_sync_platform_requests_total\{kind="(byId|list)",status="200"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^svc_sync_platform_budget_remaining\{window="minute"\} \d+$/m);
    expect(metrics).toMatch(/^svc_sync_last_successful_batch_timestamp_seconds \d+(\.\d+)?$/m);
    expect(metrics).toMatch(/^svc_sync_batch_duration_seconds_count 2$/m);
    expect(metrics).toMatch(/^svc_sync_queue_events\{state="done"\} 11$/m);

    // The operator's `queue` command reads the same database, and shows no password.
    const status = await runCli(['--json', 'queue'], { cwd, env: { PATH: process.env.PATH ?? '', ...stack.env, SVC_QUEUE_URL: dbUrl, SVC_QUEUE_SCHEMA: schema } });
    expect(status.code).toBe(0);
    const body = JSON.parse(status.stdout) as { result: { path: string; counts: Record<string, number> } };
    expect(body.result.counts).toMatchObject({ done: 11, pending: 0, processing: 0 });
    expect(body.result.path).toContain('<credentials>@127.0.0.1');
    for (const text of [status.stdout, status.stderr, a.stderr(), b.stderr()]) expect(text).not.toContain(TEST_PG_PASSWORD);

    b.proc.kill('SIGTERM');
    expect(await b.exited).toBe(143);
  });

  it("default settle window: a dead receiver's claim is taken over after the lease, and an idle receiver does not spin", async () => {
    const schema = freshSchema();
    const paid = stack.platform.site.donation.filter((d) => d.payment_status === 'paid' && Number(d.total_amount) !== 0).slice(5, 8);
    stack.platform.faults.next(50, 'slow', { path: '/donations', delayMs: 120_000 });
    const intake = new PgQueue({ url: dbUrl, schema });
    const front = await startReceiver({ host: '127.0.0.1', port: 0, path: '/webhooks', queue: intake });
    for (const d of paid) expect((await postJson(`${front.url}/webhooks`, donationEvent(d.id))).status).toBe(200);
    await front.close();
    await intake.close();

    // A claims with --settle 0 and hangs on the platform; B runs with the default 30 s settle window.
    const a = start(schema);
    await a.url;
    await eventually(async () => (await countRows(schema, `status = 'processing'`)) === paid.length, 'receiver A holds the events');
    const b = start(schema, undefined);
    await b.url;
    a.proc.kill('SIGKILL');
    await a.exited;
    stack.platform.faults.clear();
    const killed = Date.now();
    // Taken over once the 2 s lease ran out, not after B's 30 s settle window, nor never (25 s:
    // room for a loaded machine, still short of the settle window).
    await eventually(async () => (await countRows(schema, `ref_type = 'donation' AND status = 'done'`)) === paid.length, "B takes over A's claim", 25_000);
    expect(Date.now() - killed).toBeLessThan(25_000);

    // Idle now: almost no CPU and a handful of database transactions over 3 s (a spinning loop: ~2 s CPU, thousands).
    const ticks = (): number => {
      const fields =
        readFileSync(`/proc/${b.proc.pid ?? 0}/stat`, 'utf8')
          .split(') ')[1]
          ?.split(' ') ?? [];
      return Number(fields[11]) + Number(fields[12]);
    };
    const commits = async (): Promise<number> => Number((await postgres.query<{ n: string }>(dbUrl, `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = 'receivers'`))[0]?.n ?? 0);
    await new Promise((r) => setTimeout(r, 1_500));
    const [t0, c0] = [ticks(), await commits()];
    await new Promise((r) => setTimeout(r, 3_000));
    const [t1, c1] = [ticks(), await commits()];
    expect(t1 - t0).toBeLessThan(40);
    expect(c1 - c0).toBeLessThan(150);
    b.proc.kill('SIGTERM');
    expect(await b.exited).toBe(143);
  }, 120_000);

  it('a wrong password: one clear line, no password, exit code 2', async () => {
    const wrong = dbUrl.replace(TEST_PG_PASSWORD, 'not-the-password-9f1');
    const res = await runCli(['queue', '--queue-url', wrong], { cwd, env: { PATH: process.env.PATH ?? '', ...stack.env } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/queue database postgres:\/\/<credentials>@127\.0\.0\.1:\d+\/receivers: password authentication failed/);
    expect(res.stderr + res.stdout).not.toContain('not-the-password-9f1');
  });

  /** serve as a user starts it; its exit code and stderr once it ends (it must end by itself). */
  const serveOnce = (env: Record<string, string>): Promise<{ code: number; stderr: string }> =>
    runCli(['serve', '--host', '127.0.0.1', '--port', '0'], { cwd, env: { PATH: process.env.PATH ?? '', ...stack.env, ...env } });

  it('permanent misconfiguration stops serve at start, exit 2, one line naming the setting (no 503s forever)', async () => {
    const wrong = dbUrl.replace(TEST_PG_PASSWORD, 'not-the-password-9f1');
    const login = await serveOnce({ SVC_QUEUE_URL: wrong });
    expect(login.code).toBe(2);
    expect(login.stderr.trim().split('\n')).toHaveLength(1);
    expect(unstamp(login.stderr)).toMatch(
      /^svc-sync: SVC_QUEUE_URL \/ SVC_QUEUE_SCHEMA: the database refused the login \(queue database postgres:\/\/<credentials>@127\.0\.0\.1:\d+\/receivers: password authentication failed/,
    );
    expect(login.stderr).not.toContain('not-the-password-9f1');

    const missing = await serveOnce({ SVC_QUEUE_URL: dbUrl.replace(/\/receivers$/, '/no_such_db') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/the database does not exist/);

    const reserved = await serveOnce({ SVC_QUEUE_URL: dbUrl, SVC_QUEUE_SCHEMA: 'pg_queue' });
    expect(reserved.code).toBe(2);
    expect(unstamp(reserved.stderr).trim()).toBe('svc-sync: SVC_QUEUE_SCHEMA "pg_queue": names starting with pg_ are reserved by PostgreSQL; use another (default svc_sync)');
    const shared = await serveOnce({ SVC_QUEUE_URL: dbUrl, SVC_QUEUE_SCHEMA: 'public' });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toMatch(/SVC_QUEUE_SCHEMA "public": is shared with other applications/);
  });

  it('sslmode=require against a server without TLS: serve and queue exit 2, one line naming the setting and nothing beside it; with --log-format json one JSON object', async () => {
    const tls = `${dbUrl}?sslmode=require`;
    const text = await serveOnce({ SVC_QUEUE_URL: tls });
    expect(text.code).toBe(2);
    // The refusal alone: no warning of the driver's about what sslmode means beside it.
    expect(unstamp(text.stderr).trim().split('\n')).toEqual([expect.stringMatching(/^svc-sync: SVC_QUEUE_URL: the database server does not support TLS, which sslmode in the URL requires/)]);
    const status = await runCli(['queue', '--queue-url', tls], { cwd, env: { PATH: process.env.PATH ?? '', ...stack.env } });
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/svc-sync: SVC_QUEUE_URL: the database server does not support TLS/);

    const json = await serveOnce({ SVC_QUEUE_URL: tls, SVC_LOG_FORMAT: 'json' });
    expect(json.code).toBe(2);
    const entries = json.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(entries).toEqual([expect.objectContaining({ level: 'error', msg: expect.stringMatching(/^svc-sync: SVC_QUEUE_URL: the database server does not support TLS/) })]);
    expect(status.stderr).not.toMatch(/SECURITY WARNING/);
    expect(text.stderr + json.stderr + status.stderr).not.toContain(TEST_PG_PASSWORD);
  });

  it("a server certificate the URL's sslmode rejects is as permanent as a refused TLS; a refused connection is not", () => {
    const refused = (code: string): string | undefined => permanentQueueFailure(Object.assign(new Error(code), { code }));
    expect(refused('DEPTH_ZERO_SELF_SIGNED_CERT')).toMatch(/^SVC_QUEUE_URL: the database server's TLS certificate was rejected/);
    expect(refused('ERR_TLS_CERT_ALTNAME_INVALID')).toMatch(/TLS certificate was rejected/);
    expect(refused('ECONNREFUSED')).toBeUndefined();
  });

  it('a database down at start: serve starts, and the failures of its queue and worker are logged warn or error, never info', async () => {
    const port = await freePort();
    const lines: Array<{ line: string; level: string }> = [];
    const service = await serve({
      host: '127.0.0.1',
      port: 0,
      queue: { kind: 'postgres', url: `postgres://svc:pw@127.0.0.1:${port}/svc`, schema: 'svc_sync', leaseMs: 60_000 },
      processor: new RecordingProcessor(),
      handleSignals: false,
      pollMs: 50,
      log: (line, level = 'info') => void lines.push({ line, level }),
    });
    try {
      await eventually(() => lines.some((l) => /^webhook worker: queue .* failing/.test(l.line)), 'the worker to report the queue failing');
    } finally {
      await service.stop();
    }
    const failures = lines.filter((l) => /unavailable|failing|could not/.test(l.line));
    expect(failures.map((l) => l.line)).toEqual(expect.arrayContaining([expect.stringMatching(/database unavailable at start/), expect.stringMatching(/webhook worker: queue .* failing/)]));
    expect(failures.filter((l) => l.level === 'info')).toEqual([]);
  });

  it("a schema holding another application's tables is refused and left untouched", async () => {
    await postgres.query(dbUrl, 'CREATE SCHEMA app');
    await postgres.query(dbUrl, 'CREATE TABLE app.schema_migrations (version VARCHAR PRIMARY KEY)');
    await postgres.query(dbUrl, 'CREATE TABLE app.events (id SERIAL PRIMARY KEY, name TEXT)');
    await postgres.query(dbUrl, "INSERT INTO app.schema_migrations VALUES ('20240101')");
    const run = await serveOnce({ SVC_QUEUE_URL: dbUrl, SVC_QUEUE_SCHEMA: 'app' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/SVC_QUEUE_SCHEMA app: holds tables svc-sync did not create \(events, schema_migrations\); give the queue a schema of its own/);
    const tables = await postgres.query<{ t: string }>(dbUrl, "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'app' ORDER BY 1");
    expect(tables.map((r) => r.t)).toEqual(['events', 'schema_migrations']);
    expect(await postgres.query(dbUrl, 'SELECT version FROM app.schema_migrations')).toEqual([{ version: '20240101' }]);
    // The queue's own schema is marked as such.
    const own = freshSchema();
    const q = new PgQueue({ url: dbUrl, schema: own });
    await q.migrate();
    await q.close();
    expect(await postgres.query(dbUrl, `SELECT obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname = '${own}'`)).toEqual([{ mark: 'svc-sync webhook queue' }]);
  });
});
