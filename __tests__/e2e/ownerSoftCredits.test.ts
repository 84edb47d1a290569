/**
 * A page owner change moves the gifts' fundraiser soft credits (PROJECTION.md §4, N12) in the run
 * that updates the page, through dist/cli.js, in Nonprofit Cloud and in NPSP: an incremental
 * `sync` (after a dry run that lists what would move) and `serve` (an actions.update webhook).
 * Action 31 of the §7 site gets more gifts than one page of 200, so the gifts are read in pages.
 * Expected slots are written from §4: the slot's key stays, its recipient is the owner as the
 * platform now has them (a person keyed by email alone, N11), role and share as the table says.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { projectedNpsp } from '../support/npspOrg.js';
import { WAIT_MS } from '../support/patience.js';
import { projected, type Row } from '../support/projectionOrg.js';
import { cliJson, removeDir, tempCwd, waitFor, writeCalls } from './helpers.js';

const SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };
/** Gifts added on action 31 (beside E22's): with E22, two pages of gifts. */
const EXTRA = 230;
const EXTRA_IDS = Array.from({ length: EXTRA }, (_, i) => 1_000 + i);
const ON_PAGE = ['Donation_22', ...EXTRA_IDS.map((id) => `Donation_${id}`)];

function onAction31(id: number): ApiDonation {
  const at = '2016-04-01T10:00:00Z';
  return {
    id,
    site_id: 6,
    created_at: at,
    updated_at: at,
    currency: 'EUR',
    payment_method: 'creditcard',
    payment_status: 'paid',
    payment_status_at: at,
    transaction_id: `TX${id}`,
    action_id: 31,
    team_id: 32,
    project_id: 30,
    segment_id: 2,
    first_name: 'Gever',
    last_name: `Nummer${id}`,
    email: `g${id}@x.nl`,
    donation_amount: '5.0',
    total_amount: '5.0',
  };
}

describe.each(['npc', 'npsp'] as const)('%s: the owner of a page with gifts changes', (model) => {
  let stack: Stack;
  let cwd: string;
  let child: ChildProcess | undefined;
  const env = (): Record<string, string> => ({
    ...stack.env,
    SVC_PROJECTION: model,
    SVC_SITE_ID: '6',
    SVC_SALESFORCE_LOG: 'off',
    ...(model === 'npsp' ? { SVC_NPSP_REFUND_MODE: 'stage' } : {}),
  });
  /** The fundraiser slots svc-sync wrote, by key, with their recipient's donor key. */
  const slots = (): Record<string, Row> => (model === 'npc' ? projected(stack).softCredits : Object.fromEntries(Object.entries(projectedNpsp(stack).roles).filter(([k]) => k.endsWith(':fundraiser'))));
  /** §4's slot for a gift on action 31, crediting `owner`. */
  const slot = (gift: string, owner: string): Row =>
    model === 'npc' ? { Gift: gift, Recipient: owner, Role: 'Solicitor', PartialPercent: 100 } : { Role: 'Soft Credit', Gift: gift, Contact: owner, IsPrimary: false };
  /** Every slot as it was, with the gifts on action 31 crediting `owner`. */
  const expected = (before: Record<string, Row>, owner: string): Record<string, Row> => ({ ...before, ...Object.fromEntries(ON_PAGE.map((g) => [`${g}:fundraiser`, slot(g, owner)])) });
  const donor = (key: string): Row | undefined => (model === 'npc' ? projected(stack).accounts[key] : projectedNpsp(stack).contacts[key]);

  beforeAll(async () => {
    stack = await startStack({ site: SITE, salesforce: model === 'npc' ? { npc: true } : { npsp: true, npspAutomation: true } });
    stack.salesforce.npc?.addValue('GiftRefund', 'Reason', 'Chargeback');
    for (const id of EXTRA_IDS) stack.platform.add('donation', onAction31(id));
    cwd = tempCwd(`owner-soft-credits-${model}`);
    // E12 (a gift in another currency) is the one failure of the §7 site.
    expect((await cliJson(stack, ['sync', '--all'], cwd, undefined, env())).code).toBe(1);
    expect(Object.keys(slots()).filter((k) => ON_PAGE.includes(k.replace(/:fundraiser$/, '')))).toHaveLength(ON_PAGE.length);
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await stack.close();
    removeDir(cwd);
  });

  it('incremental sync: every gift on the page credits the new owner; a dry run lists them first and writes nothing', async () => {
    const before = slots();
    expect(before['Donation_22:fundraiser']).toEqual(slot('Donation_22', 'P:owner31@x.nl::'));
    stack.platform.update('user', 19_003, { email: 'new31@x.nl' });
    stack.platform.update('action', 31, { owner: { id: 19_003, email: 'new31@x.nl' } });

    stack.salesforce.resetCalls();
    const dry = await cliJson(stack, ['--dry-run', 'sync'], cwd, undefined, env());
    expect(dry.code).toBe(0);
    expect(writeCalls(stack)).toBe(0);
    expect(slots()).toEqual(before);
    const moves = (dry.body.result as unknown as { projection: { softCreditMoves?: Array<{ donation: string; page: string; action: string; to?: string }> } }).projection.softCreditMoves;
    expect(moves).toEqual(ON_PAGE.map((donation) => ({ donation, page: 'Action_31', action: 'update', to: 'P:new31@x.nl::' })));

    stack.platform.resetCounts();
    const res = await cliJson(stack, ['sync'], cwd, undefined, env());
    expect(res.code).toBe(1);
    // The gifts were found in Salesforce: not one of their donations was read from the platform.
    expect(stack.platform.requests.log.filter((r) => r.kind === 'byId' && r.collection === 'donations' && !/\/donations\/12$/.test(r.url))).toEqual([]);
    // The old owner's slots are gone: the same keys credit the new owner (a person keyed by email alone, N11).
    expect(slots()).toEqual(expected(before, 'P:new31@x.nl::'));
    expect(donor('P:new31@x.nl::')).toMatchObject({ LastName: 'new31', ...(model === 'npc' ? { PersonEmail: 'new31@x.nl' } : { Email: 'new31@x.nl' }) });
    // The same run again writes nothing.
    stack.salesforce.resetCalls();
    expect((await cliJson(stack, ['sync'], cwd, undefined, env())).code).toBe(1);
    expect(writeCalls(stack)).toBe(0);
  });

  it('serve: an actions.update webhook for the page moves them to the owner it has now', async () => {
    const before = slots();
    const secret = `hook-secret-owner-${model}-7c1d`;
    let stderr = '';
    child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...env(), SVC_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    stack.platform.update('user', 19_003, { first_name: 'Sam', last_name: 'Vos', email: 'sam.vos@x.nl' });
    stack.platform.update('action', 31, { first_name: 'Sam', last_name: 'Vos', owner: { id: 19_003, email: 'sam.vos@x.nl' } });
    const event = { object_type: 'Action', object_id: 31, event_type: 'actions.update', application: 'Kentaa', site_id: 6 };
    const hook = await fetch(`${base}/webhooks/${secret}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
    expect(hook.status).toBe(200);
    const owner = 'P:sam.vos@x.nl:vos:sam';
    await waitFor(
      () => (ON_PAGE.every((g) => (slots()[`${g}:fundraiser`]?.[model === 'npc' ? 'Recipient' : 'Contact'] ?? '') === owner) ? true : undefined),
      WAIT_MS,
      'every slot on the page to credit the new owner',
    );
    child.kill('SIGTERM');
    await new Promise((resolve) => child?.once('exit', resolve));
    expect(slots()).toEqual(expected(before, owner));
    expect(donor(owner)).toMatchObject({ FirstName: 'Sam', LastName: 'Vos' });
  });
});
