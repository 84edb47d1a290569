/** The donor decision of PROJECTION.md §1.3 and the fill-blanks rule (N6), per §7 case where one applies. */
import { describe, expect, it } from '@jest/globals';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { donorsOf } from '../../src/mapping/gifts/donor.js';
import { decideDonor, fillBlanks, type Candidate } from '../../src/mapping/gifts/match.js';

const base: ApiDonation = { id: 1, site_id: 6, payment_status: 'paid', total_amount: '15.0' };
const john = donorsOf({ ...base, first_name: 'John', last_name: 'Doe', email: 'john.doe@kentaa.nl' }, 6).donor;
const cand = (id: string, firstName: string | null, lastName: string | null, key: string | null = null, email = 'john.doe@kentaa.nl'): Candidate => ({ id, firstName, lastName, email, key });

describe('decideDonor', () => {
  it('takes a stored link first, then the key', () => {
    expect(decideDonor(john, { link: '001L', byKey: '001K', byEmail: [cand('001E', 'John', 'Doe')] })).toEqual({ matchedBy: 'link', id: '001L' });
    expect(decideDonor(john, { byKey: '001K', byEmail: [cand('001E', 'John', 'Doe')] })).toEqual({ matchedBy: 'key', id: '001K' });
  });

  it('E15: claims the one account with the same email, last name and an initial ("J.")', () => {
    expect(decideDonor(john, { byEmail: [cand('001J', 'J.', 'Doe')] })).toEqual({ matchedBy: 'email+name', id: '001J', claim: true });
    // A hit that already holds another key is used, its key left alone (N5).
    expect(decideDonor(john, { byEmail: [cand('001J', 'John', 'DOE', 'P:other')] })).toEqual({ matchedBy: 'email+name', id: '001J', claim: false });
  });

  it('E16: two candidates (blank first names) are ambiguous: a new donor, both listed', () => {
    expect(decideDonor(john, { byEmail: [cand('001A', null, 'Doe'), cand('001B', '', 'Doe')] })).toEqual({ matchedBy: 'ambiguous', candidates: ['001A', '001B'] });
  });

  it('never by name alone: another first name, last name or email is new; step 3 can be turned off', () => {
    expect(decideDonor(john, { byEmail: [cand('001J', 'Jane', 'Doe')] })).toEqual({ matchedBy: 'new' });
    expect(decideDonor(john, { byEmail: [cand('001J', 'John', 'Dijk')] })).toEqual({ matchedBy: 'new' });
    expect(decideDonor(john, { byEmail: [cand('001J', 'John', 'Doe', null, 'other@x.nl')] })).toEqual({ matchedBy: 'new' });
    expect(decideDonor(john, { byEmail: [cand('001J', 'John', 'Doe')] }, false)).toEqual({ matchedBy: 'new' });
    const noLast = donorsOf({ ...base, email: 'jan@x.nl' }, 6).donor;
    expect(decideDonor(noLast, { byEmail: [cand('001X', null, 'jan', null, 'jan@x.nl')] })).toEqual({ matchedBy: 'new' });
  });

  it('the anonymous pool and no-key donors are found by key only', () => {
    const pool = donorsOf({ ...base }, 6).donor;
    expect(decideDonor(pool, { byEmail: [] })).toEqual({ matchedBy: 'anonymousPool' });
    expect(decideDonor(pool, { byKey: '001P', byEmail: [] })).toEqual({ matchedBy: 'key', id: '001P' });
    const karel = donorsOf({ ...base, id: 4, first_name: 'Karel', last_name: 'Smit' }, 6).donor;
    expect(decideDonor(karel, { byEmail: [cand('001K', 'Karel', 'Smit', null, '')] })).toEqual({ matchedBy: 'noKey' });
  });
});

describe('fillBlanks (N6)', () => {
  it('fills Phone and PersonEmail one by one, an address only into an empty block, never names', () => {
    const fields = { FirstName: 'John', LastName: 'Doe', Phone: '0612', PersonEmail: 'j@x.nl', PersonMailingCity: 'Utrecht', PersonMailingPostalCode: '1234 AB' };
    expect(fillBlanks({ FirstName: 'J.', Phone: ' ', PersonEmail: 'old@x.nl' }, fields)).toEqual({ Phone: '0612', PersonMailingCity: 'Utrecht', PersonMailingPostalCode: '1234 AB' });
    expect(fillBlanks({ Phone: '1', PersonEmail: 'a@x.nl', PersonMailingStreet: 'Main 1' }, fields)).toEqual({});
  });
});
