/**
 * The donor step's batches (PROJECTION.md §6.1-6.4, appendix N4): what 200 donors cost, a result
 * that does not depend on batch size, a dry run that writes nothing, a refused record that fails
 * only its donations, a fatal error thrown, and the Account record types read once.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ApiDonation } from '../../../src/model/apiRecords.js';
import { ConfigError } from '../../../src/model/errors.js';
import { resolveDonors, type DonorInput, type DonorResult } from '../../../src/sync/gifts/donors.js';
import { readRecordTypes } from '../../../src/sync/gifts/recordTypes.js';
import { donation, donorOrg, MemoryLinks, type DonorOrg } from './helpers.js';

const orgs: DonorOrg[] = [];
afterEach(async () => {
  for (const o of orgs.splice(0)) await o.emu.close();
});
async function newOrg(): Promise<DonorOrg> {
  const o = await donorOrg();
  orgs.push(o);
  return o;
}

const writes = (o: DonorOrg): string[] => o.emu.requests().filter((r) => !r.startsWith('GET'));
const doe = (id: number, first: string, more: Partial<ApiDonation> = {}): DonorInput => ({ donation: donation(id, { first_name: first, last_name: 'Doe', email: 'john@x.nl', ...more }) });
const piet = { owner: { first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl' } };

/** Donors that see each other within a run: an initial, a shared mailbox, an ambiguous one, claims and fills. */
const tangled: DonorInput[] = [
  doe(1, 'John', { action_id: 7 }),
  doe(2, 'J.', { phone: '0611' }),
  doe(3, 'Jane'),
  doe(4, 'J'),
  { donation: donation(5, { first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl', phone: '0655', action_id: 7 }), fundraiser: piet },
  { donation: donation(6, { first_name: 'Ria', last_name: 'Post', email: 'ria@x.nl', phone: '0699' }), fundraiser: { owner: { first_name: 'R.', last_name: 'Post', email: 'RIA@x.nl' } } },
  { donation: donation(8, { first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl', address: { address: 'Laan 1', zipcode: '1000AA', city: 'Amsterdam', country: 'NL' } }) },
];

/** The org's Accounts without Salesforce's Ids, and each donation's donors by the key of the Account they got. */
function picture(o: DonorOrg, results: Array<Map<number, DonorResult>>): unknown {
  const keyOf = new Map(o.npc.records('Account').map((a) => [a.Id, a.SvcDonorKey__c]));
  const accounts = o.npc
    .records('Account')
    .map(({ Id: _i, PersonContactId: _p, ...rest }) => JSON.stringify(Object.entries(rest).sort()))
    .sort();
  const donors = results.flatMap((m) => [...m.values()]).map((r) => [r.donationId, keyOf.get(r.donor.id ?? ''), keyOf.get(r.fundraiser?.id ?? '') ?? null]);
  return { accounts, donors };
}

async function seeded(): Promise<DonorOrg> {
  const o = await newOrg();
  o.npc.seed('Account', { RecordTypeId: o.npc.recordTypeId('PersonAccount'), FirstName: 'Ria', LastName: 'Post', PersonEmail: 'ria@x.nl' });
  return o;
}

describe('resolveDonors in batches', () => {
  it('N4: the same donors and the same org whether the donations come in one batch, in twos or one by one', async () => {
    const one = await seeded();
    const whole = await resolveDonors(tangled, one.ctx());
    expect([...whole.values()].map((r) => [r.donationId, r.donor.matchedBy])).toEqual([
      [1, 'new'],
      [2, 'email+name'],
      [3, 'new'],
      [4, 'ambiguous'],
      [5, 'email+name'],
      [6, 'key'],
      [8, 'key'],
    ]);
    // Donation 6's fundraiser "R. Post" is Ria by email and initial: her own Account, so no slot.
    expect(whole.get(6)?.fundraiser).toBeUndefined();
    expect(whole.get(5)?.fundraiser).toMatchObject({ matchedBy: 'new', key: 'P:piet@x.nl:jansen:piet' });
    const expected = picture(one, [whole]);
    for (const size of [1, 2]) {
      const o = await seeded();
      const ctx = o.ctx();
      const parts: Array<Map<number, DonorResult>> = [];
      for (let i = 0; i < tangled.length; i += size) parts.push(await resolveDonors(tangled.slice(i, i + size), ctx));
      expect(picture(o, parts)).toEqual(expected);
    }
  });

  it('200 new donors cost 4 calls: key query, email query, one upsert, one update of claims', async () => {
    const o = await newOrg();
    const person = o.npc.recordTypeId('PersonAccount');
    for (let i = 0; i < 20; i++) o.npc.seed('Account', { RecordTypeId: person, LastName: `Name${i}`, PersonEmail: `donor${i}@example.org` });
    const inputs = Array.from({ length: 200 }, (_, i): DonorInput => ({
      donation: donation(1000 + i, { first_name: `First${i}`, last_name: `Name${i}`, email: `donor${i}@example.org`, phone: `06${i}` }),
    }));
    o.mark();
    o.emu.resetCalls();
    const results = await resolveDonors(inputs, o.ctx());
    expect([...results.values()].filter((r) => r.donor.matchedBy === 'email+name')).toHaveLength(20);
    expect([...results.values()].filter((r) => r.donor.matchedBy === 'new')).toHaveLength(180);
    expect([...results.values()].every((r) => r.donor.id !== undefined && r.error === undefined)).toBe(true);
    expect(o.calls()).toBe(4);
    expect(o.emu.calls()).toMatchObject({ query: 2, collections: 2 });
    expect(o.npc.records('Account')).toHaveLength(200);

    // The same 200 again: one read of the links, nothing written.
    o.mark();
    o.emu.resetCalls();
    await resolveDonors(inputs, o.ctx());
    expect(o.calls()).toBe(1);
    expect(writes(o)).toEqual([]);
  });

  it('200 donations with 200 fundraisers (400 new donors): the key list split by URL length, two upserts of 200', async () => {
    const o = await newOrg();
    const inputs = Array.from({ length: 200 }, (_, i): DonorInput => ({
      donation: donation(2000 + i, { first_name: `First${i}`, last_name: `Name${i}`, email: `donor${i}@example.org`, action_id: i + 1 }),
      fundraiser: { owner: { first_name: `Owner${i}`, last_name: `Page${i}`, email: `owner${i}@example.org` } },
    }));
    o.mark();
    o.emu.resetCalls();
    const results = await resolveDonors(inputs, o.ctx());
    expect([...results.values()].every((r) => r.donor.id !== undefined && r.fundraiser?.id !== undefined)).toBe(true);
    expect(o.npc.records('Account')).toHaveLength(400);
    // Keys: 2 queries (about 20 KB of SOQL); emails: 1; upserts: 2 collections of 200; no claims.
    expect(o.emu.calls()).toMatchObject({ query: 3, collections: 2 });
    expect(o.calls()).toBe(5);
  });

  it('§6.4: a dry run reads, writes nothing, keeps no link, and decides as the real run', async () => {
    const dry = await seeded();
    const links = new MemoryLinks();
    dry.emu.resetCalls();
    const seen = await resolveDonors(tangled, dry.ctx({ dryRun: true, links }));
    expect(writes(dry)).toEqual([]);
    expect(links.map.size).toBe(0);
    expect(dry.npc.records('Account')).toHaveLength(1);
    expect(seen.get(1)?.donor).toEqual({ matchedBy: 'new', key: 'P:john@x.nl:doe:john' });
    expect(seen.get(4)?.donor.candidates).toEqual(['(new P:john@x.nl:doe:john)', '(new P:john@x.nl:doe:jane)']);
    expect(seen.get(5)?.donor.id).toBe(dry.npc.records('Account')[0]?.Id);
    const real = await resolveDonors(tangled, (await seeded()).ctx());
    const shape = (m: Map<number, DonorResult>) => [...m.values()].map((r) => [r.donor.matchedBy, r.donor.key, r.fundraiser?.key]);
    expect(shape(seen)).toEqual(shape(real));
  });

  it('a record Salesforce refuses fails the donations that need it, and only those', async () => {
    const o = await newOrg();
    o.npc.removeField('Account', 'PersonBirthdate');
    const ctx = o.ctx();
    const results = await resolveDonors(
      [doe(1, 'John', { birthday: '1980-01-02' }), doe(2, 'J.'), doe(3, 'Jane'), { donation: donation(4, {}), fundraiser: { owner: { first_name: 'John', last_name: 'Doe', email: 'john@x.nl' } } }],
      ctx,
    );
    expect(results.get(1)?.error).toEqual({ stage: 'donor', object: 'Account', key: 'P:john@x.nl:doe:john', error: expect.objectContaining({ code: 'INVALID_FIELD' }) });
    expect(results.get(1)?.donor.id).toBeUndefined();
    expect(results.get(2)?.error?.key).toBe('P:john@x.nl:doe:j.');
    expect(results.get(3)?.error).toBeUndefined();
    expect(results.get(4)?.error?.key).toBe('P:john@x.nl:doe:john');
    expect(ctx.links.get('P:john@x.nl:doe:john')).toBeUndefined();
    expect(ctx.links.get('P:john@x.nl:doe:jane')).toBe(results.get(3)?.donor.id);
    expect(o.npc.records('Account').map((a) => a.FirstName)).toEqual(['Jane', undefined]);
  });

  it('a fatal error (the session gone) is thrown, not made a record failure', async () => {
    const o = await newOrg();
    o.emu.expireSession();
    await expect(resolveDonors([doe(1, 'John')], o.ctx())).rejects.toThrow();
  });

  it('reads the Account record types once; a person type that is not there is a configuration error', async () => {
    const o = await newOrg();
    o.mark();
    expect(await readRecordTypes(o.gifts, 'PersonAccount')).toEqual({ person: o.npc.recordTypeId('PersonAccount'), business: o.npc.recordTypeId('Business_Account') });
    expect(o.calls()).toBe(1);
    await expect(readRecordTypes(o.gifts, 'Donor')).rejects.toThrow(new ConfigError('SVC_NPC_PERSON_RECORD_TYPE "Donor": no active Account record type has that DeveloperName; run svc-sync doctor'));
    await expect(readRecordTypes(o.gifts, 'Business_Account')).rejects.toThrow(/not a Person Account type/);
  });
});
