/**
 * The §7 site run after run (issue 46): after the first `sync --all`, new and moved donations and
 * other platform changes reach the org through every run kind, incremental `sync`, `object`,
 * `replay` and `serve`, and after each the org holds exactly what PROJECTION.md says for the
 * platform as it stands (every gift on its campaign), and a second run writes nothing. Expected
 * values are the §7 tables (../support/projectionOrg.ts) with each change's effect written out.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import type { NpcOrg } from '../../fixtures/salesforce/npc.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { WAIT_MS } from '../support/patience.js';
import { ACCOUNTS, CAMPAIGNS, gift, GIFTS, JOHN, PIET, projected, REFUNDS, RIA, SOFT_CREDITS, type Row } from '../support/projectionOrg.js';
import { cliJson, removeDir, tempCwd, waitFor, writeCalls } from './helpers.js';

const SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };
const LISA = 'P:lisa@x.nl:de wit:lisa';
const OWNER_31 = 'P:owner31@x.nl::';

type Org = ReturnType<typeof projected>;

/** What the org should hold now: the §7 tables, changed as each step below says. */
const want: Org = {
  accounts: { ...ACCOUNTS },
  campaigns: { ...CAMPAIGNS },
  gifts: { ...GIFTS },
  softCredits: { ...SOFT_CREDITS },
  refunds: { ...REFUNDS },
};

let stack: Stack;
let cwd: string;
const env = (): Record<string, string> => ({ ...stack.env, SVC_PROJECTION: 'npc', SVC_SITE_ID: '6', SVC_SALESFORCE_LOG: 'off' });

/** A paid donation made on the given day; updated now, so an incremental run reads it. */
function donation(id: number, day: string, fields: Partial<ApiDonation>): ApiDonation {
  const created = `${day}T10:00:00Z`;
  return {
    id,
    site_id: 6,
    created_at: created,
    updated_at: new Date().toISOString(),
    currency: 'EUR',
    payment_method: 'creditcard',
    payment_status: 'paid',
    payment_status_at: created,
    transaction_id: `TX${id}`,
    ...fields,
  };
}

/** Runs the CLI; the one failure a run may have is E12's gift in another currency (§2.4). */
async function run(args: string[]): Promise<void> {
  const res = await cliJson(stack, args, cwd, undefined, env());
  const failures = (res.body.result as unknown as { projection?: { failures: string[] } }).projection?.failures ?? [];
  expect({ args, failures: failures.filter((f) => !f.startsWith('Donation_12 gift ')) }).toEqual({ args, failures: [] });
  expect({ args, code: res.code === 0 || (res.code === 1 && failures.length > 0) }).toEqual({ args, code: true });
}

/** The org holds exactly `want`; the same run again writes nothing. */
async function expectExact(again: string[] = ['sync']): Promise<void> {
  expect(projected(stack)).toEqual(want);
  stack.salesforce.resetCalls();
  await run(again);
  expect(writeCalls(stack)).toBe(0);
  expect(projected(stack)).toEqual(want);
}

beforeAll(async () => {
  stack = await startStack({ site: SITE, salesforce: { npc: true } });
  stack.salesforce.npc?.addValue('GiftRefund', 'Reason', 'Chargeback');
  cwd = tempCwd('gift-projection-runs');
  await run(['sync', '--all']);
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

describe('the §7 site after new and moved donations', () => {
  it('incremental sync: new gifts on campaigns that exist, a moved gift follows', async () => {
    expect(projected(stack)).toEqual(want);
    // A donor of §7 again (link), to project 3, whose campaign exists.
    stack.platform.add(
      'donation',
      donation(40, '2016-04-10', { project_id: 3, segment_id: 2, first_name: 'Lisa', infix: 'de', last_name: 'Wit', email: 'lisa@x.nl', donation_amount: '12.0', total_amount: '12.0' }),
    );
    // A new donor, to team 4, whose campaign exists (action 7's parent).
    stack.platform.add(
      'donation',
      donation(41, '2016-04-11', { team_id: 4, project_id: 3, segment_id: 2, first_name: 'Femke', last_name: 'Kuip', email: 'femke@x.nl', donation_amount: '7.0', total_amount: '7.0' }),
    );
    // E4 moved from segment 2 to project 30 (§3.3: the gift follows).
    stack.platform.update('donation', 4, { project_id: 30 });
    await run(['sync']);
    want.accounts['P:femke@x.nl:kuip:femke'] = { person: true, FirstName: 'Femke', LastName: 'Kuip', PersonEmail: 'femke@x.nl' };
    want.gifts.Donation_40 = gift(40, { label: 'Lisa de Wit', Donor: LISA, OriginalAmount: 12, TransactionDate: '2016-04-10', Campaign: 'Project_3' });
    want.gifts.Donation_41 = gift(41, { label: 'Femke Kuip', Donor: 'P:femke@x.nl:kuip:femke', OriginalAmount: 7, TransactionDate: '2016-04-11', Campaign: 'Team_4' });
    want.gifts.Donation_4 = { ...want.gifts.Donation_4, Campaign: 'Project_30' };
    await expectExact();
  });

  it('object donation <id>: a gift moved to an action follows, with the fundraiser slot', async () => {
    stack.platform.update('donation', 41, { action_id: 31, team_id: 32, project_id: 30 });
    await run(['object', 'donation', '41']);
    want.gifts.Donation_41 = { ...want.gifts.Donation_41, Campaign: 'Action_31' };
    want.softCredits['Donation_41:fundraiser'] = { Gift: 'Donation_41', Recipient: OWNER_31, Role: 'Solicitor', PartialPercent: 100 };
    await expectExact(['object', 'donation', '41']);
  });

  it('replay: moved to a team whose campaign exists, and to a page the platform lacks (no campaign)', async () => {
    stack.platform.update('donation', 13, { team_id: 32, project_id: 30 });
    stack.platform.update('donation', 2, { action_id: 999 });
    const file = path.join(cwd, 'events.jsonl');
    const line = (id: number): string => JSON.stringify({ object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 });
    fs.writeFileSync(file, `${line(13)}\n${line(2)}\n`);
    await run(['replay', '--file', file]);
    want.gifts.Donation_13 = { ...want.gifts.Donation_13, Campaign: 'Team_32' };
    // N13: a target the platform does not have: no CampaignId (not project 3 either).
    const { Campaign: _old, ...without } = want.gifts.Donation_2 as Row;
    want.gifts.Donation_2 = without;
    await expectExact(['replay', '--file', file]);
  });
});

describe('the §7 site after platform changes between runs', () => {
  it('a refund, a refund undone, an email changed, a donation deleted, an action moved, a new donation by a known donor', async () => {
    stack.platform.update('donation', 40, { payment_status: 'refunded', payment_status_at: '2016-04-20T10:00:00Z' });
    stack.platform.update('donation', 9, { payment_status: 'paid', payment_status_at: '2016-05-25T10:00:00Z' });
    stack.platform.update('donation', 19, { email: 'bob.kok@y.nl' });
    stack.platform.remove('donation', 18);
    stack.platform.update('action', 7, { team_id: null, project_id: 30 });
    stack.platform.add(
      'donation',
      donation(42, '2016-04-12', { action_id: 7, project_id: 30, segment_id: 2, first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl', donation_amount: '2.5', total_amount: '2.5' }),
    );
    // A dry run first: exit 0 (E12's currency is a skip there), nothing written.
    const before = projected(stack);
    stack.salesforce.resetCalls();
    for (const args of [
      ['--dry-run', 'sync'],
      ['--dry-run', 'sync', '--all'],
    ])
      expect({ args, code: (await cliJson(stack, args, cwd, undefined, env())).code }).toEqual({ args, code: 0 });
    expect(writeCalls(stack)).toBe(0);
    expect(projected(stack)).toEqual(before);
    await run(['sync']);
    // §2.3: refunded -> a GiftRefund, the gift stays Paid; paid again -> the refund svc-sync wrote is deleted.
    want.refunds.Donation_40 = { Gift: 'Donation_40', Amount: 12, Date: '2016-04-20', Status: 'Completed' };
    delete want.refunds.Donation_9;
    // §1.2: another email is another donor; the old one keeps what it was made with.
    want.accounts['P:bob.kok@y.nl:kok:bob'] = { person: true, FirstName: 'Bob', LastName: 'Kok', PersonEmail: 'bob.kok@y.nl' };
    want.gifts.Donation_19 = { ...want.gifts.Donation_19, Donor: 'P:bob.kok@y.nl:kok:bob' };
    // Gifts are never deleted (§2.3): Donation_18's stays as it is. §3.2: the page's campaign moves.
    want.campaigns.Action_7 = { ...want.campaigns.Action_7, Parent: 'Project_30' };
    want.gifts.Donation_42 = gift(42, { label: 'John Doe', Donor: JOHN, OriginalAmount: 2.5, TransactionDate: '2016-04-12', Campaign: 'Action_7' });
    want.softCredits['Donation_42:fundraiser'] = { Gift: 'Donation_42', Recipient: PIET, Role: 'Solicitor', PartialPercent: 100 };
    await expectExact();
  });
});

describe("a page owner's email changed", () => {
  it('incremental sync moves the fundraiser slot of every gift on the page to the owner as it is now; a dry run says which first', async () => {
    stack.platform.update('user', 19_003, { email: 'new31@x.nl' });
    stack.platform.update('action', 31, { owner: { id: 19_003, email: 'new31@x.nl' } });
    // The gifts on action 31: E22, and Donation_41 (moved there above). Their donations did not change.
    const moves = [
      { donation: 'Donation_22', page: 'Action_31', action: 'update', to: 'P:new31@x.nl::' },
      { donation: 'Donation_41', page: 'Action_31', action: 'update', to: 'P:new31@x.nl::' },
    ];
    const before = projected(stack);
    stack.salesforce.resetCalls();
    const dry = await cliJson(stack, ['--dry-run', 'sync'], cwd, undefined, env());
    expect(dry.code).toBe(0);
    expect((dry.body.result as unknown as { projection: { softCreditMoves?: unknown } }).projection.softCreditMoves).toEqual(moves);
    expect(writeCalls(stack)).toBe(0);
    expect(projected(stack)).toEqual(before);
    stack.platform.resetCounts();
    await run(['sync']);
    // Not one donation read from the platform: the gifts were found in Salesforce by the page's campaign.
    const read = stack.platform.requests.log.filter((r) => r.kind === 'byId' && /\/donations\/(22|41)(\D|$)/.test(r.url));
    expect(read).toEqual([]);
    // The old owner's slots are gone (the same keys now credit the new owner), field by field.
    want.accounts['P:new31@x.nl::'] = { person: true, LastName: 'new31', PersonEmail: 'new31@x.nl' };
    want.softCredits['Donation_22:fundraiser'] = { Gift: 'Donation_22', Recipient: 'P:new31@x.nl::', Role: 'Solicitor', PartialPercent: 100 };
    want.softCredits['Donation_41:fundraiser'] = { Gift: 'Donation_41', Recipient: 'P:new31@x.nl::', Role: 'Solicitor', PartialPercent: 100 };
    expect(Object.values(projected(stack).softCredits).filter((c) => c.Recipient === OWNER_31)).toEqual([]);
    await expectExact();
    // object and replay of a donation on the page find its slot where it belongs already.
    await expectExact(['object', 'donation', '22']);
  });
});

describe('serve after new and moved donations', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('each webhook batch leaves every gift on its campaign', async () => {
    const secret = 'hook-secret-runs-3f9e';
    let stderr = '';
    child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0.2']), {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...env(), SVC_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    const npc = stack.salesforce.npc as NpcOrg;
    const campaignOf = (key: string): string | undefined => {
      const g = npc.records('GiftTransaction').find((r) => r.SvcGiftKey__c === key);
      return npc.records('Campaign').find((c) => c.Id === g?.CampaignId)?.SvcCampaignKey__c as string | undefined;
    };
    const hook = async (id: number): Promise<void> => {
      const event = { object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
      const res = await fetch(`${base}/webhooks/${secret}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      expect(res.status).toBe(200);
    };
    // A new donation to team 32 (its campaign exists), and E5 moved from project 3 to action 31.
    stack.platform.add(
      'donation',
      donation(43, '2016-04-13', { team_id: 32, project_id: 30, segment_id: 2, first_name: 'Femke', last_name: 'Kuip', email: 'femke@x.nl', donation_amount: '3.0', total_amount: '3.0' }),
    );
    stack.platform.update('donation', 5, { action_id: 31, team_id: 32, project_id: 30 });
    await hook(43);
    await waitFor(() => campaignOf('Donation_43'), WAIT_MS, 'the new gift on its campaign');
    await hook(5);
    await waitFor(() => (campaignOf('Donation_5') === 'Action_31' ? true : undefined), WAIT_MS, 'the moved gift on its new campaign');
    await waitFor(() => (npc.records('GiftSoftCredit').some((s) => s.SvcSoftCreditKey__c === 'Donation_5:fundraiser') ? true : undefined), WAIT_MS, "the moved gift's slot");
    want.gifts.Donation_43 = gift(43, { label: 'Femke Kuip', Donor: 'P:femke@x.nl:kuip:femke', OriginalAmount: 3, TransactionDate: '2016-04-13', Campaign: 'Team_32' });
    want.gifts.Donation_5 = { ...want.gifts.Donation_5, Campaign: 'Action_31' };
    // Action 31's owner as the mirror holds it now (its email changed above).
    want.softCredits['Donation_5:fundraiser'] = { Gift: 'Donation_5', Recipient: 'P:new31@x.nl::', Role: 'Solicitor', PartialPercent: 100 };
    child.kill('SIGTERM');
    await new Promise((resolve) => child?.once('exit', resolve));
    await expectExact();
  });
});

describe('an org seeded with matching accounts, and a merge between runs', () => {
  let seeded: Stack;
  let dir: string;
  const seededEnv = (): Record<string, string> => ({ ...seeded.env, SVC_PROJECTION: 'npc', SVC_SITE_ID: '6', SVC_SALESFORCE_LOG: 'off' });
  beforeAll(async () => {
    seeded = await startStack({ site: SITE, salesforce: { npc: true } });
    seeded.salesforce.npc?.addValue('GiftRefund', 'Reason', 'Chargeback');
    dir = tempCwd('gift-projection-seeded');
  });
  afterAll(async () => {
    await seeded.close();
    removeDir(dir);
  });
  const sync = async (args: string[]): Promise<void> => {
    const res = await cliJson(seeded, args, dir, undefined, seededEnv());
    const failures = (res.body.result as unknown as { projection?: { failures: string[] } }).projection?.failures ?? [];
    expect(failures.filter((f) => !f.startsWith('Donation_12 gift '))).toEqual([]);
  };

  it('E15 claims the seeded "J. Doe"; after a merge (E17) a new gift goes to the survivor; every run exact', async () => {
    const npc = seeded.salesforce.npc as NpcOrg;
    const person = npc.recordTypeId('PersonAccount');
    npc.seed('Account', { RecordTypeId: person, FirstName: 'J.', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    const survivor = npc.seed('Account', { RecordTypeId: person, FirstName: 'Ria', LastName: 'Post', PersonEmail: 'ria.post@werk.nl' });
    await sync(['sync', '--all']);
    // E15: claimed, names kept ("J." stays), the key set. Jane Doe of the same mailbox (E2) then
    // finds "J." by email, last name and initial, one candidate: that account (N5, N8; the risk
    // §9 R2 names), so no account of her own.
    const { 'P:john.doe@kentaa.nl:doe:jane': _jane, ...accounts } = ACCOUNTS;
    const expected: Org = {
      accounts: { ...accounts, [JOHN]: { person: true, FirstName: 'J.', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' } },
      campaigns: CAMPAIGNS,
      gifts: { ...GIFTS, Donation_2: { ...GIFTS.Donation_2, Donor: JOHN } },
      softCredits: SOFT_CREDITS,
      refunds: REFUNDS,
    };
    // The seeded survivor has no key yet.
    const withSeed = (org: Org): Org => ({ ...org, accounts: { ...org.accounts, [`(no key) ${survivor}`]: { person: true, FirstName: 'Ria', LastName: 'Post', PersonEmail: 'ria.post@werk.nl' } } });
    expect(projected(seeded)).toEqual(withSeed(expected));
    // E17: the admin merges Ria's account into the seeded one; Salesforce re-parents her gifts.
    const ria = npc.records('Account').find((a) => a.SvcDonorKey__c === RIA);
    if (!ria) throw new Error('no account for Ria');
    npc.merge(survivor, ria.Id);
    seeded.platform.add('donation', donation(44, '2016-04-14', { first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl', donation_amount: '5.0', total_amount: '5.0' }));
    await sync(['sync']);
    // §1.6: no new donor; the survivor takes the key (it was blank) and keeps its own fields.
    expected.accounts = { ...expected.accounts, [RIA]: { person: true, FirstName: 'Ria', LastName: 'Post', PersonEmail: 'ria.post@werk.nl' } };
    expected.gifts = { ...expected.gifts, Donation_44: gift(44, { label: 'Ria Post', Donor: RIA, OriginalAmount: 5, TransactionDate: '2016-04-14' }) };
    expect(projected(seeded)).toEqual(expected);
    // The full run projects E6 again: a hit fills the survivor's blank phone and its empty address
    // block (N6), nothing else; from then on every run writes nothing.
    await sync(['sync', '--all']);
    expected.accounts[RIA] = {
      ...expected.accounts[RIA],
      Phone: '0612345678',
      PersonMailingStreet: 'Breestraat 12',
      PersonMailingPostalCode: '2311EZ',
      PersonMailingCity: 'Leiden',
      PersonMailingCountry: 'NL',
    };
    expect(projected(seeded)).toEqual(expected);
    for (const args of [['sync'], ['sync', '--all']]) {
      seeded.salesforce.resetCalls();
      await sync(args);
      expect({ args, writes: writeCalls(seeded) }).toEqual({ args, writes: 0 });
      expect(projected(seeded)).toEqual(expected);
    }
  });
});
