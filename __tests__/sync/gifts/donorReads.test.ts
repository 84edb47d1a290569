/**
 * The donor reads' SOQL (PROJECTION.md §6.1 step 1): keys with quotes and backslashes are read back
 * exactly, and a key list too long for one request URL is split, never cut.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveDonors, type DonorInput } from '../../../src/sync/gifts/donors.js';
import { donation, donorOrg, MemoryLinks, type DonorOrg } from './helpers.js';

let org: DonorOrg | undefined;
afterEach(async () => {
  await org?.emu.close();
  org = undefined;
});

/** The key queries sent (requests as `GET path?q=<soql>`, decoded). */
const keyQueries = (o: DonorOrg): string[] => o.emu.requests().filter((r) => r.startsWith('GET ') && r.includes('SvcDonorKey__c IN'));

describe('the donor reads', () => {
  it('finds keys holding a quote or a backslash by key (the literal is escaped, not ended)', async () => {
    org = await donorOrg();
    const inputs: DonorInput[] = [
      { donation: donation(1, { first_name: 'Sean', last_name: "O'Brien", email: "o'brien@x.nl" }) },
      { donation: donation(2, { first_name: 'Back', last_name: 'Sl\\ash', email: 'b@x.nl' }) },
      { donation: donation(3, { company: "Foo' OR Name != 'x", email: 'foo@x.nl' }) },
    ];
    const first = await resolveDonors(inputs, org.ctx());
    expect([...first.values()].map((r) => r.donor.key)).toEqual(["P:o'brien@x.nl:o'brien:sean", 'P:b@x.nl:sl\\ash:back', "O:foo' or name != 'x:foo@x.nl"]);
    org.emu.resetCalls();
    const again = await resolveDonors(inputs, org.ctx({ links: new MemoryLinks() }));
    expect([...again.values()].map((r) => [r.donor.matchedBy, r.donor.id])).toEqual([...first.values()].map((r) => ['key', r.donor.id]));
    expect(org.emu.requests().filter((r) => !r.startsWith('GET'))).toEqual([]);
  });

  it('splits a key list too long for one URL into as few queries as fit, and finds every key', async () => {
    org = await donorOrg();
    const long = 'x'.repeat(180);
    const inputs = Array.from({ length: 150 }, (_, i): DonorInput => ({ donation: donation(i + 1, { first_name: 'A', last_name: `N${i}`, email: `${long}${i}@example.org` }) }));
    await resolveDonors(inputs, org.ctx());
    org.emu.resetCalls();
    const again = await resolveDonors(inputs, org.ctx({ links: new MemoryLinks() }));
    expect([...again.values()].every((r) => r.donor.matchedBy === 'key' && r.donor.id !== undefined)).toBe(true);
    const queries = keyQueries(org);
    expect(queries.length).toBeGreaterThan(1);
    expect(queries.length).toBeLessThanOrEqual(4);
    for (const q of queries) expect(encodeURIComponent(q).length).toBeLessThan(16000);
  });
});
