/**
 * A campaign evening: a sustained stream of donation webhooks (default 3,000 an hour) against the
 * platform's budget (default 500 requests an hour, 100 a minute), delivered as the platform does
 * (one POST at a time, each waiting for its answer), for several hours. Time is compressed: the
 * fake platform's rate-limit windows are shortened by the compression factor (at 60x the "hour"
 * lasts 60 s and the "minute" 1 s) and the events come that much faster. The default, 20x, spaces
 * 3,000 events an hour 60 ms apart: the receiver must answer each POST within that, which a shared
 * machine does not always manage; the table shows the events each hour really got.
 * The receiver is the real `svc-sync serve` (the built CLI, a child process); arguments after `--`
 * go to it unchanged. Its own timers are not compressed: scale any time you pass (a 30 s setting
 * is 1.5 s at 20x).
 *
 * 70 % of the events announce a new paid donation (created on the platform just before), 30 %
 * an update of a donation (one created earlier in the stream, or one mirrored before it began).
 * Each event writes a sequence number into the donation's message, so the bench sees in the
 * Salesforce emulator when each event's change has arrived: its lag.
 *
 * Per (compressed) hour it prints events posted, platform requests used (next to the budget),
 * 429s, the backlog at the hour's end and the lag of that hour's events; then how long the
 * backlog took to clear after the stream stopped. Beside it, the naive receiver: one fetch per
 * event (arithmetic). Lags and durations are given in platform time (real time x compression).
 *
 *   npm run build && node dist/bench/webhook-sustained.js [--compression 20] [--hours 2] [--events-per-hour 3000]
 *       [--per-hour 500] [--per-minute 100] [--drain-hours 2] [--donations 5000] [-- extra serve args, e.g. --settle 0.5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiDonation } from '../src/model/apiRecords.js';
import { isoSeconds } from '../fixtures/platform/site.js';
import { startStack } from '../fixtures/stack.js';
import { batchLines, closeAgent, mirrorFirst, postEvent, quantile, seeded, sleep, startServe, verifyMirror } from './live.js';
import { defaultSite } from './sites.js';

interface Args {
  compression: number;
  hours: number;
  eventsPerHour: number;
  perHour: number;
  perMinute: number;
  drainHours: number;
  donations: number;
  extra: string[];
}

function parseArgs(argv: string[]): Args {
  const args: Args = { compression: 20, hours: 2, eventsPerHour: 3_000, perHour: 500, perMinute: 100, drainHours: 2, donations: 5_000, extra: [] };
  const names: Record<string, keyof Omit<Args, 'extra'>> = {
    '--compression': 'compression',
    '--hours': 'hours',
    '--events-per-hour': 'eventsPerHour',
    '--per-hour': 'perHour',
    '--per-minute': 'perMinute',
    '--drain-hours': 'drainHours',
    '--donations': 'donations',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      args.extra = argv.slice(i + 1);
      break;
    }
    const name = names[a];
    if (name === undefined) throw new Error(`unknown argument ${JSON.stringify(a)} (see the header of bench/webhook-sustained.ts)`);
    const n = Number(argv[++i]);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${a}: expected a positive number`);
    args[name] = n;
  }
  return args;
}

interface Posted {
  seq: number;
  donationId: number;
  postedAt: number;
  mirroredAt?: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const hourMs = 3_600_000 / args.compression;
  const spacingMs = hourMs / args.eventsPerHour;
  const toPlatform = (realMs: number): number => (realMs * args.compression) / 1000;
  const minutes = (realMs: number): string => (Number.isNaN(realMs) ? '-' : `${(toPlatform(realMs) / 60).toFixed(1)} min`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-sustained-'));
  const stack = await startStack({
    site: defaultSite(args.donations),
    rateLimit: { perMinute: args.perMinute, perHour: args.perHour, windowMs: 60_000 / args.compression },
  });
  let stopServe: (() => Promise<number>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    process.stderr.write('mirroring the site first (sync --all)...\n');
    await mirrorFirst(stack, dir);

    const inSf = new Set(stack.salesforce.records('Svc_Donation__c').map((r) => String(r.SvcId__c)));
    const mirrored = stack.platform.site.donation.filter((d) => inSf.has(`Donation_${d.id}`));
    let nextId = Math.max(...stack.platform.site.donation.map((d) => d.id)) + 1;
    const created: number[] = [];
    const rnd = seeded(3000);
    const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)] as T;

    const serve = await startServe(stack, dir, args.extra);
    stopServe = serve.stop;

    // The watch: each event is mirrored once its donation's message carries its sequence number (or a later one).
    const posted: Posted[] = [];
    const open = new Set<Posted>();
    const watch = (): void => {
      if (open.size === 0) return;
      const seqOf = new Map<string, number>();
      for (const r of stack.salesforce.records('Svc_Donation__c')) {
        const m = /^s(\d+) /.exec(String(r.Message__c ?? ''));
        if (m) seqOf.set(String(r.SvcId__c), Number(m[1]));
      }
      const now = performance.now();
      for (const e of open) {
        if ((seqOf.get(`Donation_${e.donationId}`) ?? -1) >= e.seq) {
          e.mirroredAt = now;
          open.delete(e);
        }
      }
    };
    timer = setInterval(watch, 100);

    stack.platform.resetRateLimit();
    stack.platform.resetCounts();
    stack.salesforce.resetCalls();
    const total = Math.round(args.hours * args.eventsPerHour);
    const started = performance.now();
    const hourly: Array<{ requests: number; rateLimited: number; backlog: number }> = [];
    let marked = 0;
    const markHour = (): void => {
      const p = stack.platform.requests;
      const before = hourly.reduce((n, h) => ({ requests: n.requests + h.requests, rateLimited: n.rateLimited + h.rateLimited }), { requests: 0, rateLimited: 0 });
      watch();
      hourly.push({ requests: p.total - before.requests, rateLimited: p.rateLimited - before.rateLimited, backlog: open.size });
      marked++;
    };

    let accepted = 0;
    let answerMs = 0;
    for (let seq = 1; seq <= total; seq++) {
      const due = started + (seq - 1) * spacingMs;
      while (performance.now() >= started + (marked + 1) * hourMs) markHour();
      await sleep(due - performance.now());
      let donationId: number;
      let eventType = 'donations.update';
      const message = `s${seq} campaign evening`;
      if (rnd() < 0.7 || (created.length === 0 && mirrored.length === 0)) {
        const template = pick(mirrored);
        donationId = nextId++;
        const now = isoSeconds(Date.now());
        const donation: ApiDonation = {
          ...template,
          id: donationId,
          created_at: now,
          updated_at: now,
          payment_status: 'paid',
          payment_status_at: now,
          message,
          invoicenumber: `T2026.0001.${String(donationId).padStart(7, '0')}`,
          email: `donor.${donationId}@example.test`,
        };
        stack.platform.add('donation', donation);
        created.push(donationId);
        eventType = 'donations.create';
      } else {
        donationId = created.length > 0 && rnd() < 0.6 ? pick(created) : (pick(mirrored) as ApiDonation).id;
        stack.platform.update('donation', donationId, { message });
      }
      const event: Posted = { seq, donationId, postedAt: 0 };
      if (serve.exitCode() !== undefined) throw new Error(`serve exited (${serve.exitCode()}) during the stream: ${serve.lines.slice(-3).join(' | ')}`);
      const sent = performance.now();
      const status = await postEvent(serve.url, { objectType: 'Donation', objectId: donationId, eventType });
      event.postedAt = performance.now();
      answerMs += event.postedAt - sent;
      if (status === 200) {
        accepted++;
        posted.push(event);
        open.add(event);
      }
    }
    const streamEnd = performance.now();
    while (performance.now() < started + args.hours * hourMs) await sleep(20);
    while (marked < Math.ceil(args.hours)) markHour();

    // After the stream: how long until the backlog clears (bounded by --drain-hours).
    while (open.size > 0 && performance.now() - streamEnd < args.drainHours * hourMs) {
      await sleep(100);
      watch();
    }
    const drainMs = performance.now() - streamEnd;
    const drained = open.size === 0;
    const drainRequests = stack.platform.requests.total - hourly.reduce((n, h) => n + h.requests, 0);
    clearInterval(timer);
    await sleep(300);
    const batches = batchLines(serve.lines);
    const waits = serve.lines.filter((l) => /rate limit|rate limited/.test(l)).length;
    await serve.stop();
    stopServe = undefined;
    // Copied before the dry-run check below makes requests of its own (the fake counts in place).
    const all = structuredClone(stack.platform.requests);
    const verify = drained ? await verifyMirror(stack, dir) : { exact: false, text: 'not checked: the backlog did not clear' };

    console.log(
      `webhook sustained: ${args.eventsPerHour} donation events per hour for ${args.hours} h (${total} events; 70 % new donations, 30 % updates), one POST at a time; ` +
        `budget ${args.perHour} requests/hour, ${args.perMinute}/minute; time compressed ${args.compression}x (an hour lasts ${(hourMs / 1000).toFixed(0)} s); ` +
        `\`svc-sync serve${args.extra.length ? ` ${args.extra.join(' ')}` : ''}\` (child process) + fake platform + Salesforce emulator; lags in platform time`,
    );
    const rows = hourly.map((h, i) => {
      const of = posted.filter((e) => e.postedAt - started >= i * hourMs && e.postedAt - started < (i + 1) * hourMs);
      const lags = of.filter((e) => e.mirroredAt !== undefined).map((e) => (e.mirroredAt as number) - e.postedAt);
      const unresolved = of.length - lags.length;
      return [
        `hour ${i + 1}`,
        String(of.length),
        String(h.requests),
        h.requests <= args.perHour ? 'yes' : 'NO',
        String(h.rateLimited),
        String(h.backlog),
        minutes(quantile(lags, 0.5)),
        minutes(quantile(lags, 0.95)),
        unresolved > 0
          ? `> ${minutes(performance.now() - Math.min(...of.filter((e) => e.mirroredAt === undefined).map((e) => e.postedAt)))} (${unresolved} never mirrored)`
          : minutes(Math.max(...lags)),
      ];
    });
    const widths = [7, 7, 9, 9, 5, 14, 11, 11, 12];
    const header = ['', 'events', 'requests', 'in budget', '429s', 'backlog at end', 'lag median', 'lag p95', 'lag max'];
    const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(Math.max(widths[i] as number, (header[i] as string).length)))).join('  ');
    console.log(line(header));
    for (const r of rows) console.log(line(r));
    console.log(
      `after the stream: ${drained ? `backlog cleared ${minutes(drainMs)} after the last event` : `${open.size} events still not mirrored ${minutes(drainMs)} after the last event`}, ` +
        `using ${drainRequests} more requests`,
    );
    const streamHours = (streamEnd - started) / hourMs;
    if (streamHours > args.hours * 1.1) {
      console.log(
        `note: delivery took ${streamHours.toFixed(1)} h instead of ${args.hours} h (the receiver answered in ${(answerMs / Math.max(1, total)).toFixed(0)} ms on average, ` +
          `the schedule allows ${spacingMs.toFixed(0)} ms): the stream was thinner than ${args.eventsPerHour}/h; use a lower --compression`,
      );
    }
    console.log(
      `accepted (200): ${accepted} of ${total}, answered in ${(answerMs / Math.max(1, total)).toFixed(1)} ms on average; worker batches: ${batches.length}; rate-limit waits logged by serve: ${waits}`,
    );
    console.log(`platform requests in all: ${all.total} (list ${all.listTotal}, by id ${all.byIdTotal}, 429 ${all.rateLimited}) = ${(all.total / Math.max(1, accepted)).toFixed(3)} per event`);
    console.log(
      `naive (1 fetch per event, arithmetic): ${args.eventsPerHour} requests per hour against a budget of ${args.perHour}: ` +
        `${Math.max(0, args.eventsPerHour - args.perHour)} more events behind every hour, a backlog of ${Math.max(0, args.eventsPerHour - args.perHour) * args.hours} after ${args.hours} h`,
    );
    console.log(`whole mirror exact at the end: ${verify.exact ? 'yes' : 'NO'} (${verify.text})`);
  } finally {
    clearInterval(timer);
    closeAgent();
    if (stopServe) await stopServe();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
