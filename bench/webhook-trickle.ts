/**
 * Webhooks as the platform delivers them: one POST at a time, each waiting for its answer, ~25 ms
 * apart. 300 events (donations, actions, projects: update events) for records that a full
 * `sync --all` has already mirrored, some records announced more than once; each record is changed
 * on the platform just before its event is sent, as the platform does. The receiver is the real
 * `svc-sync serve` (the built CLI, a child process, fresh queue) against the fake platform and the
 * Salesforce emulator of fixtures/stack.ts.
 *
 * Prints platform requests per event (next to the naive 1.000: one fetch per event), the worker's
 * batches, and the seconds from the last event's answer until Salesforce holds every change; then
 * a dry-run `sync --all` confirms the whole mirror is exact (nothing would be written).
 *
 *   npm run build && node dist/bench/webhook-trickle.js [--events 300] [--spacing-ms 25] [--donations 5000] [-- extra serve args]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../fixtures/stack.js';
import { batchLines, closeAgent, mirrorFirst, postEvent, seeded, sleep, startServe, verifyMirror, type WebhookEvent } from './live.js';
import { defaultSite } from './sites.js';

interface Args {
  events: number;
  spacingMs: number;
  donations: number;
  extra: string[];
}

function parseArgs(argv: string[]): Args {
  const args: Args = { events: 300, spacingMs: 25, donations: 5_000, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const num = (): number => {
      const n = Number(argv[++i]);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a}: expected a number`);
      return n;
    };
    if (a === '--') {
      args.extra = argv.slice(i + 1);
      break;
    } else if (a === '--events') args.events = num();
    else if (a === '--spacing-ms') args.spacingMs = num();
    else if (a === '--donations') args.donations = num();
    else throw new Error(`unknown argument ${JSON.stringify(a)} (see the header of bench/webhook-trickle.ts)`);
  }
  return args;
}

/** The object a change is visible on, and the field the bench writes its token into. */
const WATCH = {
  Donation: { type: 'donation', object: 'Svc_Donation__c', apiField: 'message', sfField: 'Message__c', event: 'donations.update' },
  Action: { type: 'action', object: 'Svc_Action__c', apiField: 'title', sfField: 'Title__c', event: 'actions.update' },
  Project: { type: 'project', object: 'Svc_Project__c', apiField: 'title', sfField: 'Title__c', event: 'projects.update' },
} as const;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-trickle-'));
  const stack = await startStack({
    site: defaultSite(args.donations),
  });
  let serveStop: (() => Promise<number>) | undefined;
  try {
    process.stderr.write('mirroring the site first (sync --all)...\n');
    await mirrorFirst(stack, dir);

    // Records already in Salesforce: 80 % donation events, 15 % action, 5 % project; ~25 % of the
    // events announce a record announced before (the platform sends one per change).
    const inSf = (object: string): Set<string> => new Set(stack.salesforce.records(object).map((r) => String(r.SvcId__c)));
    const mirrored = {
      Donation: stack.platform.site.donation.filter((d) => inSf('Svc_Donation__c').has(`Donation_${d.id}`)).map((d) => d.id),
      Action: stack.platform.site.action.filter((a) => inSf('Svc_Action__c').has(`Action_${a.id}`)).map((a) => a.id),
      Project: stack.platform.site.project.filter((p) => inSf('Svc_Project__c').has(`Project_${p.id}`)).map((p) => p.id),
    };
    const rnd = seeded(20261123);
    const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)] as T;
    const events: WebhookEvent[] = [];
    for (let i = 0; i < args.events; i++) {
      const earlier = events.length > 0 && rnd() < 0.25;
      if (earlier) {
        events.push({ ...pick(events) });
        continue;
      }
      const roll = rnd();
      const objectType = roll < 0.8 ? 'Donation' : roll < 0.95 ? 'Action' : 'Project';
      events.push({ objectType, objectId: pick(mirrored[objectType]), eventType: WATCH[objectType].event });
    }
    const distinct = new Set(events.map((e) => `${e.objectType}:${e.objectId}`));

    const serve = await startServe(stack, dir, args.extra);
    serveStop = serve.stop;
    stack.platform.resetCounts();
    stack.salesforce.resetCalls();

    // The platform changes the record, then posts; the next post waits for this one's answer.
    const expected = new Map<string, { object: string; field: string; value: string }>();
    let accepted = 0;
    const started = performance.now();
    let lastAnswered = started;
    for (const [n, e] of events.entries()) {
      const w = WATCH[e.objectType];
      const value = `trickle ${n + 1} ${e.objectType} ${e.objectId}`;
      stack.platform.update(w.type, e.objectId, { [w.apiField]: value });
      expected.set(`${e.objectType}:${e.objectId}`, { object: w.object, field: w.sfField, value });
      const status = await postEvent(serve.url, e);
      if (status === 200) accepted++;
      lastAnswered = performance.now();
      if (n < events.length - 1) await sleep(args.spacingMs);
    }
    const deliverySeconds = (lastAnswered - started) / 1000;

    // Caught up: every announced record carries its last change in Salesforce. Watched for 10 minutes at most.
    const caughtUp = (): number => {
      const byObject = new Map<string, Map<string, unknown>>();
      let behind = 0;
      for (const [key, want] of expected) {
        let rows = byObject.get(want.object);
        if (!rows) byObject.set(want.object, (rows = new Map(stack.salesforce.records(want.object).map((r) => [String(r.SvcId__c), r[want.field]]))));
        const [type, id] = key.split(':');
        if (rows.get(`${type}_${id}`) !== want.value) behind++;
      }
      return behind;
    };
    let behind = caughtUp();
    while (behind > 0 && performance.now() - lastAnswered < 600_000) {
      await sleep(50);
      behind = caughtUp();
    }
    const lagSeconds = (performance.now() - lastAnswered) / 1000;
    // Let the worker record its last batch before counting.
    await sleep(300);
    // Copied: the dry-run check below makes requests of its own, and the fake counts in place.
    const p = structuredClone(stack.platform.requests);
    const s = stack.salesforce.calls();
    const batches = batchLines(serve.lines);
    const code = await serve.stop();
    serveStop = undefined;

    const verify = await verifyMirror(stack, dir);
    const perEvent = p.total / Math.max(1, accepted);
    console.log(
      `webhook trickle: ${args.events} events (${distinct.size} distinct records already mirrored: donations, actions, projects), one POST at a time, ` +
        `${args.spacingMs} ms apart; \`svc-sync serve${args.extra.length ? ` ${args.extra.join(' ')}` : ''}\` (child process) + fake platform (rate limit off) + Salesforce emulator; ` +
        `site of ${stack.platform.site.donation.length} donations`,
    );
    console.log(`  accepted (200):              ${accepted} of ${events.length}, delivered in ${deliverySeconds.toFixed(1)} s`);
    console.log(`  worker batches:              ${batches.length}`);
    console.log(`  platform requests:           ${p.total} (list ${p.listTotal}, by id ${p.byIdTotal}, 404 ${p.status[404] ?? 0}) = ${perEvent.toFixed(3)} per event (target <= 0.1)`);
    console.log(`  naive (1 fetch per event):   ${accepted} = 1.000 per event`);
    console.log(`  Salesforce calls:            ${s.total} (query ${s.query}, collections ${s.collections}, bulk ${s.bulk}) = ${(s.total / Math.max(1, accepted)).toFixed(3)} per event`);
    console.log(`  last event -> mirror caught up: ${behind === 0 ? `${lagSeconds.toFixed(1)} s` : `NOT caught up after ${lagSeconds.toFixed(0)} s (${behind} records behind)`} (target <= 60 s)`);
    console.log(`  whole mirror exact:          ${verify.exact ? 'yes' : 'NO'} (${verify.text})`);
    console.log(`  serve exit code:             ${code}`);
    const sizes = batches.map((l) => Number(/(\d+) events/.exec(l)?.[1] ?? 0));
    console.log(`  events per batch:            ${sizes.join(' ')}`);
  } finally {
    closeAgent();
    if (serveStop) await serveStop();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
