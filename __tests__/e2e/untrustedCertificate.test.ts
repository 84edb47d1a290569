/**
 * A host behind a certificate no trusted CA signed (issue 47, row 8): one line naming the host and
 * the setting that trusts a CA (NODE_EXTRA_CA_CERTS), exit 2, not `self-signed certificate` and
 * exit 1. Given that setting, the same host is trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../../fixtures/tls/selfSigned.js';
import { cli, removeDir, tempCwd, writeCalls } from './helpers.js';

describe('an untrusted certificate', () => {
  let stack: Stack;
  let server: https.Server;
  let url = '';
  let cwd = '';

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 8, donations: 4, newsletterSubscriptions: 1 } });
    // Answers as a host that refuses the token: reached only once its certificate is trusted.
    server = https.createServer({ cert: SELF_SIGNED_CERT, key: SELF_SIGNED_KEY }, (req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end('[{"errorCode": "INVALID_SESSION_ID", "message": "Session expired or invalid"}]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cwd = tempCwd('untrusted-cert');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([stack.close(), new Promise((resolve) => server.close(resolve))]);
    removeDir(cwd);
  });

  const line = (): string =>
    `${url}: its TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT); if it is signed by your own CA (a TLS-inspecting proxy), give that CA's certificate in NODE_EXTRA_CA_CERTS=/path/ca.pem, else check the URL setting`;

  for (const [who, env] of [
    ['Salesforce (SF_INSTANCE_URL)', (): Record<string, string> => ({ SF_INSTANCE_URL: url })],
    [
      'the OAuth login (SF_LOGIN_URL)',
      (): Record<string, string> => ({ SF_INSTANCE_URL: '', SF_ACCESS_TOKEN: '', SF_LOGIN_URL: url, SF_CLIENT_ID: 'client', SF_CLIENT_SECRET: 'a-client-secret-1234' }),
    ],
    ['the platform (SVC_API_URL)', (): Record<string, string> => ({ SVC_API_URL: url })],
  ] as const) {
    it(`${who}: exit 2, one line naming the host and NODE_EXTRA_CA_CERTS, nothing written`, async () => {
      const run = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, ...env() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(line());
      expect(run.stderr.split('\n').filter((l) => l.includes('NODE_EXTRA_CA_CERTS'))).toHaveLength(1);
      expect(writeCalls(stack)).toBe(0);
    }, 60_000);
  }

  it('with the CA given in NODE_EXTRA_CA_CERTS the host is trusted: its own answer is what the run meets', async () => {
    const ca = path.join(cwd, 'ca.pem');
    fs.writeFileSync(ca, SELF_SIGNED_CERT);
    const run = await cli(stack, ['sync', '--all'], cwd, undefined, { ...stack.env, SF_INSTANCE_URL: url, NODE_EXTRA_CA_CERTS: ca });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('certificate');
    expect(run.stderr).toMatch(/session is invalid or expired/);
  }, 60_000);
});
