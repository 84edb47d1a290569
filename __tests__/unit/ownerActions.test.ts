/**
 * actionsByOwnerEmail: a users.update whose actions the receiver's owners table lacks finds them
 * in Salesforce under the user's email (one read of the user, one query for all of a batch's).
 */
import { describe, expect, it } from '@jest/globals';
import type { ApiUser } from '../../src/model/apiRecords.js';
import { actionsByOwnerEmail } from '../../src/sync/mirror/ownerActions.js';
import { authError, FakeSink, FakeSource, serverError } from './fakes.js';

const user = (id: number, email: string | null): ApiUser => ({ id, first_name: `User`, last_name: `${id}`, email });

function mirror(...actions: Array<[number, string]>): FakeSink {
  const sink = new FakeSink();
  for (const [id, email] of actions) sink.seed('Svc_Action__c', { SvcId__c: `Action_${id}`, Email__c: email, LastName__c: 'Owner' });
  return sink;
}

describe('actionsByOwnerEmail', () => {
  it("finds the actions Salesforce holds under each user's email, ignoring case as Salesforce does, in one query", async () => {
    const source = new FakeSource().add('user', user(1, 'Ann@Example.org'), user(2, 'bob@example.org'), user(3, 'nobody@example.org'));
    const sink = mirror([10, 'ann@example.org'], [11, 'Ann@Example.org'], [12, 'bob@example.org'], [13, 'carol@example.org']);

    const found = await actionsByOwnerEmail(source, sink, [1, 2, 3]);

    expect(found).toEqual(
      new Map([
        [1, { actions: [10, 11] }],
        [2, { actions: [12] }],
        [3, { actions: [] }],
      ]),
    );
    expect(source.fetches).toEqual([{ type: 'user', ids: [1, 2, 3] }]);
    expect(sink.log.map((c) => c.op)).toEqual(['readWhere']);
  });

  it('finds nothing, and queries nothing, for a user without an email or no longer on the platform', async () => {
    const source = new FakeSource().add('user', user(4, null));
    const sink = mirror([10, 'ann@example.org']);

    const found = await actionsByOwnerEmail(source, sink, [4, 5]);

    expect(found).toEqual(
      new Map([
        [4, { actions: [] }],
        [5, { actions: [] }],
      ]),
    );
    expect(sink.log).toEqual([]);
  });

  it('says which user could not be read (its event is retried); a fatal answer stops the batch', async () => {
    const source = new FakeSource().add('user', user(1, 'ann@example.org')).failWith('user', 2, serverError('/v1/users/2'));
    const sink = mirror([10, 'ann@example.org']);

    const found = await actionsByOwnerEmail(source, sink, [1, 2]);

    expect(found.get(1)).toEqual({ actions: [10] });
    expect(found.get(2)).toEqual({ error: expect.stringMatching(/^user 2 could not be read: .*503/) });
    await expect(actionsByOwnerEmail(new FakeSource().failWith('user', 1, authError('/v1/users/1')), sink, [1])).rejects.toThrow(/Invalid API key/);
  });
});
