/** Exit codes of the built CLI: 0 all done, 1 some records failed (the rest written), 2 usage or configuration, nothing written. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import type { Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, expectEnvelope, expectFullMirror, expectedKeys, keyOf, recordCount, removeDir, stackWithVictim, totals, writeCalls } from './helpers.js';

describe('exit codes', () => {
  let stack: Stack;
  let cwd: string;
  let victim: ApiDonation;

  beforeAll(async () => {
    ({ stack, cwd, victim } = await stackWithVictim('exit', { segments: 1, projectsPerSegment: 2, donations: 40, newsletterSubscriptions: 4 }));
  });

  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  const expectNothingWritten = (): void => {
    expect(writeCalls(stack)).toBe(0);
    expect(recordCount(stack)).toBe(0);
  };

  describe('2: usage and configuration errors write nothing', () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['an unknown object type', ['object', 'widget', '1'], /object type "widget": unknown/],
      ['an id that is not a number', ['object', 'donation', '12x'], /object id "12x"/],
      ['an id of zero', ['object', 'donation', '0'], /object id "0"/],
      ['--since and --all together', ['sync', '--all', '--since', '2024-01-01T00:00:00Z'], /--since and --all/],
      ['a --since that is not ISO 8601', ['sync', '--since', 'yesterday'], /--since "yesterday"/],
      ['a --batch-size that is not a number', ['object', 'donation', '100000', '--batch-size', 'abc'], /--batch-size/],
      ['replay without --file', ['replay'], /--file/],
      ['an unknown command', ['frobnicate'], /frobnicate/],
    ];
    it.each(cases)('%s', async (_label, args, message) => {
      const res = await cli(stack, args, cwd);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stdout).toBe('');
      expectNothingWritten();
    });

    it.each([
      ['an unknown option', ['--json', '--bogus'], /unknown option '--bogus'/],
      ['an unknown object type', ['--json', 'object', 'widget', '1'], /object type "widget": unknown/],
    ])('with --json, %s is one JSON error document on stdout', async (_label, args, message) => {
      const res = await cli(stack, args, cwd);
      expect(res.code).toBe(2);
      const body = JSON.parse(res.stdout) as { status: number; exitCode: number; message: string; warnings: unknown[] };
      expect(body).toMatchObject({ status: 2, exitCode: 2, warnings: [] });
      expect(body.message).toMatch(message);
      expectNothingWritten();
    });

    it("commander's own errors speak as every other error: `svc-sync: `, the help to read next, one line", async () => {
      const human = await cli(stack, ['sync', '--bogus'], cwd);
      const json = await cli(stack, ['--json-lines', 'sync', '--bogus'], cwd);
      for (const res of [human, json]) expect(res.code).toBe(2);
      const unstamped = (t: string): string[] =>
        t
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => l.replace(/^\d{4}-\d\d-\d\dT\S+Z /, ''));
      expect(unstamped(human.stderr)).toEqual(["svc-sync: unknown option '--bogus'; next: svc-sync sync --help"]);
      expect(unstamped(json.stderr)).toEqual(["svc-sync: exit 2: unknown option '--bogus'; next: svc-sync sync --help"]);
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 2, message: "unknown option '--bogus'", actions: ['svc-sync sync --help'] });
      expectNothingWritten();
    });

    it("--help lists every exit code of README's table", async () => {
      const readme = fs.readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
      const codes = [...readme.matchAll(/^\| (\d+) \|/gm)].map((m) => m[1]);
      expect(codes).toEqual(expect.arrayContaining(['0', '1', '2', '3', '75', '143']));
      const help = (await cli(stack, ['--help'], cwd)).stdout.replace(/\s+/g, ' ');
      const listed = /Exit codes: (.*?)\./.exec(help)?.[1] ?? '';
      for (const code of codes) expect(listed).toMatch(new RegExp(`(^|, )${code} `));
    });

    it('SVC_PROJECTION=npsp in an org without NPSP: refused in one line before anything is read or written', async () => {
      const res = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SVC_PROJECTION: 'npsp' });
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/SVC_PROJECTION npsp: the org has no NPSP \(npe01__OppPayment__c, Opportunity.npsp__Primary_Contact__c\); set SVC_PROJECTION=npc or off; next: svc-sync doctor/),
      ]);
      expectNothingWritten();
    });

    it('SVC_API_URL missing: the message names it', async () => {
      const env = { ...stack.env };
      delete env.SVC_API_URL;
      const res = await cli(stack, ['object', 'donation', String(victim.id)], cwd, undefined, env);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/SVC_API_URL/);
      expectNothingWritten();
    });

    it('a wrong API key: exit 2, and the key appears nowhere in the output', async () => {
      const wrongKey = 'sk_live_e2e_wrong_4c1d9f0b7a3e5c28';
      const env = { ...stack.env, SVC_API_KEY: wrongKey };
      const before = stack.platform.requests.status[401] ?? 0;
      const human = await cli(stack, ['--verbose', 'object', 'donation', String(victim.id)], cwd, undefined, env);
      const json = await cli(stack, ['--json', 'sync', '--all'], cwd, undefined, env);
      // The key was really sent and refused: the test is about the refusal, not a config typo.
      expect((stack.platform.requests.status[401] ?? 0) - before).toBeGreaterThanOrEqual(2);
      for (const res of [human, json]) {
        expect(res.code).toBe(2);
        expect(`${res.stdout}\n${res.stderr}`).not.toContain(wrongKey);
        expect(`${res.stdout}\n${res.stderr}`).toMatch(/SVC_API_KEY/);
      }
      const body = JSON.parse(json.stdout) as { status: number; message: string };
      expect(body.status).toBe(2);
      expect(body.message).toMatch(/401/);
      expectNothingWritten();
    });
  });

  describe('69: an OAuth login URL nothing answers', () => {
    it.each([
      ['client credentials', {}],
      ['username and password', { SF_USERNAME: 'integration@example.org', SF_PASSWORD: 'pw-0123456789' }],
    ])('%s: exit 69, one line naming the host, the attempts and the setting to check', async (_flow, extra) => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const { SF_INSTANCE_URL: _url, SF_ACCESS_TOKEN: _token, ...platform } = stack.env;
      const env = { ...platform, SF_LOGIN_URL: `http://127.0.0.1:${port}`, SF_CLIENT_ID: 'client-id-of-the-app', SF_CLIENT_SECRET: 'client-secret-0123456789', ...extra };
      const res = await cli(stack, ['sync', '--all'], cwd, undefined, env);
      expect(res.code).toBe(69);
      const lines = res.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `Salesforce did not answer: login URL http://127\\.0\\.0\\.1:${port}/services/oauth2/token: .*ECONNREFUSED.* \\(3 attempts over \\d+\\.\\d s\\); check that it is up and that SF_LOGIN_URL points at it`,
        ),
      );
      expect(res.stderr).not.toContain('client-secret-0123456789');
      expectNothingWritten();
    });
  });

  describe('1 and 0', () => {
    it('1: a donation whose amount exceeds Number(10,2) fails; every other record is written', async () => {
      const good = victim.donation_amount;
      stack.platform.update('donation', victim.id, { donation_amount: '123456789.5' });
      const run = await cliJson(stack, ['sync', '--all'], cwd);
      expect(run.code).toBe(1);
      expectEnvelope(run, 'sync', false);
      expect(run.body.result.summary.Svc_Donation__c.failed).toBe(1);
      expect(totals(run.body.result).failed).toBe(1);
      const failed = run.body.result.records.filter((r) => r.action === 'fail');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ object: 'Svc_Donation__c', key: keyOf('donation', victim.id) });
      expect(failed[0].error?.code).toMatch(/\S/);
      expect(failed[0].error?.message).toMatch(/Amount__c|precision|digits|range/i);
      expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', victim.id))).toBeUndefined();
      // The rest: everything else the spec syncs is there.
      const want = expectedKeys(stack.platform.site);
      const donations = stack.salesforce
        .records('Svc_Donation__c')
        .map((r) => r.SvcId__c)
        .sort();
      expect(donations).toEqual(want.Svc_Donation__c.filter((k) => k !== keyOf('donation', victim.id)));
      expect(stack.salesforce.records('Svc_Action__c')).toHaveLength(want.Svc_Action__c.length);
      // The watermark moves on; the failed record is kept to be synced again by id.
      expect(run.body.warnings.some((w) => /1 record\(s\) failed and will be synced again by id on the next run/.test(w))).toBe(true);
      const state = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { watermarks?: Record<string, string>; run?: unknown; retry?: unknown };
      expect(typeof state.watermarks?.donation).toBe('string');
      expect(state.run).toBeUndefined();
      expect(state.retry).toEqual([{ type: 'donation', id: victim.id }]);
      expect(run.body.result.retryNextRun).toBe(1);

      // The human output lists the failure by reason, with key and error code.
      const human = await cli(stack, ['sync', '--all'], cwd);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain('Failures (1), by reason:');
      expect(human.stdout).toContain(keyOf('donation', victim.id));
      expect(human.stdout).toContain(failed[0].error?.code ?? '<no code>');

      // Fixed on the platform, with an updated_at older than the watermark: no scan would find it.
      const live = stack.platform.site.donation.find((d) => d.id === victim.id);
      if (!live) throw new Error('victim donation missing from the fake');
      live.donation_amount = good;
      live.updated_at = '2016-01-01T00:00:00Z';
    });

    it('0: with the record fixed, a plain `sync` syncs it again by id, and the mirror is complete', async () => {
      stack.platform.resetCounts();
      const run = await cliJson(stack, ['sync'], cwd);
      expect(run.code).toBe(0);
      expect(run.body.status).toBe(0);
      expect(typeof run.body.result.since).toBe('string');
      expect(run.body.result.retried).toBe(1);
      expect(run.body.result.summary.Svc_Donation__c.inserted).toBe(1);
      expect(totals(run.body.result)).toMatchObject({ inserted: 1, updated: 0, failed: 0 });
      expect(stack.platform.requests.byId.donations).toBe(1);
      expectFullMirror(stack, stack.platform.site);
      const state = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'state.json'), 'utf8')) as { watermarks?: Record<string, string>; run?: unknown; retry?: unknown };
      expect(typeof state.watermarks?.donation).toBe('string');
      expect(state.run).toBeUndefined();
      expect(state.retry).toBeUndefined();
    });
  });
});
