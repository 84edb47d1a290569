/**
 * The status page's HTML, rendered on the server: its own small CSS, no script, no external
 * resource, a meta refresh. It shows event ids, types and reasons only: no secret, no database
 * location, no donor data (the queue keeps the raw bodies; they never reach this page).
 */
import type { BudgetLeft } from '../worker/batchPolicy.js';
import type { FailedEvent, QueueCounts } from '../queue/store.js';
import type { WorkerSnapshot } from '../worker/worker.js';
import { cutWhole } from '../../model/lineSafe.js';

const REFRESH_S = 15;
/** A reason is cut here: the queue keeps up to 2,000 characters, a phone shows a few lines. */
const REASON_CHARS = 300;

interface StatusView {
  counts: QueueCounts;
  failed: FailedEvent[];
  worker: WorkerSnapshot;
  budget: BudgetLeft | undefined;
  csrf?: string;
  /** Failed events made due by the last retry, shown once after the redirect. */
  retried?: number;
  now: Date;
  /** A config with "connections": one section each (its counts, worker state, budget), in place of the one worker's. */
  connections?: Array<{ name: string; counts: QueueCounts; worker: WorkerSnapshot; budget: BudgetLeft | undefined }>;
}

const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const num = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en-US'));
/** A reason cut to fit, never through a long word (a secret cut in part would escape the masker). */
const cut = (text: string): string => (text.length > REASON_CHARS ? cutWhole(text, REASON_CHARS - 1) : text);

const CSS = `
*{box-sizing:border-box}body{margin:0;font:15px/1.4 system-ui,sans-serif;color:#1b1f24;background:#f6f7f9}
main{max-width:60rem;margin:0 auto;padding:.75rem}h1{font-size:1.3rem;margin:.25rem 0}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}
section{background:#fff;border:1px solid #d8dce1;border-radius:6px;padding:.6rem .75rem;margin:.6rem 0}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #eceef1;vertical-align:top;overflow-wrap:anywhere}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#5b6470;font-size:.85rem}
.counts{display:grid;grid-template-columns:repeat(auto-fit,minmax(6.5rem,1fr));gap:.4rem}.counts div{border:1px solid #eceef1;border-radius:4px;padding:.3rem .5rem}
.counts b{display:block;font-size:1.3rem}.state{font-weight:600}.bad{color:#a11}.ok{color:#16692f}
button{font:inherit;padding:.45rem .9rem;border-radius:4px;border:1px solid #a11;background:#fff;color:#a11;cursor:pointer}
.notice{background:#eef7ee;border-color:#b9dcbf}@media (max-width:40rem){body{font-size:14px}.wide{display:none}}`;

function page(title: string, body: string, refresh: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${refresh ? `<meta http-equiv="refresh" content="${REFRESH_S};url=/status">` : ''}<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;
}

function countsSection(counts: QueueCounts): string {
  const cells = Object.entries(counts)
    .map(([state, n]) => `<div><b data-count="${esc(state)}">${num(n)}</b>${esc(state)}</div>`)
    .join('');
  return `<section><h2>Queue</h2><div class="counts">${cells}</div></section>`;
}

function workerSection(w: WorkerSnapshot, budget: BudgetLeft | undefined): string {
  const why = w.why === undefined ? '' : ` <span data-worker-why>(${esc(cut(w.why))})</span>`;
  const last = w.lastSuccessAt === undefined ? 'none since start' : esc(w.lastSuccessAt);
  const window = (name: string, left: number | undefined, limit: number | undefined, key: string): string =>
    `<tr><td>${name}</td><td class="n" data-budget="${key}">${num(left)}</td><td class="n">${num(limit)}</td></tr>`;
  const budgetTable =
    budget === undefined
      ? '<p class="muted" data-budget="unknown">No platform response yet: budget unknown.</p>'
      : `<table><tr><th>Window</th><th class="n">Left</th><th class="n">Limit</th></tr>${window('hour', budget.remainingHour, budget.limitHour, 'hour')}${window('minute', budget.remainingMinute, budget.limitMinute, 'minute')}</table>`;
  return `<section><h2>Worker</h2><p><span class="state" data-worker-state>${esc(w.state)}</span>${why}</p><p>Last successful batch: <span data-last-success>${last}</span></p><h2>Platform budget</h2>${budgetTable}</section>`;
}

function batchesSection(w: WorkerSnapshot): string {
  if (w.recent.length === 0) return '<section><h2>Last batches</h2><p class="muted">No batch since start.</p></section>';
  const rows = w.recent
    .map(
      (b) =>
        `<tr data-batch><td>${esc(b.finishedAt.slice(11, 19))}</td><td class="n">${num(b.events)}</td><td class="n">${num(b.requests)}</td><td class="n">${b.requestsPerEvent === undefined ? '–' : b.requestsPerEvent.toFixed(2)}</td><td class="n">${num(b.durationMs)}</td><td class="${b.outcome === 'ok' ? 'ok' : 'bad'}">${esc(b.outcome)}${b.failed > 0 ? ` (${num(b.failed)} failed)` : ''}</td></tr>`,
    )
    .join('');
  return `<section><h2>Last batches</h2><div class="scroll"><table><tr><th>UTC</th><th class="n">Events</th><th class="n">Req.</th><th class="n">Req./event</th><th class="n">ms</th><th>Outcome</th></tr>${rows}</table></div></section>`;
}

function failedSection(failed: FailedEvent[], total: number, csrf: string | undefined): string {
  if (total === 0) return '<section><h2>Failed events</h2><p class="muted">None.</p></section>';
  const rows = failed
    .map(
      (e) =>
        `<tr data-failed="${e.id}"><td class="n">${e.id}</td><td>${esc(e.eventType)}${e.connection === undefined ? '' : ` <span class="muted" data-failed-connection>(${esc(e.connection)})</span>`}</td><td class="n">${e.attempts}</td><td class="wide">${esc(e.nextAttemptAt)}</td><td>${esc(cut(e.lastError))}</td></tr>`,
    )
    .join('');
  const more = total > failed.length ? `<p class="muted">${num(total - failed.length)} more not listed.</p>` : '';
  const button =
    csrf === undefined ? '' : `<form method="post" action="/status/retry"><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit">Retry ${num(total)} failed now</button></form>`;
  return `<section><h2>Failed events</h2><div class="scroll"><table><tr><th class="n">Id</th><th>Type</th><th class="n">Tries</th><th class="wide">Next try</th><th>Reason</th></tr>${rows}</table></div>${more}${button}</section>`;
}

/** One connection's section: its name, its events by state, its worker and budget, its last batches. */
function connectionSection(c: NonNullable<StatusView['connections']>[number]): string {
  const counts = Object.entries(c.counts)
    .map(([state, n]) => `${esc(state)} <b>${num(n)}</b>`)
    .join(' · ');
  return `<section data-connection="${esc(c.name)}"><h2>Connection ${esc(c.name)}</h2><p>${counts}</p></section>${workerSection(c.worker, c.budget)}${batchesSection(c.worker)}`;
}

export function renderStatus(v: StatusView): string {
  const notice = v.retried === undefined ? '' : `<section class="notice" data-retried="${v.retried}">${num(v.retried)} failed events are due again.</section>`;
  const body =
    `<h1>svc-sync status</h1><p class="muted">${esc(v.now.toISOString())} · refreshes every ${REFRESH_S} s</p>${notice}` +
    countsSection(v.counts) +
    (v.connections === undefined ? workerSection(v.worker, v.budget) : v.connections.map(connectionSection).join('')) +
    failedSection(v.failed, v.counts.failed, v.csrf) +
    (v.connections === undefined ? batchesSection(v.worker) : '') +
    '<form method="post" action="/status/logout"><button type="submit" style="border-color:#5b6470;color:#5b6470">Sign out</button></form>';
  // Refreshes to /status itself, so the retry notice is shown once and the page keeps refreshing.
  return page('svc-sync status', body, true);
}

export function renderLogin(error: string | undefined): string {
  const message = error === undefined ? '' : `<p class="bad" role="alert">${esc(error)}</p>`;
  return page(
    'svc-sync status: sign in',
    `<h1>svc-sync status</h1><section><form method="post" action="/status/login"><p><label for="token">Admin token (SVC_ADMIN_TOKEN)</label></p>${message}<p><input id="token" name="token" type="password" autocomplete="current-password" required style="width:100%;font:inherit;padding:.4rem"></p><button type="submit" style="border-color:#1b1f24;color:#1b1f24">Sign in</button></form></section>`,
    false,
  );
}
