/** A 401 stops the rest of a run, but a long-lived process (serve) can start a new run later. */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { PlatformError } from '../../src/model/errors.js';
import { PlatformClient } from '../../src/platform/client.js';
import { startFakePlatform, type FakePlatform } from '../../fixtures/platform/server.js';
import { generateSite } from '../../fixtures/platform/site.js';
import { settingsFor } from './helpers.js';

let fake: FakePlatform;
beforeAll(async () => {
  fake = await startFakePlatform({
    site: generateSite({ segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 0, newsletterSubscriptions: 0 }),
    apiKey: 'right-key-123',
  });
});
afterAll(async () => {
  await fake.close();
});

it('sends nothing more after a 401 until resume(), then asks again', async () => {
  const client = new PlatformClient(settingsFor(fake, { apiKey: 'wrong-key-456' }));
  const id = fake.site.segment[0]!.id;
  await expect(client.getById('segment', id)).rejects.toBeInstanceOf(PlatformError);
  const after401 = fake.requests.total;
  await expect(client.getById('segment', id)).rejects.toMatchObject({ kind: 'auth', fatal: true });
  expect(fake.requests.total).toBe(after401);
  client.resume();
  await expect(client.getById('segment', id)).rejects.toMatchObject({ kind: 'auth' });
  expect(fake.requests.total).toBe(after401 + 1);
});
