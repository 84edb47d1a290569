/**
 * Stored links, keys and admin merges across runs (PROJECTION.md §1.3 step 1-2, §1.6, §6.3, §7
 * E17, E18): a second identical run writes nothing, with or without the links; a merged donor is
 * followed to its survivor (a chain too) and never recreated; a link to a gone Account is
 * resolved again.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveDonors, type DonorInput } from '../../../src/sync/gifts/donors.js';
import { accountByKey, donation, donorOrg, MemoryLinks, type DonorOrg } from './helpers.js';

let org: DonorOrg | undefined;
afterEach(async () => {
  await org?.emu.close();
  org = undefined;
});

const JOHN = 'P:john.doe@kentaa.nl:doe:john';
const PIET = 'P:piet@x.nl:jansen:piet';
const piet = { owner: { first_name: 'Piet', last_name: 'Jansen', email: 'piet@x.nl' } };
const batch: DonorInput[] = [
  { donation: donation(1, { first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl', phone: '0612', action_id: 7 }), fundraiser: piet },
  { donation: donation(4, { first_name: 'Karel', last_name: 'Smit' }) },
  { donation: donation(5, { company: 'Acme BV', email: 'acme@x.nl', first_name: 'Eva', last_name: 'Bos' }) },
  { donation: donation(7, { action_id: 7 }), fundraiser: piet },
];

const writes = (o: DonorOrg): string[] => o.emu.requests().filter((r) => !r.startsWith('GET'));

describe('resolveDonors across runs', () => {
  it('E18: a second run writes nothing: by link (one read), and on a fresh machine by key', async () => {
    org = await donorOrg();
    const first = await resolveDonors(batch, org.ctx());
    const ids = [...first.values()].map((r) => r.donor.id);
    org.mark();
    org.emu.resetCalls();
    const second = await resolveDonors(batch, org.ctx());
    expect([...second.values()].map((r) => r.donor)).toEqual(ids.map((id, i) => expect.objectContaining({ matchedBy: 'link', id, key: [...first.values()][i]?.donor.key })));
    expect(second.get(1)?.fundraiser).toMatchObject({ matchedBy: 'link', key: PIET });
    expect(writes(org)).toEqual([]);
    expect(org.calls()).toBe(1);

    org.mark();
    const fresh = await resolveDonors(batch, org.ctx({ links: new MemoryLinks() }));
    expect([...fresh.values()].map((r) => [r.donor.matchedBy, r.donor.id])).toEqual(ids.map((id) => ['key', id]));
    expect(writes(org)).toEqual([]);
    // key query; the email query finds nothing to decide (every key was found).
    expect(org.calls()).toBe(1);
    expect(org.npc.records('Account')).toHaveLength(6);
  });

  it('E17: a merged donor is followed to the survivor, the link rewritten, nothing recreated', async () => {
    org = await donorOrg();
    const { npc } = org;
    const ctx = org.ctx();
    const first = await resolveDonors(batch.slice(0, 1), ctx);
    const loser = first.get(1)?.donor.id as string;
    const x = npc.seed('Account', { RecordTypeId: npc.recordTypeId('PersonAccount'), FirstName: 'Johnny', LastName: 'Doe', SvcDonorKey__c: 'P:johnny@x.nl:doe:johnny' });
    npc.merge(x, loser);
    const e3 = { donation: donation(3, { first_name: 'John', last_name: 'Doe', email: 'JOHN.DOE@kentaa.nl', action_id: 7 }), fundraiser: piet };
    const results = await resolveDonors([e3], ctx);
    expect(results.get(3)?.donor).toEqual({ matchedBy: 'link', key: 'P:johnny@x.nl:doe:johnny', id: x });
    expect(ctx.links.get(JOHN)).toBe(x);
    expect(npc.records('Account')).toHaveLength(2);
    // The survivor keeps its own key and names.
    expect(npc.records('Account').find((a) => a.Id === x)).toMatchObject({ SvcDonorKey__c: 'P:johnny@x.nl:doe:johnny', FirstName: 'Johnny' });

    // Cold start (no links): the loser's key is found through queryAll and followed too.
    const cold = await resolveDonors([e3], org.ctx({ links: new MemoryLinks() }));
    expect(cold.get(3)?.donor).toEqual({ matchedBy: 'key', key: 'P:johnny@x.nl:doe:johnny', id: x });
    expect(npc.records('Account')).toHaveLength(2);
  });

  it('follows a chain of merges; a survivor without a key gets the donor key', async () => {
    org = await donorOrg();
    const { npc } = org;
    const person = npc.recordTypeId('PersonAccount');
    const a = npc.seed('Account', { RecordTypeId: person, FirstName: 'John', LastName: 'Doe', SvcDonorKey__c: JOHN });
    const b = npc.seed('Account', { RecordTypeId: person, FirstName: 'J', LastName: 'Doe' });
    const c = npc.seed('Account', { RecordTypeId: person, FirstName: 'Jon', LastName: 'Doe', PersonEmail: 'jon@x.nl' });
    npc.merge(b, a);
    npc.merge(c, b);
    const ctx = org.ctx();
    ctx.links.set(JOHN, a);
    org.mark();
    const results = await resolveDonors(batch.slice(0, 1), ctx);
    expect(results.get(1)?.donor).toEqual({ matchedBy: 'link', key: JOHN, id: c });
    expect(ctx.links.get(JOHN)).toBe(c);
    expect(npc.records('Account').find((r) => r.Id === c)).toMatchObject({ SvcDonorKey__c: JOHN, Phone: '0612', PersonEmail: 'jon@x.nl', FirstName: 'Jon' });
    expect(npc.records('Account').filter((r) => r.LastName === 'Doe')).toHaveLength(1);
  });

  it('a link to an Account that is gone (not merged) is resolved again by key, then by email', async () => {
    org = await donorOrg();
    const { npc } = org;
    const ctx = org.ctx();
    ctx.links.set(JOHN, '001000000000404AAA');
    ctx.links.set(PIET, '001000000000405AAA');
    const person = npc.recordTypeId('PersonAccount');
    const existing = npc.seed('Account', { RecordTypeId: person, FirstName: 'John', LastName: 'Doe', SvcDonorKey__c: JOHN });
    const pietsOwn = npc.seed('Account', { RecordTypeId: person, FirstName: 'Piet', LastName: 'Jansen', PersonEmail: 'piet@x.nl' });
    const results = await resolveDonors(batch.slice(0, 1), ctx);
    expect(results.get(1)?.donor).toEqual({ matchedBy: 'key', key: JOHN, id: existing });
    expect(results.get(1)?.fundraiser).toEqual({ matchedBy: 'email+name', key: PIET, id: pietsOwn });
    expect(ctx.links.get(JOHN)).toBe(existing);
    expect(ctx.links.get(PIET)).toBe(pietsOwn);
    expect(accountByKey(npc, PIET)?.Id).toBe(pietsOwn);
    expect(npc.records('Account')).toHaveLength(2);
  });
});
