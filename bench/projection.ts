/**
 * The gift projection's cost (issue 42, PROJECTION.md §6.2): the built CLI on the medium site of
 * bench/sites.ts into a Nonprofit Cloud org, every run made twice, with SVC_PROJECTION off (the
 * mirror alone) and with npc, each into its own emulator; the projection's Salesforce calls are the
 * difference. Shapes, in this order on the same two orgs:
 *   (a) the first `sync --all`;
 *   (d) a second identical run: `sync --all` again (it compares with the org), and a `sync`;
 *   (b) the cron steady state: 50 new donations, then `sync --since <(a)'s start>`;
 *   (c) serve-shaped batches: 1,000 new donations, then `sync --batch-size 200`;
 *   (e) a page owner change: 1,000 gifts on one action (--owner-gifts N), its owner's email changed, `sync`.
 * Each beside the naive figure (one call per record the projection writes), per 200 gifts written
 * where gifts are written. Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/projection.js [size=5000] [--bin PATH (another build's CLI)] [--model npsp] [--owner-gifts N]
 * --model npsp: the same into an NPSP org with NPSP's automation; its households and primary
 * contact roles are NPSP's writes, not counted as the projection's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../fixtures/cli.js';
import type { EmulatorCalls } from '../fixtures/salesforce/emulator.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import type { ApiDonation } from '../src/model/apiRecords.js';
import { siteFor } from './sites.js';

interface RunFigures {
  code: number;
  wallMs: number;
  salesforce: EmulatorCalls;
  platform: number;
}

type Model = 'npc' | 'npsp';
type Side = 'off' | Model;

/** The records each model's projection writes, counted by a filter where NPSP's automation adds its own (households, primary roles). */
const WRITTEN: Record<Model, Record<string, (r: Record<string, unknown>) => boolean>> = {
  npc: { Account: () => true, Campaign: () => true, GiftTransaction: () => true, GiftSoftCredit: () => true, GiftRefund: () => true },
  npsp: {
    Contact: () => true,
    Account: (r) => typeof r.SvcDonorKey__c === 'string',
    Campaign: () => true,
    Opportunity: () => true,
    OpportunityContactRole: (r) => typeof r.SvcSoftCreditKey__c === 'string',
    npe01__OppPayment__c: (r) => typeof r.SvcRefundKey__c === 'string',
  },
};
const GIFT_OBJECT: Record<Model, string> = { npc: 'GiftTransaction', npsp: 'Opportunity' };
const SLOT_OBJECT: Record<Model, string> = { npc: 'GiftSoftCredit', npsp: 'OpportunityContactRole' };

async function run(stack: Stack, cwd: string, projection: Side, args: string[], bin: string | undefined): Promise<RunFigures> {
  stack.salesforce.resetCalls();
  stack.platform.resetCounts();
  const started = process.hrtime.bigint();
  const res = await runCli(args, { cwd, ...(bin ? { bin } : {}), env: { HOME: cwd, ...stack.env, SVC_SITE_ID: '6', SVC_PROJECTION: projection, SVC_SALESFORCE_LOG: 'off' } });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.code > 1) throw new Error(`${args.join(' ')} (SVC_PROJECTION=${projection}) exited ${res.code}: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { code: res.code, wallMs, salesforce: stack.salesforce.calls(), platform: stack.platform.requests.total };
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/** `count` new paid donations (copies of the site's last ones, new ids and donors, dated now) on both platforms. */
function addDonations(stacks: readonly Stack[], count: number): void {
  const site = (stacks[0] as Stack).platform.site;
  const paid = site.donation.filter((d) => d.payment_status === 'paid');
  const maxId = Math.max(...site.donation.map((d) => d.id));
  const at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const from = paid[paid.length - 1 - (i % paid.length)] as ApiDonation;
    const id = maxId + 1 + i;
    const d: ApiDonation = { ...from, id, created_at: at, updated_at: at, payment_status_at: at, ...(from.email ? { email: `new${id}.${from.email}` } : {}) };
    for (const s of stacks) s.platform.add('donation', { ...d });
  }
}

interface Shape {
  name: string;
  off: RunFigures;
  on: RunFigures;
  /** Records the projection wrote in this run, per object. */
  written: Record<string, number>;
}

function line(s: Shape, model: Model): string {
  const added = s.on.salesforce.total - s.off.salesforce.total;
  const kinds = (['query', 'collections', 'describe', 'other'] as const)
    .map((k) => [k, s.on.salesforce[k] - s.off.salesforce[k]] as const)
    .filter(([, v]) => v !== 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const gifts = s.written[GIFT_OBJECT[model]] ?? 0;
  const records = Object.values(s.written).reduce((n, v) => n + v, 0);
  const per200 = gifts === 0 ? '' : `; per 200 gifts ${fmt((added / gifts) * 200)} (naive ${fmt((records / gifts) * 200)})`;
  const writes = s.on.salesforce.collections - s.off.salesforce.collections;
  return `${s.name}: ${added} calls beyond the mirror's (${kinds || 'none'}), ${writes} write calls, ${gifts} gifts written; naive ${records}${per200}; exit ${s.off.code}/${s.on.code}; ${fmt(s.off.wallMs / 1000, 2)} s -> ${fmt(s.on.wallMs / 1000, 2)} s; platform requests added ${s.on.platform - s.off.platform}`;
}

/**
 * (e) A page owner change: `gifts` new donations on one action (synced first), then its owner's
 * email changes and `sync` runs. Every gift's fundraiser slot should follow the new owner. Beside
 * it the naive figures: each donation read from the platform again and projected (one request per
 * gift, and the projection's calls for that many donations), or one slot write per gift.
 */
async function ownerChange(
  stacks: readonly Stack[],
  shape: (name: string, args: string[]) => Promise<Shape>,
  org: { records(o: string): Array<Record<string, unknown>> },
  gifts: number,
): Promise<void> {
  const site = (stacks[0] as Stack).platform.site;
  const action = site.action.find((a) => typeof a.owner?.id === 'number' && typeof a.owner.email === 'string' && site.user.some((u) => u.id === a.owner?.id));
  if (!action?.owner) throw new Error('no action with an owner in the bench site');
  const maxId = Math.max(...site.donation.map((d) => d.id));
  const paid = site.donation.find((d) => d.payment_status === 'paid') as ApiDonation;
  const at = new Date().toISOString();
  for (let i = 0; i < gifts; i++) {
    const id = maxId + 1 + i;
    const d: ApiDonation = {
      ...paid,
      id,
      action_id: action.id,
      team_id: action.team_id ?? null,
      company_id: action.company_id ?? null,
      project_id: action.project_id ?? null,
      segment_id: action.segment_id ?? null,
      created_at: at,
      updated_at: at,
      payment_status_at: at,
      email: `owner-bench-${id}@x.nl`,
      currency: 'EUR',
    };
    for (const s of stacks) s.platform.add('donation', { ...d });
  }
  await shape(`(e0) ${gifts} new donations on Action_${action.id}, sync`, ['sync']);
  const slotKeys = (): Map<string, unknown> =>
    new Map(
      org
        .records(SLOT_OBJECT.npc)
        .concat(org.records(SLOT_OBJECT.npsp))
        .filter((r) => typeof r.SvcSoftCreditKey__c === 'string')
        .map((r) => [String(r.SvcSoftCreditKey__c), r.RecipientId ?? r.ContactId]),
    );
  const before = slotKeys();
  const ownerId = action.owner.id as number;
  const email = `moved-${ownerId}@x.nl`;
  for (const s of stacks) {
    s.platform.update('user', ownerId, { email });
    s.platform.update('action', action.id, { owner: { ...action.owner, email } });
  }
  const e = await shape(`(e) the owner of Action_${action.id} (${gifts} new gifts beside its own) changed, sync`, ['sync']);
  const moved = [...slotKeys()].filter(([k, to]) => before.has(k) && before.get(k) !== to).length;
  const per200 = moved === 0 ? 'none moved' : fmt(((e.on.salesforce.total - e.off.salesforce.total) / moved) * 200);
  console.log(
    `  slots moved ${moved}; calls per 200 moved ${per200}; naive: ${moved} platform requests (each donation read again) and about ${Math.ceil(moved / 200) * 9} calls to project them, or ${moved} calls (one slot write each)`,
  );
}

async function main(size: number, bin: string | undefined, model: Model, ownerGifts: number): Promise<void> {
  const site = siteFor(size, 0);
  const org = model === 'npc' ? { npc: true } : { npsp: true };
  const [off, on] = await Promise.all([startStack({ site, salesforce: org }), startStack({ site, salesforce: org })]);
  const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'svc-sync-projection-bench-')));
  const [offDir, onDir] = dirs as [string, string];
  const target = model === 'npc' ? on.salesforce.npc : on.salesforce.npsp;
  if (!target) throw new Error(`no ${model} org`);
  const objects = Object.keys(WRITTEN[model]);
  const counts = (): Record<string, number> => Object.fromEntries(objects.map((o) => [o, target.records(o).filter((r) => WRITTEN[model][o]?.(r) === true).length]));
  const shape = async (name: string, args: string[]): Promise<Shape> => {
    const before = counts();
    const o = await run(off, offDir, 'off', args, bin);
    const n = await run(on, onDir, model, args, bin);
    const after = counts();
    const s = { name, off: o, on: n, written: Object.fromEntries(objects.map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)])) };
    console.log(line(s, model));
    return s;
  };
  try {
    const records = Object.values(on.platform.site).reduce((n, list) => n + list.length, 0);
    console.log(`projection ${model}: the medium site of bench/sites.ts (${records} platform records, ${site.donations ?? 0} donations), ${bin ?? 'this build'}; ${os.cpus().length} cores`);
    const start = new Date(Date.now() - 1000).toISOString();
    const first = await shape('(a) first sync --all', ['sync', '--all']);
    console.log(`  written: ${objects.map((o) => `${o} ${first.written[o]}`).join(', ')}`);
    await shape('(d) second identical sync --all', ['sync', '--all']);
    await shape('(d) second identical sync (incremental)', ['sync']);
    addDonations([off, on], 50);
    await shape(`(b) 50 new donations, sync --since ${start}`, ['sync', '--since', start]);
    addDonations([off, on], 1000);
    await shape('(c) 1,000 new donations, sync --batch-size 200', ['sync', '--batch-size', '200']);
    await ownerChange([off, on], shape, target, ownerGifts);
  } finally {
    await Promise.all([off.close(), on.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const binAt = args.indexOf('--bin');
const bin = binAt >= 0 ? args[binAt + 1] : undefined;
const modelAt = args.indexOf('--model');
const model: Model = modelAt >= 0 && args[modelAt + 1] === 'npsp' ? 'npsp' : 'npc';
const size = args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--bin' && args[i - 1] !== '--owner-gifts');
const ownerAt = args.indexOf('--owner-gifts');
main(Number(size ?? 5000), bin, model, ownerAt >= 0 ? Number(args[ownerAt + 1]) : 1000).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
