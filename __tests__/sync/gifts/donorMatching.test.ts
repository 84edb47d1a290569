/**
 * Matching against what the org already holds (PROJECTION.md §1.3, §7 E15, E16, appendix N5, N6,
 * N8): a step-3 hit is claimed and its blanks filled, never its names; two candidates are never
 * guessed; names never match alone; SVC_MATCH_EMAIL_NAME=false turns step 3 off.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveDonors } from '../../../src/sync/gifts/donors.js';
import { accountByKey, donation, donorOrg, type DonorOrg } from './helpers.js';

let org: DonorOrg | undefined;
afterEach(async () => {
  await org?.emu.close();
  org = undefined;
});

const JOHN = 'P:john.doe@kentaa.nl:doe:john';
const john = (id: number, more = {}) => donation(id, { first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl', ...more });

describe('resolveDonors: matching by email and name', () => {
  it('E15: claims "J. Doe" (same email, an initial): key set, blanks filled, names kept', async () => {
    org = await donorOrg();
    const { npc } = org;
    const person = npc.recordTypeId('PersonAccount');
    const jd = npc.seed('Account', { RecordTypeId: person, FirstName: 'J.', LastName: 'Doe', PersonEmail: 'John.Doe@kentaa.nl', PersonMailingCity: 'Utrecht' });
    org.mark();
    const address = { address: 'Dorpsstraat 1', zipcode: '1234AB', city: 'Amsterdam', country: 'NL' };
    const results = await resolveDonors([{ donation: john(1, { phone: '0612345678', address, birthday: '1980-01-02' }) }], org.ctx());
    expect(results.get(1)?.donor).toEqual({ matchedBy: 'email+name', key: JOHN, id: jd });
    // Phone filled; the address only as a whole block, and this one has a city already.
    expect(accountByKey(npc, JOHN)).toMatchObject({
      Id: jd,
      FirstName: 'J.',
      LastName: 'Doe',
      PersonEmail: 'John.Doe@kentaa.nl',
      Phone: '0612345678',
      PersonMailingCity: 'Utrecht',
    });
    expect(accountByKey(npc, JOHN)).not.toHaveProperty('PersonMailingStreet');
    expect(accountByKey(npc, JOHN)).not.toHaveProperty('PersonBirthdate');
    expect(npc.records('Account')).toHaveLength(1);
    // key query, email query, one update by Id (claim + fill): no upsert.
    expect(org.calls()).toBe(3);
    expect(org.emu.requests().filter((r) => r.startsWith('PATCH'))).toEqual(['PATCH /services/data/v' + org.emu.apiVersion + '/composite/sobjects']);
  });

  it('N5: a hit holding another key is used and linked, its key left alone; the whole address fills a blank block', async () => {
    org = await donorOrg();
    const { npc } = org;
    const id = npc.seed('Account', { RecordTypeId: npc.recordTypeId('PersonAccount'), FirstName: 'John', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl', SvcDonorKey__c: 'P:other' });
    const ctx = org.ctx();
    const address = { address: 'Dorpsstraat 1', zipcode: '1234AB', city: 'Amsterdam', country: 'NL' };
    const results = await resolveDonors([{ donation: john(1, { address }) }], ctx);
    expect(results.get(1)?.donor).toEqual({ matchedBy: 'email+name', key: 'P:other', id });
    expect(ctx.links.get(JOHN)).toBe(id);
    expect(npc.records('Account')).toEqual([
      expect.objectContaining({ SvcDonorKey__c: 'P:other', PersonMailingStreet: 'Dorpsstraat 1', PersonMailingPostalCode: '1234AB', PersonMailingCity: 'Amsterdam', PersonMailingCountry: 'NL' }),
    ]);
  });

  it('E16: two candidates are ambiguous: a new donor, a warning listing both to merge', async () => {
    org = await donorOrg();
    const { npc } = org;
    const person = npc.recordTypeId('PersonAccount');
    const a = npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    const b = npc.seed('Account', { RecordTypeId: person, LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    const results = await resolveDonors([{ donation: john(1) }], org.ctx());
    const r = results.get(1);
    const created = accountByKey(npc, JOHN)?.Id;
    expect(r?.donor).toEqual({ matchedBy: 'ambiguous', key: JOHN, id: created, candidates: [a, b] });
    expect(r?.warnings).toHaveLength(1);
    expect(r?.warnings[0]).toContain('Donation_1');
    expect(r?.warnings[0]).toContain(`${a}, ${b}`);
    expect(npc.records('Account').filter((x) => (x.Id === a || x.Id === b) && x.SvcDonorKey__c === undefined)).toHaveLength(2);
  });

  it('never by name alone, never another first name; SVC_MATCH_EMAIL_NAME=false makes new donors', async () => {
    org = await donorOrg();
    const { npc } = org;
    const person = npc.recordTypeId('PersonAccount');
    const jane = npc.seed('Account', { RecordTypeId: person, FirstName: 'Jane', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    const karel = npc.seed('Account', { RecordTypeId: person, FirstName: 'Karel', LastName: 'Smit' });
    const results = await resolveDonors([{ donation: john(1) }, { donation: donation(2, { first_name: 'Karel', last_name: 'Smit' }) }], org.ctx());
    expect(results.get(1)?.donor.matchedBy).toBe('new');
    expect(results.get(1)?.donor.id).not.toBe(jane);
    expect(results.get(2)?.donor).toMatchObject({ matchedBy: 'noKey', key: 'D:Donation_2' });
    expect(results.get(2)?.donor.id).not.toBe(karel);

    const off = await resolveDonors([{ donation: donation(3, { first_name: 'Jane', last_name: 'Doe', email: 'john.doe@kentaa.nl' }) }], org.ctx({ matchEmailAndName: false }));
    expect(off.get(3)?.donor.matchedBy).toBe('new');
    expect(off.get(3)?.donor.id).not.toBe(jane);
  });

  it('N9: a company without email or postcode + house number is its own business donor; its person needs an email', async () => {
    org = await donorOrg();
    const { npc } = org;
    const results = await resolveDonors(
      [{ donation: donation(5, { company: 'Acme BV', first_name: 'Eva', last_name: 'Bos' }) }, { donation: donation(6, { company: 'Acme BV', address: { zipcode: '1234 ab', house_number: '12' } }) }],
      org.ctx(),
    );
    expect(results.get(5)).toMatchObject({ donor: { matchedBy: 'noKey', key: 'D:Donation_5' }, giftType: 'Organizational', label: 'Acme BV' });
    expect(results.get(5)?.companyPerson).toBeUndefined();
    expect(results.get(6)?.donor).toMatchObject({ matchedBy: 'new', key: 'O:acme bv:1234 ab:12' });
    expect(npc.records('Account').map((a) => [a.IsPersonAccount, a.Name])).toEqual([
      [false, 'Acme BV'],
      [false, 'Acme BV'],
    ]);
  });

  it('§4: no fundraiser slot when the fundraiser is the donor (their own start donation)', async () => {
    org = await donorOrg();
    const owner = { first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl' };
    const results = await resolveDonors(
      [
        { donation: john(1, { action_id: 8 }), fundraiser: { owner } },
        { donation: donation(2, { action_id: 8 }), fundraiser: { owner } },
      ],
      org.ctx(),
    );
    expect(results.get(1)?.fundraiser).toBeUndefined();
    expect(results.get(2)?.fundraiser).toEqual({ matchedBy: 'key', key: JOHN, id: results.get(1)?.donor.id });
    expect(org.npc.records('Account')).toHaveLength(2);
  });

  it('N12: a fundraiser without a valid email gets no slot; the user record fills phone and address', async () => {
    org = await donorOrg();
    const user = { id: 70, phone: '0201234567', address: 'Kerkstraat 2', zipcode: '1000AA', city: 'Amsterdam', country: 'NL', birthday: '1970-05-06' };
    const results = await resolveDonors(
      [
        { donation: donation(1, { action_id: 7 }), fundraiser: { owner: { first_name: 'Piet', infix: 'van', last_name: 'Dijk', email: 'piet@x.nl' }, user } },
        { donation: donation(2, { action_id: 9 }), fundraiser: { owner: { first_name: 'Anna', last_name: 'Bos', email: 'not an email' } } },
      ],
      org.ctx(),
    );
    expect(results.get(1)?.fundraiser).toMatchObject({ matchedBy: 'new', key: 'P:piet@x.nl:van dijk:piet' });
    expect(results.get(2)?.fundraiser).toBeUndefined();
    expect(accountByKey(org.npc, 'P:piet@x.nl:van dijk:piet')).toMatchObject({
      FirstName: 'Piet',
      LastName: 'van Dijk',
      Phone: '0201234567',
      PersonMailingStreet: 'Kerkstraat 2',
      PersonMailingCity: 'Amsterdam',
      PersonBirthdate: '1970-05-06',
    });
  });

  it('a claim refused (the Account merged away meanwhile) is a warning; the donation is not failed', async () => {
    org = await donorOrg();
    const { npc } = org;
    const person = npc.recordTypeId('PersonAccount');
    const jd = npc.seed('Account', { RecordTypeId: person, FirstName: 'J.', LastName: 'Doe', PersonEmail: 'john.doe@kentaa.nl' });
    const other = npc.seed('Account', { RecordTypeId: person, FirstName: 'Johnny', LastName: 'Doe' });
    const gate = org.emu.holdNext(/^PATCH .*\/composite\/sobjects$/);
    const running = resolveDonors([{ donation: john(1) }], org.ctx());
    await gate.reached;
    npc.merge(other, jd);
    gate.release();
    const r = (await running).get(1);
    expect(r?.error).toBeUndefined();
    expect(r?.donor).toEqual({ matchedBy: 'email+name', key: JOHN, id: jd });
    expect(r?.warnings).toEqual([expect.stringMatching(new RegExp(`^Donation_1: donor Account ${jd}: key or blank fields not written: ENTITY_IS_DELETED`))]);
  });
});
