/**
 * SF_INSTANCE_URL answering 200 with something that is not Salesforce's REST API (issue 47, row
 * 4): a login page, a captive portal, `{}`, JSON cut short. One line saying so and naming the URL,
 * exit 2, nothing written; not `page2.records is not iterable` or `Cannot read properties of
 * undefined`, exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, removeDir, tempCwd } from './helpers.js';

type Answer = { type: string; body: string };

const PORTAL: Answer = { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Sign in to the guest network</title>' };
const EMPTY: Answer = { type: 'application/json', body: '{}' };
const CUT: Answer = { type: 'application/json', body: '{"DailyApiRequests": {"Max": 15000, "Remai' };
const LIMITS: Answer = { type: 'application/json', body: '{"DailyApiRequests": {"Max": 15000, "Remaining": 14000}}' };

describe('an instance URL that is not Salesforce', () => {
  let stack: Stack;
  let server: http.Server;
  let url = '';
  let cwd = '';
  /** What the server answers: to /limits, and to everything else. */
  let answers: { limits: Answer; other: Answer } = { limits: PORTAL, other: PORTAL };

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 9, donations: 4, newsletterSubscriptions: 1 } });
    server = http.createServer((req, res) => {
      req.resume();
      const a = /\/limits$/.test(req.url ?? '') ? answers.limits : answers.other;
      res.writeHead(200, { 'content-type': a.type }).end(a.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cwd = tempCwd('not-salesforce');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([stack.close(), new Promise((resolve) => server.close(resolve))]);
    removeDir(cwd);
  });

  const cases: Array<[string, { limits: Answer; other: Answer }, string, string]> = [
    ['an HTML page (a captive portal)', { limits: PORTAL, other: PORTAL }, 'limits', 'an HTML page (text/html)'],
    ['{}', { limits: EMPTY, other: EMPTY }, 'limits', "JSON without the org's limits"],
    ['JSON cut short', { limits: CUT, other: CUT }, 'limits', 'JSON cut short or broken'],
    ['{} to queries, the limits answered', { limits: LIMITS, other: EMPTY }, 'query', 'JSON that is no query result (no records)'],
  ];
  for (const [what, given, path, said] of cases) {
    it(`${what}: exit 2, one line naming the URL`, async () => {
      answers = given;
      const run = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SF_INSTANCE_URL: url });
      expect(run.code).toBe(2);
      const lines = run.stderr.split('\n').filter((l) => l.includes("not Salesforce's REST API"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${url}/services/data/v${stack.salesforce.apiVersion}/${path} answered 200 with ${said}: not Salesforce's REST API (check SF_INSTANCE_URL`);
      expect(run.stderr).not.toMatch(/is not iterable|Cannot read properties/);
    }, 60_000);
  }
});
