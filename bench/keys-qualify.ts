/**
 * `keys qualify` (issue 53, SITES.md "Migration"): the built CLI on the medium site of
 * bench/sites.ts, mirrored with bare keys by a first `sync --all`, then moved onto site-qualified
 * keys: the dry run, `--apply` (Collections of 200 by Id, Bulk API 2.0 update jobs above the bulk
 * threshold), `--apply` again (nothing to write), and `--apply` with Bulk off (every update in
 * Collections: the "one call per 200 records" figure). Beside each, the naive figure: one update
 * call per record. Then the same site with the gift projection on (SVC_PROJECTION=npc, an NPC
 * org): the gift side's keys (campaigns, gifts, soft credits, refunds, per-donation donors) move
 * too. Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/keys-qualify.js [size=5000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../fixtures/cli.js';
import type { EmulatorCalls } from '../fixtures/salesforce/emulator.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { siteFor } from './sites.js';

const OBJECTS = ['Svc_Segment__c', 'Svc_Project__c', 'Svc_Team__c', 'Svc_Company__c', 'Svc_Action__c', 'Svc_ActionQuestion__c', 'Svc_Donation__c', 'Svc_NewsletterSubscription__c'];

async function run(stack: Stack, cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ calls: EmulatorCalls; wallMs: number; updated: number }> {
  stack.salesforce.resetCalls();
  const started = process.hrtime.bigint();
  const res = await runCli(['--json', ...args], { cwd, env: { HOME: cwd, ...stack.env, SVC_SITE_ID: '6', SVC_SALESFORCE_LOG: 'off', ...env } });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.code !== 0) throw new Error(`${args.join(' ')} exited ${res.code}: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const result = (JSON.parse(res.stdout) as { result: { updated?: number } }).result;
  return { calls: stack.salesforce.calls(), wallMs, updated: result.updated ?? 0 };
}

/** Flips every key back to bare, as the org was before the migration (the emulator's admin edit, no call counted). */
function unqualify(stack: Stack): void {
  for (const object of OBJECTS) {
    for (const r of stack.salesforce.records(object)) {
      const values: Record<string, string> = {};
      for (const f of ['SvcId__c', 'TargetSvcId__c', 'QuestionSvcId__c']) {
        const v = r[f];
        if (typeof v === 'string' && v.startsWith('6:')) values[f] = v.slice(2);
      }
      stack.salesforce.editRecord(object, r.SvcId__c, values);
    }
  }
}

function line(name: string, records: number, r: { calls: EmulatorCalls; wallMs: number; updated: number }): string {
  const c = r.calls;
  const updateCalls = c.collections + c.bulk;
  const per200 = r.updated === 0 ? '' : `; update calls per 200 records ${((updateCalls / r.updated) * 200).toFixed(2)} (naive 200)`;
  return `${name}: ${c.total} Salesforce calls (query ${c.query}, collections ${c.collections}, bulk ${c.bulk}, other ${c.other}), ${r.updated} of ${records} records updated; naive ${c.query + c.other + r.updated} (${r.updated} single-record updates)${per200}; ${(r.wallMs / 1000).toFixed(2)} s`;
}

const GIFT_OBJECTS = ['Campaign', 'GiftTransaction', 'GiftSoftCredit', 'GiftRefund'];

/** The same site projected into an NPC org with bare keys, then qualified: the mirror's and the gift side's keys. */
async function withProjection(size: number): Promise<void> {
  const stack = await startStack({ site: siteFor(size, 0), salesforce: { npc: true } });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-keys-bench-'));
  const env = { SVC_PROJECTION: 'npc' };
  try {
    const first = await runCli(['sync', '--all'], { cwd, env: { HOME: cwd, ...stack.env, SVC_SITE_ID: '6', SVC_SALESFORCE_LOG: 'off', ...env } });
    if (first.code !== 0) throw new Error(`sync --all (projection) exited ${first.code}: ${first.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const npc = stack.salesforce.npc;
    const mirror = OBJECTS.reduce((n, o) => n + stack.salesforce.records(o).length, 0);
    const perGift = GIFT_OBJECTS.map((o) => `${o} ${npc?.records(o).length ?? 0}`).join(', ');
    const donors = npc?.records('Account').filter((a) => String(a.SvcDonorKey__c ?? '').startsWith('D:')).length ?? 0;
    const gifts = GIFT_OBJECTS.reduce((n, o) => n + (npc?.records(o).length ?? 0), 0) + donors;
    const records = mirror + gifts;
    console.log(`keys-qualify, projection on (SVC_PROJECTION=npc): ${mirror} mirror records and ${gifts} gift-side records with a site key (${perGift}, per-donation donors ${donors})`);
    console.log(line('dry run', records, await run(stack, cwd, ['keys', 'qualify'], env)));
    console.log(line('--apply', records, await run(stack, cwd, ['keys', 'qualify', '--apply'], env)));
    console.log(line('--apply again', records, await run(stack, cwd, ['keys', 'qualify', '--apply'], env)));
  } finally {
    await stack.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function main(size: number): Promise<void> {
  const stack = await startStack({ site: siteFor(size, 0) });
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-keys-bench-'));
  try {
    const first = await runCli(['sync', '--all'], { cwd, env: { HOME: cwd, ...stack.env, SVC_SITE_ID: '6', SVC_SALESFORCE_LOG: 'off' } });
    if (first.code !== 0) throw new Error(`sync --all exited ${first.code}`);
    const records = OBJECTS.reduce((n, o) => n + stack.salesforce.records(o).length, 0);
    const per = OBJECTS.map((o) => `${o.replace(/^Svc_|__c$/g, '')} ${stack.salesforce.records(o).length}`).join(', ');
    console.log(`keys-qualify: the medium site of bench/sites.ts, ${records} records in the org (${per}); node ${process.version}; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(line('dry run', records, await run(stack, cwd, ['keys', 'qualify'])));
    console.log(line('--apply', records, await run(stack, cwd, ['keys', 'qualify', '--apply'])));
    console.log(line('--apply again', records, await run(stack, cwd, ['keys', 'qualify', '--apply'])));
    unqualify(stack);
    console.log(line('--apply, Bulk off (SF_BULK_THRESHOLD=10000000)', records, await run(stack, cwd, ['keys', 'qualify', '--apply'], { SF_BULK_THRESHOLD: '10000000' })));
  } finally {
    await stack.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

const size = process.argv.slice(2).find((a) => /^\d+$/.test(a));
main(Number(size ?? 5000))
  .then(() => withProjection(Number(size ?? 5000)))
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
