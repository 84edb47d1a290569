/**
 * The status page in a real browser: Chromium (Debian's where present, else the build shipped in
 * the @sparticuz/chromium dev dependency) driven by playwright-core, against a
 * receiver whose queue holds done, failed and queued events. Every figure is read off the page
 * and compared with /healthz; retry is pressed; the page fits 375 px and 1280 px.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BROWSER_ARGS, browserExecutable } from '../../fixtures/browser.js';
import type { ObjectRef } from '../../src/model/objects.js';
import { classifyEvent } from '../../src/sync/input/webhookEvents.js';
import { parseWebhookBody } from '../../src/sync/input/webhookMessage.js';
import type { BudgetLeft } from '../../src/webhook/worker/batchPolicy.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { serve, type RunningService } from '../../src/webhook/serve.js';
import { startReceiver } from '../../src/webhook/receiver/server.js';
import { statusRoute } from '../../src/webhook/status/statusRoute.js';
import type { ProcessResult } from '../../src/webhook/worker/worker.js';
import { donationEvent, eventually, postJson, request, tempQueue, type TempDir } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';
import { tempFolders } from '../support/tempFolders.js';

const TOKEN = 'status-admin-token-0123456789abcdef';
const FAILING = new Set([10, 11]);
const BUDGET: BudgetLeft = { limitHour: 500, remainingHour: 480, limitMinute: 60, remainingMinute: 55 };
// README's picture is taken again only when asked (its times change on every run).
// Outside an update the picture goes to a folder of this file's own, removed after its last test.
const shots = tempFolders('svc-sync-status-');
const SCREENSHOT = process.env.SVC_SYNC_UPDATE_SCREENSHOT === '1' ? path.join(process.cwd(), 'docs', 'status-page.png') : path.join(shots(), 'status-page.png');

/** Donations 10 and 11 fail as an unreachable platform would; the rest are synced. */
class StatusProcessor {
  async process(refs: ObjectRef[]): Promise<ProcessResult> {
    return {
      outcomes: refs.map((ref) => (FAILING.has(ref.id) ? { ref, status: 'failed' as const, reason: 'network error ECONNREFUSED (platform)' } : { ref, status: 'done' as const })),
      requests: refs.length,
    };
  }

  budget(): BudgetLeft {
    return BUDGET;
  }
}

interface Health {
  status: string;
  queue: Record<string, number>;
  batches: { waiting?: string; last?: { events: number; requests?: number; budgetLeft?: { hour?: number; minute?: number } } };
}

let tmp: TempDir;
let service: RunningService;
let browser: Browser;

async function health(): Promise<Health> {
  const reply = await request(`${service.url}/healthz`, { method: 'GET' });
  return JSON.parse(reply.body) as Health;
}

/** Five events stored before serve starts: with a batch size of 5 they form a full batch at once. */
async function prefill(file: string): Promise<void> {
  const queue = new SqliteQueue(file);
  const inputs = [1, 2, 3, 10, 11].map((id) => {
    const raw = JSON.stringify(donationEvent(id));
    const parsed = parseWebhookBody('application/json', raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    return { message: parsed.message, intent: classifyEvent(parsed.message), raw };
  });
  await queue.enqueueEach(inputs);
  await queue.close();
}

async function pageCounts(page: Page): Promise<Record<string, number>> {
  return page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-count') ?? '', Number((e.textContent ?? '').replace(/,/g, ''))])));
}

async function noHorizontalScroll(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 800 });
  // A string, evaluated in the page: this project's TypeScript has no DOM types.
  const { scrollWidth, clientWidth } = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
  );
  expect({ width, scrollWidth }).toEqual({ width, scrollWidth: Math.min(scrollWidth, clientWidth) });
}

beforeAll(async () => {
  const executable = browserExecutable();
  tmp = tempQueue();
  await prefill(tmp.db);
  service = await serve({
    host: '127.0.0.1',
    port: 0,
    queue: { kind: 'sqlite', path: tmp.db },
    processor: new StatusProcessor(),
    adminToken: TOKEN,
    handleSignals: false,
    pollMs: 10,
    batchSize: 5,
    // Long enough that nothing else runs during the test: later events stay queued (settling).
    settleMs: 600_000,
    retry: { baseMs: 3_600_000, maxMs: 3_600_000 },
    log: () => undefined,
  });
  await eventually(() => service.metrics !== undefined, 'service up');
  // launch() gives the browser a fresh --user-data-dir of its own (it refuses one in args) and removes it on close.
  browser = await chromium.launch({ executablePath: executable.path, args: BROWSER_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  tmp?.cleanup();
});

test('the page shows what /healthz shows, retries failed events, fits a phone, and asks for the token', async () => {
  // The prefilled batch ran: 3 done, 2 failed (not due for an hour). Two more events stay queued.
  let h = await health();
  await eventually(async () => {
    h = await health();
    return h.queue.done === 3 && h.queue.failed === 2;
  }, 'the prefilled batch to run');
  expect(h.queue).toMatchObject({ done: 3, failed: 2 });
  for (const id of [20, 21]) expect((await postJson(`${service.url}/webhooks`, donationEvent(id))).status).toBe(200);
  await eventually(async () => {
    h = await health();
    return (h.batches.waiting ?? '').startsWith('settling');
  }, 'the new events to settle');
  expect(h.queue.pending).toBe(2);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  // Without the token: 401 and a sign-in form, no figure.
  const first = await page.goto(`${service.url}/status`);
  expect(first?.status()).toBe(401);
  expect(await page.locator('[data-count]').count()).toBe(0);
  await page.fill('#token', 'wrong-token-wrong-token');
  await page.click('button[type=submit]');
  expect(await page.locator('[role=alert]').textContent()).toBe('Wrong admin token.');
  await page.fill('#token', TOKEN);
  await Promise.all([page.waitForURL(`${service.url}/status`), page.click('button[type=submit]')]);

  h = await health();
  expect(await pageCounts(page)).toEqual(h.queue);
  expect(await page.textContent('[data-worker-state]')).toBe('settling');
  expect(h.batches.waiting).toBe(`settling ${await page.textContent('[data-worker-why]')}`);
  expect(Number(await page.textContent('[data-budget=hour]'))).toBe(h.batches.last?.budgetLeft?.hour);
  expect(Number(await page.textContent('[data-budget=minute]'))).toBe(h.batches.last?.budgetLeft?.minute);
  const batch = await page.$$eval('tr[data-batch] td', (tds) => tds.map((td) => td.textContent ?? ''));
  expect(batch.slice(1, 4)).toEqual([String(h.batches.last?.events), String(h.batches.last?.requests), '1.00']);
  expect(batch[5]).toBe('some failed (2 failed)');
  expect(await page.textContent('[data-last-success]')).toBe('none since start');
  const failedRows = await page.$$eval('tr[data-failed]', (rows) => rows.map((r) => r.textContent ?? ''));
  expect(failedRows).toHaveLength(2);
  for (const row of failedRows) expect(row).toContain('network error ECONNREFUSED (platform)');
  // Nothing of the queue's location, the token or the donors' payloads.
  const html = await page.content();
  for (const hidden of [tmp.db, tmp.dir, TOKEN, 'Kentaa', 'site_id']) expect(html).not.toContain(hidden);

  await noHorizontalScroll(page, 1280);
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  await noHorizontalScroll(page, 375);

  // A cross-site POST and one without the page's CSRF token are refused, even with the cookie.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  expect(cookie).toMatch(/^svc_admin=/);
  const form = { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie };
  expect((await request(`${service.url}/status/retry`, { headers: { ...form, Origin: 'https://evil.example' }, body: 'csrf=x' })).status).toBe(403);
  expect((await request(`${service.url}/status/retry`, { headers: form, body: 'csrf=forged' })).status).toBe(403);
  expect((await request(`${service.url}/status/retry`, { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(401);
  expect((await health()).queue.failed).toBe(2);

  // Retry: the failed events become due (pending) at once, and the page says so.
  await Promise.all([page.waitForURL(/\/status\?retried=2$/), page.click('form[action="/status/retry"] button')]);
  expect(await page.textContent('[data-retried]')).toContain('2 failed events are due again');
  h = await health();
  expect(h.queue).toMatchObject({ failed: 0, pending: 4 });
  expect(await pageCounts(page)).toEqual(h.queue);
  await noHorizontalScroll(page, 375);

  // Signed out, the page answers 401 again.
  await Promise.all([page.waitForURL(`${service.url}/status`), page.click('form[action="/status/logout"] button')]);
  expect((await page.reload())?.status()).toBe(401);
  await context.close();
}, 120_000);

test('a script may send the token as a bearer; a wrong one gets 401', async () => {
  expect((await request(`${service.url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  expect((await request(`${service.url}/status`, { method: 'GET', headers: { Authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
});

test('without SVC_ADMIN_TOKEN the page is off: 404', async () => {
  const other = tempQueue();
  const off = await serve({ host: '127.0.0.1', port: 0, queue: { kind: 'sqlite', path: other.db }, processor: new StatusProcessor(), handleSignals: false, log: () => undefined });
  try {
    expect((await request(`${off.url}/status`, { method: 'GET' })).status).toBe(404);
    expect((await request(`${off.url}/status/retry`, { headers: { 'Content-Length': 0 }, body: '' })).status).toBe(404);
  } finally {
    await off.stop();
    other.cleanup();
  }
});

test('a worker backing off is shown with its reason, the queue location left out; an unknown budget says so', async () => {
  const other = tempQueue();
  const queue = new SqliteQueue(other.db);
  const reason = `3 queue errors in a row since 2026-01-01T00:00:00.000Z: could not claim events: SQLITE_FULL in ${queue.location}`;
  const receiver = await startReceiver({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    queue,
    status: statusRoute({ token: TOKEN, queue, worker: () => ({ state: 'backing-off', why: reason, recent: [] }), budget: () => undefined }),
  });
  try {
    const reply = await request(`${receiver.url}/status`, { method: 'GET', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-security-policy']).toContain("default-src 'none'");
    expect(reply.body).toContain('<span class="state" data-worker-state>backing-off</span>');
    expect(reply.body).toContain('SQLITE_FULL in &#60;queue&#62;');
    expect(reply.body).not.toContain(other.dir);
    expect(reply.body).toContain('budget unknown');
    expect(reply.body).toContain('No batch since start.');
  } finally {
    await receiver.close();
    await queue.close();
    other.cleanup();
  }
});
