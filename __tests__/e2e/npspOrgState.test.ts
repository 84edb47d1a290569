/**
 * PROJECTION.md §7's org-state cases for NPSP end to end (P5, P13): the §7 site synced by
 * dist/cli.js into an NPSP org that already holds Contacts. E15: a Contact without key, its email
 * in one of NPSP's other email fields, claimed by email + name (names kept, blanks filled as P4
 * says). E16: two matching Contacts, a new donor and `ambiguous` listing both. E17: the donor
 * merged by an admin into another Contact: the link follows, no new donor. With NPSP's automation
 * a seeded Contact has its own household (P13); merges are modelled without it (P13). Expected
 * values are the §7 tables (../support/npspOrg.ts) with each case's effect written out; a seeded
 * Contact is named `#label` until claimed.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { NpspOrg } from '../../fixtures/salesforce/npsp.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { accounts, contacts, opportunities, projectedNpsp, roles } from '../support/npspOrg.js';
import { CAMPAIGNS, JOHN, type Row } from '../support/projectionOrg.js';
import { cliJson, removeDir, tempCwd, writeCalls } from './helpers.js';

const SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };
const JANE = 'P:john.doe@kentaa.nl:doe:jane';

type Org = ReturnType<typeof projectedNpsp>;
type Projection = { failures: string[]; ambiguousDonors: Array<{ donation: string; candidates: string[] }> };

let stack: Stack | undefined;
let cwd: string | undefined;
afterEach(async () => {
  await stack?.close();
  if (cwd !== undefined) removeDir(cwd);
  stack = undefined;
  cwd = undefined;
});

async function start(automation: boolean): Promise<{ org: NpspOrg; env: Record<string, string> }> {
  stack = await startStack({ site: SITE, salesforce: { npsp: true, npspAutomation: automation } });
  cwd = tempCwd('npsp-org-state');
  const org = stack.salesforce.npsp;
  if (!org) throw new Error('no NPSP org');
  return { org, env: { ...stack.env, SVC_PROJECTION: 'npsp', SVC_SITE_ID: '6', SVC_NPSP_REFUND_MODE: 'stage' } };
}

/** Runs the CLI; its one failure is E12's gift in another currency (§2.4). */
async function sync(env: Record<string, string>, args: string[]): Promise<Projection> {
  const s = stack as Stack;
  const res = await cliJson(s, args, cwd as string, undefined, env);
  const projection = (res.body.result as unknown as { projection: Projection }).projection;
  expect({ args, failures: projection.failures.filter((f) => !f.startsWith('Donation_12 ')) }).toEqual({ args, failures: [] });
  return projection;
}

/** The org by key, a seeded Contact (no key yet) named by its label; its household `HH:#label`. */
function seen(labels: Record<string, string>): Org {
  const rename = (v: string): string => v.replace(/\(no key\) (\w+)/, (whole, id: string) => (labels[id] === undefined ? whole : `#${labels[id]}`));
  const deep = (rows: Record<string, Row>): Record<string, Row> =>
    Object.fromEntries(Object.entries(rows).map(([k, row]) => [rename(k), Object.fromEntries(Object.entries(row).map(([f, v]) => [f, typeof v === 'string' ? rename(v) : v]))]));
  const org = projectedNpsp(stack as Stack);
  return Object.fromEntries(Object.entries(org).map(([kind, rows]) => [kind, deep(rows)])) as Org;
}

/** The §7 tables for NPSP (the org after the first `sync --all`, empty at the start). */
function tables(automation: boolean): Org {
  const opps = opportunities(automation);
  return { contacts: contacts(automation), accounts: accounts(automation), opportunities: opps, roles: roles(automation, opps), payments: {}, campaigns: CAMPAIGNS };
}

/** P11/P13: the Household Account NPSP gives a Contact saved without one (Name from the LastName as first written). */
const household = (lastName: string, one2one: string): Row => ({
  Name: `${lastName} Household`,
  RecordType: 'HH_Account',
  npe01__SYSTEM_AccountType__c: 'Household Account',
  Type: 'Household',
  npe01__SYSTEMIsIndividual__c: true,
  One2One: one2one,
});

/** A second `sync --all` and an incremental `sync` write nothing and leave the org as it is. */
async function again(env: Record<string, string>, labels: Record<string, string>, want: Org): Promise<void> {
  for (const args of [['sync', '--all'], ['sync']]) {
    (stack as Stack).salesforce.resetCalls();
    await sync(env, args);
    expect({ args, writes: writeCalls(stack as Stack) }).toEqual({ args, writes: 0 });
    expect(seen(labels)).toEqual(want);
  }
}

describe.each([
  ['with NPSP automation', true],
  ['without NPSP automation', false],
])('an NPSP org holding Contacts before the first sync, %s (P5, P13)', (_name, automation) => {
  it('E15: "J. Doe" with the address as work email is claimed by email + name: key set, names kept, the email block filled (P4)', async () => {
    const { org, env } = await start(automation);
    const seeded = org.seed('Contact', { FirstName: 'J.', LastName: 'Doe', npe01__WorkEmail__c: 'John.Doe@Kentaa.nl' });
    const labels = { [seeded]: 'J. Doe' };
    const other = org.seed('Contact', { FirstName: 'Eva', LastName: 'Doe', Email: 'eva@x.nl' });
    labels[other] = 'Eva Doe';
    const before = seen(labels);
    // P13: with automation each seeded Contact is in a household of its own.
    expect(Object.keys(before.accounts)).toEqual(automation ? ['HH:#J. Doe', 'HH:#Eva Doe'] : []);

    await sync(env, ['sync', '--all']);
    const want = tables(automation);
    // E15: the seeded Contact is John's: SvcDonorKey__c set (it was blank), FirstName "J." kept.
    // P4: Email, home email and the preferred one were all blank: filled as one block; the work
    // email stays as the admin typed it. Its household is the one NPSP gave it when seeded.
    want.contacts[JOHN] = {
      FirstName: 'J.',
      LastName: 'Doe',
      Email: 'john.doe@kentaa.nl',
      npe01__HomeEmail__c: 'john.doe@kentaa.nl',
      npe01__WorkEmail__c: 'John.Doe@Kentaa.nl',
      npe01__Preferred_Email__c: 'Personal',
      ...(automation ? { Account: `HH:${JOHN}` } : {}),
    };
    // N5/N8 read for Contacts: Jane of the same mailbox then finds "J." (an initial of Jane too),
    // one candidate, so no Contact of her own; her gift is the seeded Contact's (§9 R2's risk).
    delete want.contacts[JANE];
    want.opportunities.Donation_2 = { ...want.opportunities.Donation_2, Primary: JOHN, ...(automation ? { Account: `HH:${JOHN}` } : {}) };
    if (automation) {
      delete want.accounts[`HH:${JANE}`];
      want.accounts[`HH:${JOHN}`] = household('Doe', JOHN);
      want.roles['Donation_2:primary'] = { Role: 'Donor', Gift: 'Donation_2', Contact: JOHN, IsPrimary: true };
    }
    // The other Contact of the name, another email: untouched.
    want.contacts['#Eva Doe'] = { FirstName: 'Eva', LastName: 'Doe', Email: 'eva@x.nl', ...(automation ? { Account: 'HH:#Eva Doe' } : {}) };
    if (automation) want.accounts['HH:#Eva Doe'] = household('Doe', '#Eva Doe');
    expect(seen(labels)).toEqual(want);
    await again(env, labels, want);
  });

  it('E16: two Contacts of john.doe@kentaa.nl named Doe, no first name: a new donor, `ambiguous` listing both, nothing of theirs changed', async () => {
    const { org, env } = await start(automation);
    const a = org.seed('Contact', { LastName: 'Doe', Email: 'john.doe@kentaa.nl' });
    const b = org.seed('Contact', { LastName: 'Doe', npe01__AlternateEmail__c: 'john.doe@kentaa.nl' });
    const labels = { [a]: 'Doe (Email)', [b]: 'Doe (alternate)' };

    const projection = await sync(env, ['sync', '--all']);
    // E1 and E2 both find the two (a blank first name is compatible with any, N8); E3 finds John by his key.
    expect(projection.ambiguousDonors.map((d) => ({ ...d, candidates: [...d.candidates].sort() }))).toEqual([
      { donation: 'Donation_1', candidates: [a, b].sort() },
      { donation: 'Donation_2', candidates: [a, b].sort() },
    ]);
    const want = tables(automation);
    want.contacts['#Doe (Email)'] = { LastName: 'Doe', Email: 'john.doe@kentaa.nl', ...(automation ? { Account: 'HH:#Doe (Email)' } : {}) };
    want.contacts['#Doe (alternate)'] = { LastName: 'Doe', npe01__AlternateEmail__c: 'john.doe@kentaa.nl', ...(automation ? { Account: 'HH:#Doe (alternate)' } : {}) };
    if (automation) {
      want.accounts['HH:#Doe (Email)'] = household('Doe', '#Doe (Email)');
      want.accounts['HH:#Doe (alternate)'] = household('Doe', '#Doe (alternate)');
    }
    expect(seen(labels)).toEqual(want);
    await again(env, labels, want);
  });
});

describe('an admin merges the donor Contact between runs (E17; merges modelled without NPSP automation, P13)', () => {
  it('the link follows MasterRecordId to the survivor: no new donor, the survivor takes the key, every gift of it and a new one point there', async () => {
    const { org, env } = await start(false);
    const survivor = org.seed('Contact', { FirstName: 'Johnny', LastName: 'Doe', Email: 'johnny@werk.nl' });
    await sync(env, ['sync', '--all']);
    const want = tables(false);
    const labels = { [survivor]: 'Johnny Doe' };
    want.contacts['#Johnny Doe'] = { FirstName: 'Johnny', LastName: 'Doe', Email: 'johnny@werk.nl' };
    expect(seen(labels)).toEqual(want);

    // The admin merges John's Contact into Johnny's: Salesforce deletes John's (MasterRecordId =
    // Johnny) and moves its gifts' primary contact and its roles to Johnny.
    const john = org.records('Contact').find((c) => c.SvcDonorKey__c === JOHN);
    if (!john) throw new Error('no Contact for John');
    org.merge(survivor, john.Id);
    // E3 again on the platform (its amount corrected), and a new donation of John's.
    const s = stack as Stack;
    s.platform.update('donation', 3, { donation_amount: '6.0', total_amount: '6.0', updated_at: new Date().toISOString() });
    s.platform.add('donation', {
      id: 45,
      site_id: 6,
      created_at: '2016-04-15T10:00:00Z',
      updated_at: new Date().toISOString(),
      currency: 'EUR',
      payment_method: 'creditcard',
      payment_status: 'paid',
      payment_status_at: '2016-04-15T10:00:00Z',
      transaction_id: 'TX45',
      first_name: 'John',
      last_name: 'Doe',
      email: 'john.doe@kentaa.nl',
      donation_amount: '7.0',
      total_amount: '7.0',
    });
    await sync(env, ['sync']);
    // §1.6: no new donor; the survivor's key was blank, so it takes John's; its own fields stay
    // (a hit fills blanks only: its Email is set, so the email block stays).
    delete want.contacts['#Johnny Doe'];
    want.contacts[JOHN] = { FirstName: 'Johnny', LastName: 'Doe', Email: 'johnny@werk.nl' };
    want.opportunities.Donation_3 = { ...want.opportunities.Donation_3, Amount: 6 };
    want.opportunities.Donation_45 = {
      Name: 'John Doe - Donation 45',
      StageName: 'Closed Won',
      CloseDate: '2016-04-15',
      Amount: 7,
      npe01__Do_Not_Automatically_Create_Payment__c: true,
      SvcAnonymous__c: false,
      RecordType: 'Donation',
      Primary: JOHN,
    };
    expect(seen(labels)).toEqual(want);
    expect(org.records('Contact').filter((c) => c.LastName === 'Doe' && c.FirstName !== 'Jane')).toHaveLength(1);
    await again(env, labels, want);
  });
});

describe.each([
  ['with NPSP automation', true, 'Closed Lost'],
  ['without NPSP automation, SVC_NPSP_STAGE_CANCELED=Withdrawn', false, 'Withdrawn'],
])('audit --fix after pages and donations left the platform, %s (E11, P12)', (_name, automation, canceled) => {
  it('gone or ineligible gifts canceled, gone pages inactive, their gifts keep the campaign; dry run first; again nothing', async () => {
    const started = await start(automation);
    const s = stack as Stack;
    const env = canceled === 'Closed Lost' ? started.env : { ...started.env, SVC_NPSP_STAGE_CANCELED: canceled };
    if (canceled !== 'Closed Lost') started.org.addStage(canceled, true, false);
    await sync(env, ['sync', '--all']);
    const want = tables(automation);
    expect(seen({})).toEqual(want);
    // E11: action 7 deleted (its campaign already inactive: not visible), and action 31 (active);
    // donation 19 deleted, donation 13 no longer eligible (its payment failed).
    s.platform.remove('action', 7);
    s.platform.remove('action', 31);
    s.platform.remove('donation', 19);
    s.platform.update('donation', 13, { payment_status: 'failed', updated_at: new Date().toISOString() });

    // The premise first: 2 of the mirror's 3 actions gone is past --max-fix's default; nothing written.
    s.salesforce.resetCalls();
    const refused = await cliJson(s, ['audit', '--fix'], cwd as string, undefined, env);
    expect(refused.code).toBe(2);
    expect((refused.body.result as unknown as { refused: string }).refused).toMatch(/2 of 3 Svc_Action__c would be overwritten, 2 of them gone: their gifts or campaigns marked .*--max-fix 2/);
    expect(seen({})).toEqual(want);

    const fix = ['audit', '--fix', '--max-fix', '100%'];
    // Exit 1 each time: the orphans remain (the mirror keeps them without --delete-orphans).
    const dry = await cliJson(s, ['--dry-run', ...fix], cwd as string, undefined, env);
    expect(dry.code).toBe(1);
    expect(writeCalls(s)).toBe(0);
    // Action_7's campaign is inactive already (not visible): nothing to mark.
    const marks = [
      { object: 'Opportunity', key: 'Donation_13', action: 'update', fields: ['StageName'] },
      { object: 'Opportunity', key: 'Donation_19', action: 'update', fields: ['StageName'] },
      { object: 'Campaign', key: 'Action_31', action: 'update', fields: ['IsActive'] },
    ];
    expect((dry.body.result as unknown as { projection: unknown }).projection).toEqual(marks);
    expect(seen({})).toEqual(want);

    const done = await cliJson(s, fix, cwd as string, undefined, env);
    expect(done.code).toBe(1);
    expect((done.body.result as unknown as { remaining: Array<{ key: string }> }).remaining.map((r) => r.key)).toEqual(['Action_7', 'Action_31', 'Donation_13', 'Donation_19']);
    expect((done.body.result as unknown as { projection: unknown }).projection).toEqual(marks);
    // P12 (N20): StageName SVC_NPSP_STAGE_CANCELED, never deleted; §3.2: the page's campaign inactive, and the
    // gifts on it (Donation_22 and its slot; E1 on Action_7) keep their CampaignId.
    want.opportunities.Donation_13 = { ...want.opportunities.Donation_13, StageName: canceled };
    want.opportunities.Donation_19 = { ...want.opportunities.Donation_19, StageName: canceled };
    want.campaigns = { ...want.campaigns, Action_31: { ...want.campaigns.Action_31, IsActive: false } };
    expect(seen({})).toEqual(want);

    // Again: the orphans are still there, nothing left to mark.
    s.salesforce.resetCalls();
    const second = await cliJson(s, fix, cwd as string, undefined, env);
    expect(second.code).toBe(1);
    expect((second.body.result as unknown as { projection: unknown }).projection).toEqual([]);
    expect(writeCalls(s)).toBe(0);
    expect(seen({})).toEqual(want);
    // A full sync after it: its complete scan proves action 31 gone, so Donation_22's campaign is
    // not read as active again from the mirror row that stays; it writes nothing.
    s.salesforce.resetCalls();
    await sync(env, ['sync', '--all']);
    expect(writeCalls(s)).toBe(0);
    expect(seen({})).toEqual(want);
  });
});
